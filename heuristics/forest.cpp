#include "heuristics/forest.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "heuristics/config_subset.h"
#include "heuristics/decision_tree.h"
#include "heuristics/row_bound.h"
#include "kernels/common/errors.h"
#include "tuner/stable_hash.h"

namespace aotune::heuristics {

namespace {

// Summed squares of up to a few hundred shapes x 76 configs x 1.5e6 overflow 64 bits.
__extension__ typedef __int128 Int128;

// Thresholds are drawn in log space, as heldout_forest.py draws them on log2(1 + |x|): sizes span
// decades, and a uniform draw on raw values would almost always split off the largest shapes.
// The sign is kept (the imputation's mapping) so a negative feature still orders. The draw is
// mapped back to a raw threshold, so prediction compares raw features as find_leaf does, and
// training partitions with that same comparison. (libm's log2 / exp2 may differ in the last bit
// between machines; that could move a partition only where a draw lands within an ulp of a
// feature value.)
double to_log_space(double x) { return x >= 0 ? std::log2(1 + x) : -std::log2(1 - x); }
double from_log_space(double t) { return t >= 0 ? std::exp2(t) - 1 : 1 - std::exp2(-t); }

// A double in [0, 1) from the generator's raw 64 bits (53 of them): the same on every machine.
double unit_interval(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

struct Grower {
  explicit Grower(const ForestOptions& o) : options(o) {}
  const ForestOptions& options;
  std::size_t num_cols = 0, num_features = 0;
  std::vector<double> raw;         // rows x features, the training set's values
  std::vector<double> logged;      // rows x features, to_log_space(raw)
  std::vector<int32_t> target;     // rows x cols, clipped ln slowdown in millionths
  std::vector<uint8_t> failed;     // rows x cols: broken (legal, failed its check)

  Forest* out = nullptr;
  std::vector<TreeNode>* tree = nullptr;  // the tree being grown, indices relative to its root
  std::mt19937_64 rng;

  // Appends a leaf for `rows` and returns its index in the tree.
  int32_t leaf(const std::vector<std::size_t>& rows, const std::vector<int64_t>& sum) {
    const auto at = static_cast<int32_t>(tree->size());
    tree->push_back({-1, static_cast<int32_t>(out->leaf_values.size()), static_cast<int32_t>(num_cols), 0.0});
    const int64_t units = static_cast<int64_t>(rows.size()) * kLeafCostUnit;
    for (std::size_t k = 0; k < num_cols; ++k) {
      // Targets are >= 0 and at most the clip (<= kMaxLeafCostLn): this rounds half up and stays
      // under kLeafCostFailed.
      uint16_t value = static_cast<uint16_t>((sum[k] + units / 2) / units);
      for (const std::size_t r : rows)
        if (failed[r * num_cols + k]) {
          value = kLeafCostFailed;
          break;
        }
      out->leaf_values.push_back(value);
    }
    return at;
  }

  std::vector<int64_t> column_sums(const std::vector<std::size_t>& rows) const {
    std::vector<int64_t> sum(num_cols, 0);
    for (const std::size_t r : rows)
      for (std::size_t k = 0; k < num_cols; ++k) sum[k] += target[r * num_cols + k];
    return sum;
  }

  bool all_targets_equal(const std::vector<std::size_t>& rows) const {
    for (const std::size_t r : rows)
      if (!std::equal(&target[r * num_cols], &target[r * num_cols] + num_cols, &target[rows[0] * num_cols]))
        return false;
    return true;
  }

  // sum_k s_k^2 / n, floored: the part of the summed squared error a side removes (the rest, the
  // sum of squares, is the same for every split of a node), as sklearn's proxy improvement.
  static Int128 explained(const std::vector<int64_t>& s, std::size_t n) {
    Int128 total = 0;
    for (const int64_t v : s) total += static_cast<Int128>(v) * v;
    return total / static_cast<Int128>(n);
  }

  int32_t grow(const std::vector<std::size_t>& rows, int depth) {
    const std::vector<int64_t> sum = column_sums(rows);
    if (depth >= options.max_depth || rows.size() < 2 * std::max<std::size_t>(1, options.min_leaf) ||
        all_targets_equal(rows))
      return leaf(rows, sum);
    // One random threshold per feature that varies here; keep the best (first on ties).
    int32_t best_feature = -1;
    double best_threshold = 0;
    Int128 best_score = -1;
    std::vector<int64_t> left(num_cols), right(num_cols);
    for (std::size_t f = 0; f < num_features; ++f) {
      double lo = logged[rows[0] * num_features + f], hi = lo;
      for (const std::size_t r : rows) {
        lo = std::min(lo, logged[r * num_features + f]);
        hi = std::max(hi, logged[r * num_features + f]);
      }
      if (!(lo < hi)) continue;  // constant here: no draw, so other features' draws do not move
      // std::fma rounds once on every machine; a plain a * b + c may or may not be contracted.
      const double threshold = from_log_space(std::fma(unit_interval(rng), hi - lo, lo));
      std::fill(left.begin(), left.end(), 0);
      std::size_t n_left = 0;
      for (const std::size_t r : rows) {
        if (!(raw[r * num_features + f] < threshold)) continue;  // as find_leaf: NaN goes right
        ++n_left;
        for (std::size_t k = 0; k < num_cols; ++k) left[k] += target[r * num_cols + k];
      }
      const std::size_t n_right = rows.size() - n_left;
      if (n_left < std::max<std::size_t>(1, options.min_leaf) || n_right < std::max<std::size_t>(1, options.min_leaf))
        continue;
      for (std::size_t k = 0; k < num_cols; ++k) right[k] = sum[k] - left[k];
      const Int128 score = explained(left, n_left) + explained(right, n_right);
      if (score > best_score) {
        best_score = score;
        best_feature = static_cast<int32_t>(f);
        best_threshold = threshold;
      }
    }
    if (best_feature < 0) return leaf(rows, sum);
    std::vector<std::size_t> left_rows, right_rows;
    for (const std::size_t r : rows)
      (raw[r * num_features + static_cast<std::size_t>(best_feature)] < best_threshold ? left_rows : right_rows)
          .push_back(r);
    const auto at = static_cast<int32_t>(tree->size());
    tree->push_back({best_feature, 0, 0, best_threshold});
    const int32_t l = grow(left_rows, depth + 1);
    const int32_t r = grow(right_rows, depth + 1);
    (*tree)[static_cast<std::size_t>(at)].left = l;
    (*tree)[static_cast<std::size_t>(at)].right = r;
    return at;
  }
};

}  // namespace

Forest fit_forest(const TrainingSet& ts, std::span<const std::size_t> rows,
                  std::vector<std::size_t> configs, const ForestOptions& options) {
  if (options.max_depth < 0) throw InvalidArgument("forest max_depth must be >= 0");
  if (!(options.clip > 0) || options.clip > kMaxLeafCostLn)
    throw InvalidArgument(fmt::format("forest clip {} is not in (0, {}]: a leaf's 16-bit cost holds ln slowdowns up "
                                      "to {}",
                                      options.clip, kMaxLeafCostLn, kMaxLeafCostLn));
  std::sort(configs.begin(), configs.end());
  configs.erase(std::unique(configs.begin(), configs.end()), configs.end());
  if (configs.size() > 65535) throw InvalidArgument("forest: too many configs for 16-bit positions");
  Forest forest;
  for (const std::size_t c : configs) {
    if (c >= ts.num_configs()) throw InvalidArgument("forest: config index out of range");
    forest.configs.push_back(static_cast<uint32_t>(c));
  }
  if (rows.empty() || configs.empty()) return forest;

  Grower g(options);
  g.num_cols = configs.size();
  g.num_features = ts.num_features();
  const int64_t clip = log_cost_of(std::exp(options.clip));
  for (const std::size_t row : rows) {
    const double* x = ts.features_of(row);
    for (std::size_t f = 0; f < g.num_features; ++f) {
      g.raw.push_back(x[f]);
      g.logged.push_back(to_log_space(x[f]));
    }
    for (const std::size_t c : configs) {
      const int64_t cost = ts.cost_at(row, c);
      g.target.push_back(static_cast<int32_t>(cost < 0 ? clip : std::min(cost, clip)));
      g.failed.push_back(ts.kind_at(row, c) == CellKind::broken ? 1 : 0);
    }
  }
  g.out = &forest;
  std::vector<std::size_t> local(rows.size());
  std::iota(local.begin(), local.end(), std::size_t{0});
  for (std::size_t t = 0; t < options.trees; ++t) {
    // Each tree its own stream, so a forest of 16 holds the forest of 8 as its first half.
    g.rng.seed(tuner::mix64(options.seed * 0x9e3779b97f4a7c15ull + t + 1));
    std::vector<TreeNode> tree;
    g.tree = &tree;
    g.grow(local, 0);
    forest.roots.push_back(static_cast<int32_t>(forest.nodes.size()));
    forest.nodes.insert(forest.nodes.end(), tree.begin(), tree.end());
  }
  return forest;
}

namespace {

// The forest's tables as dispatch sees them, so scoring walks the trees with dispatch's code.
HeuristicView forest_view(const Forest& forest) {
  HeuristicView v;
  v.nodes = forest.nodes.data();
  v.num_nodes = static_cast<int32_t>(forest.nodes.size());
  v.num_configs = static_cast<int32_t>(forest.configs.size());
  v.roots = forest.roots.data();
  v.num_trees = static_cast<int32_t>(forest.roots.size());
  v.leaf_values = forest.leaf_values.data();
  return v;
}

}  // namespace

void forest_costs(const Forest& forest, const double* x, int64_t* costs) {
  heuristics::forest_costs(forest_view(forest), x, costs);  // no trees: all zero
}

std::vector<uint16_t> forest_ranking(const Forest& forest, const double* x) {
  std::vector<int64_t> costs(forest.configs.size());
  forest_costs(forest, x, costs.data());
  std::vector<uint16_t> order(costs.size());
  rank_costs(costs.data(), static_cast<int32_t>(costs.size()), order.data());
  return order;
}

Heuristic forest_heuristic(const Forest& forest, const TrainingSet& ts, std::span<const std::size_t> rows) {
  Heuristic h;
  if (forest.roots.empty()) return h;  // no trees: an untuned heuristic, as an empty tree
  if (forest.configs.size() > static_cast<std::size_t>(kMaxForestConfigs))
    throw InvalidArgument("forest: " + std::to_string(forest.configs.size()) + " configs, the run-time walk ranks at most " +
                          std::to_string(kMaxForestConfigs));
  h.configs = forest.configs;
  h.nodes = forest.nodes;
  h.roots = forest.roots;
  h.leaf_values = forest.leaf_values;
  const std::vector<std::size_t> columns(forest.configs.begin(), forest.configs.end());
  h.fallback = rank_configs(ts, rows, columns, false);
  return h;
}

Choice route_forest(const Forest& forest, const TrainingSet& ts, std::size_t row) {
  return route(forest_heuristic(forest, ts, all_rows(ts)), ts, row);
}

bool takes_every_config(const TrainingSet& ts, ForestConfigs which) {
  return which == ForestConfigs::all && ts.num_configs() <= static_cast<std::size_t>(kMaxForestConfigs);
}

std::vector<std::size_t> forest_config_columns(const TrainingSet& ts, std::span<const std::size_t> rows,
                                               ForestConfigs which, const SubsetOptions& subset,
                                               std::size_t subset_size) {
  if (takes_every_config(ts, which)) {
    std::vector<std::size_t> all(ts.num_configs());
    std::iota(all.begin(), all.end(), std::size_t{0});
    return all;
  }
  SubsetOptions sized = subset;
  if (subset_size > 0) sized.max_configs = subset_size;
  return select_config_subset(ts, rows, sized);
}

HeldOut heldout_forest_choices(const TrainingSet& ts, const CrossValidationOptions& cv,
                               const ForestOptions& options, std::span<const std::size_t> subset_sizes) {
  const std::vector<std::size_t> rows = all_rows(ts);
  HeldOut out;
  out.choices.resize(rows.size());
  out.fold_of = assign_folds(ts, rows, cv.folds, cv.fold_salt);
  if (rows.empty()) return out;
  const std::size_t k = *std::max_element(out.fold_of.begin(), out.fold_of.end()) + 1;
  if (!subset_sizes.empty() && subset_sizes.size() != k)
    throw InvalidArgument("heldout_forest_choices: one subset size per fold expected");
  std::vector<std::size_t> train, test;
  for (std::size_t fold = 0; fold < k; ++fold) {
    train.clear();
    test.clear();
    for (std::size_t i = 0; i < rows.size(); ++i) (out.fold_of[i] == fold ? test : train).push_back(rows[i]);
    const Forest forest = fit_forest(
        ts, train,
        forest_config_columns(ts, train, options.configs, cv.subset, subset_sizes.empty() ? 0 : subset_sizes[fold]),
        options);
    const Heuristic h = forest_heuristic(forest, ts, train);
    for (const std::size_t row : test) out.choices[row] = route(h, ts, row);
  }
  return out;
}

}  // namespace aotune::heuristics
