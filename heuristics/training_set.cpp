#include "heuristics/training_set.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "heuristics/kernel_defaults.h"
#include "kernels/common/errors.h"
#include "tuner/results_database.h"

namespace aotune::heuristics {

namespace {

// Times below a nanosecond are clamped so an empty launch never divides by zero.
constexpr double kMinTimeUs = 1e-3;

}  // namespace

int64_t log_cost_of(double slowdown) {
  if (!(slowdown < kInfiniteSlowdown)) return -1;
  return std::max<int64_t>(0, std::llround(std::log(std::max(slowdown, 1.0)) * 1e6));
}

bool add_shape(TrainingSet& ts, const std::string& key, const std::vector<double>& features,
               const std::vector<double>& times_us, const std::vector<CellKind>& kinds) {
  if (features.size() != ts.num_features() || times_us.size() != ts.num_configs() ||
      kinds.size() != ts.num_configs()) {
    throw InvalidArgument("shape '" + key + "' has " + std::to_string(features.size()) +
                          " features and " + std::to_string(times_us.size()) +
                          " timings, expected " + std::to_string(ts.num_features()) + " and " +
                          std::to_string(ts.num_configs()));
  }
  double best = kInfiniteSlowdown, worst = 0;
  for (std::size_t c = 0; c < kinds.size(); ++c) {
    if (kinds[c] != CellKind::measured) continue;
    best = std::min(best, std::max(times_us[c], kMinTimeUs));
    worst = std::max(worst, std::max(times_us[c], kMinTimeUs));
  }
  if (best == kInfiniteSlowdown) {
    ++ts.dropped_shapes;
    return false;
  }
  const double imputed = std::max(kMinUnmeasuredSlowdown, worst / best);
  ts.shape_keys.push_back(key);
  ts.features.insert(ts.features.end(), features.begin(), features.end());
  for (std::size_t c = 0; c < kinds.size(); ++c) {
    double s = kInfiniteSlowdown;
    if (kinds[c] == CellKind::measured) s = std::max(times_us[c], kMinTimeUs) / best;
    if (kinds[c] == CellKind::unmeasured) s = imputed;
    ts.kind.push_back(kinds[c]);
    ts.slowdown.push_back(s);
    ts.log_cost.push_back(log_cost_of(s));
  }
  return true;
}

bool add_shape(TrainingSet& ts, const std::string& key, const std::vector<double>& features,
               const std::vector<double>& times_us, const std::vector<bool>& legal) {
  std::vector<CellKind> kinds;
  for (std::size_t c = 0; c < times_us.size(); ++c) {
    kinds.push_back(times_us[c] >= 0               ? CellKind::measured
                    : c < legal.size() && legal[c] ? CellKind::broken
                                                   : CellKind::illegal);
  }
  return add_shape(ts, key, features, times_us, kinds);
}

namespace {

CellKind kind_of(const tuner::Cell& cell) {
  switch (cell.status) {
    case tuner::CellStatus::ok:
      return CellKind::measured;
    case tuner::CellStatus::skipped:
      return CellKind::unmeasured;
    case tuner::CellStatus::illegal:
      return CellKind::illegal;
    case tuner::CellStatus::failed:
    case tuner::CellStatus::crashed:
      return CellKind::broken;
  }
  return CellKind::broken;
}

}  // namespace

void impute_unmeasured(TrainingSet& ts, const ImputeOptions& options) {
  if (options.method == Imputation::worst_measured || options.neighbours == 0) return;
  const std::size_t n = ts.num_shapes(), nf = ts.num_features(), nc = ts.num_configs();
  // Features in log space, scaled to unit standard deviation (constant features drop out).
  std::vector<double> z(n * nf, 0.0);
  for (std::size_t f = 0; f < nf; ++f) {
    double sum = 0, sq = 0;
    for (std::size_t s = 0; s < n; ++s) {
      const double x = ts.features_of(s)[f];
      const double v = std::isfinite(x) ? std::copysign(std::log2(1.0 + std::fabs(x)), x) : 0.0;
      z[s * nf + f] = v;
      sum += v;
    }
    const double mean = sum / static_cast<double>(std::max<std::size_t>(n, 1));
    for (std::size_t s = 0; s < n; ++s) sq += (z[s * nf + f] - mean) * (z[s * nf + f] - mean);
    const double sd = std::sqrt(sq / static_cast<double>(std::max<std::size_t>(n, 1)));
    for (std::size_t s = 0; s < n; ++s) z[s * nf + f] = sd > 1e-12 ? (z[s * nf + f] - mean) / sd : 0;
  }
  auto distance = [&](std::size_t a, std::size_t b) {
    double d = 0;
    for (std::size_t f = 0; f < nf; ++f) d += (z[a * nf + f] - z[b * nf + f]) * (z[a * nf + f] - z[b * nf + f]);
    return d;
  };
  std::vector<std::pair<double, std::size_t>> near;
  for (std::size_t c = 0; c < nc; ++c) {
    std::vector<std::size_t> measured;
    for (std::size_t s = 0; s < n; ++s)
      if (ts.kind_at(s, c) == CellKind::measured) measured.push_back(s);
    if (measured.empty()) continue;
    for (std::size_t s = 0; s < n; ++s) {
      if (ts.kind_at(s, c) != CellKind::unmeasured) continue;
      near.clear();
      for (const std::size_t m : measured) near.emplace_back(distance(s, m), m);
      const std::size_t k = std::min(options.neighbours, near.size());
      std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(k), near.end());
      double log_sum = 0;
      for (std::size_t i = 0; i < k; ++i) log_sum += std::log(ts.slowdown_at(near[i].second, c));
      const double imputed = std::max(1.0, std::exp(log_sum / static_cast<double>(k)));
      ts.slowdown[ts.cell(s, c)] = imputed;
      ts.log_cost[ts.cell(s, c)] = log_cost_of(imputed);
    }
  }
}

TrainingSet training_set_from_database(const tuner::ResultsDatabase& db,
                                       const ImputeOptions& impute) {
  TrainingSet ts;
  ts.kernel = db.kernel;
  for (const auto& c : db.configs) ts.config_ids.push_back(c.id);
  ts.default_config = default_config_index(db.kernel, ts.config_ids);
  if (!db.shapes.empty()) {
    for (const auto& [name, value] : db.shapes.front().features) ts.feature_names.push_back(name);
  }
  std::vector<double> features, times;
  std::vector<CellKind> kinds;
  for (const auto& shape : db.shapes) {
    features.clear();
    times.clear();
    kinds.clear();
    for (std::size_t f = 0; f < shape.features.size(); ++f) {
      if (f >= ts.feature_names.size() || shape.features[f].first != ts.feature_names[f]) {
        throw InvalidArgument(
            db.kernel + " database: shape '" + shape.key + "' has feature '" +
            shape.features[f].first + "' where the first shape has " +
            (f < ts.feature_names.size() ? "'" + ts.feature_names[f] + "'" : "none"));
      }
      features.push_back(shape.features[f].second);
    }
    for (const auto& cell : shape.cells) {
      times.push_back(cell.ok() ? cell.timing.median_us : -1.0);
      kinds.push_back(kind_of(cell));
    }
    if (add_shape(ts, shape.key, features, times, kinds)) ts.bytes_moved.push_back(shape.bytes_moved);
  }
  impute_unmeasured(ts, impute);
  return ts;
}

std::vector<std::size_t> all_rows(const TrainingSet& ts) {
  std::vector<std::size_t> rows(ts.num_shapes());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return rows;
}

}  // namespace aotune::heuristics
