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
               const std::vector<double>& times_us, const std::vector<bool>& legal) {
  if (features.size() != ts.num_features() || times_us.size() != ts.num_configs() ||
      legal.size() != ts.num_configs()) {
    throw InvalidArgument("shape '" + key + "' has " + std::to_string(features.size()) + " features and " +
                          std::to_string(times_us.size()) + " timings, expected " +
                          std::to_string(ts.num_features()) + " and " + std::to_string(ts.num_configs()));
  }
  double best = kInfiniteSlowdown;
  for (const double t : times_us) {
    if (t >= 0) best = std::min(best, std::max(t, kMinTimeUs));
  }
  if (best == kInfiniteSlowdown) {
    ++ts.dropped_shapes;
    return false;
  }
  ts.shape_keys.push_back(key);
  ts.features.insert(ts.features.end(), features.begin(), features.end());
  for (std::size_t c = 0; c < times_us.size(); ++c) {
    const double s = times_us[c] >= 0 ? std::max(times_us[c], kMinTimeUs) / best : kInfiniteSlowdown;
    ts.slowdown.push_back(s);
    ts.log_cost.push_back(log_cost_of(s));
    ts.legal.push_back(legal[c] ? 1 : 0);
  }
  return true;
}

TrainingSet training_set_from_database(const tuner::ResultsDatabase& db) {
  TrainingSet ts;
  ts.kernel = db.kernel;
  for (const auto& c : db.configs) ts.config_ids.push_back(c.id);
  ts.default_config = default_config_index(db.kernel, ts.config_ids);
  if (!db.shapes.empty()) {
    for (const auto& [name, value] : db.shapes.front().features) ts.feature_names.push_back(name);
  }
  std::vector<double> features, times;
  std::vector<bool> legal;
  for (const auto& shape : db.shapes) {
    features.clear();
    times.clear();
    legal.clear();
    for (std::size_t f = 0; f < shape.features.size(); ++f) {
      if (f >= ts.feature_names.size() || shape.features[f].first != ts.feature_names[f]) {
        throw InvalidArgument(db.kernel + " database: shape '" + shape.key + "' has feature '" +
                              shape.features[f].first + "' where the first shape has " +
                              (f < ts.feature_names.size() ? "'" + ts.feature_names[f] + "'" : "none"));
      }
      features.push_back(shape.features[f].second);
    }
    for (const auto& cell : shape.cells) {
      times.push_back(cell.ok() ? cell.timing.median_us : -1.0);
      legal.push_back(cell.status != tuner::CellStatus::illegal);
    }
    add_shape(ts, shape.key, features, times, legal);
  }
  return ts;
}

std::vector<std::size_t> all_rows(const TrainingSet& ts) {
  std::vector<std::size_t> rows(ts.num_shapes());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return rows;
}

}  // namespace aotune::heuristics
