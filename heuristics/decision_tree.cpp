#include "heuristics/decision_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "heuristics/cost.h"

namespace aotune::heuristics {

namespace {

Cost minus(Cost a, const Cost& b) { return {a.misses - b.misses, a.log_sum - b.log_sum}; }

// Sort key of a feature value: NaN sorts last, where run-time evaluation sends it (right).
double sort_value(double v) { return std::isnan(v) ? std::numeric_limits<double>::infinity() : v; }

std::vector<Cost> config_costs(const TrainingSet& ts, std::span<const std::size_t> rows,
                               const std::vector<std::size_t>& configs) {
  std::vector<Cost> costs(configs.size());
  for (const std::size_t r : rows) {
    for (std::size_t k = 0; k < configs.size(); ++k)
      costs[k] += Cost::of(ts.cost_at(r, configs[k]));
  }
  return costs;
}

Cost cheapest(const std::vector<Cost>& costs) {
  return *std::min_element(costs.begin(), costs.end());
}

struct Split {
  int32_t feature = -1;
  double threshold = 0;
  Cost cost;
};

// Leave-one-out cost of `order[begin, end)`, whose per-config totals are `side`: each row pays
// for the config best on the side's other rows, ties going to the lower `prior` (the parent
// node's totals), then to the lower position.
Cost loo_cost(const TrainingSet& ts, const std::vector<std::size_t>& order, std::size_t begin,
              std::size_t end, const std::vector<std::size_t>& configs,
              const std::vector<Cost>& side, const std::vector<Cost>& prior) {
  Cost total;
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t r = order[i];
    std::size_t best = 0;
    Cost best_rest = minus(side[0], Cost::of(ts.cost_at(r, configs[0])));
    for (std::size_t k = 1; k < configs.size(); ++k) {
      const Cost rest = minus(side[k], Cost::of(ts.cost_at(r, configs[k])));
      if (rest < best_rest || (rest == best_rest && prior[k] < prior[best])) {
        best = k;
        best_rest = rest;
      }
    }
    total += Cost::of(ts.cost_at(r, configs[best]));
  }
  return total;
}

// The split with the lowest cost (see SplitCriterion), if it beats `no_split`.
Split best_split(const TrainingSet& ts, std::span<const std::size_t> rows,
                 const std::vector<std::size_t>& configs, const std::vector<Cost>& totals,
                 std::size_t min_leaf, Cost no_split, SplitCriterion criterion) {
  Split best{-1, 0, no_split};
  std::vector<std::size_t> order(rows.begin(), rows.end());
  std::vector<Cost> left(configs.size()), right(configs.size());
  for (std::size_t f = 0; f < ts.num_features(); ++f) {
    auto value = [&](std::size_t r) { return sort_value(ts.features_of(r)[f]); };
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return value(a) != value(b) ? value(a) < value(b) : a < b;
    });
    std::fill(left.begin(), left.end(), Cost{});
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      for (std::size_t k = 0; k < configs.size(); ++k)
        left[k] += Cost::of(ts.cost_at(order[i], configs[k]));
      const std::size_t n_left = i + 1, n_right = order.size() - n_left;
      const double lo = value(order[i]), hi = value(order[i + 1]);
      if (lo == hi || n_left < min_leaf || n_right < min_leaf) continue;
      for (std::size_t k = 0; k < configs.size(); ++k) right[k] = minus(totals[k], left[k]);
      Cost c = cheapest(left) + cheapest(right);
      if (criterion == SplitCriterion::leave_one_out) {
        // The training cost (each side's cheapest config) never exceeds the leave-one-out cost:
        // a split that cannot win is not scored.
        if (!(c < best.cost)) continue;
        c = loo_cost(ts, order, 0, n_left, configs, left, totals) +
            loo_cost(ts, order, n_left, order.size(), configs, right, totals);
      }
      if (c < best.cost) best = {static_cast<int32_t>(f), split_threshold(lo, hi), c};
    }
  }
  return best;
}

class Grower {
 public:
  Grower(const TrainingSet& ts, GrownTree& tree, const TreeOptions& options)
      : ts_(ts), tree_(tree), options_(options) {}

  // `parent_totals`: the parent's per-config totals (empty at the root, which is its own).
  int32_t grow(std::vector<std::size_t> rows, int depth, const std::vector<Cost>& parent_totals) {
    const auto index = static_cast<int32_t>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    tree_.nodes.back().depth = depth;
    tree_.nodes.back().ranked = rank_configs(ts_, rows, tree_.configs, true);
    const std::vector<Cost> totals = config_costs(ts_, rows, tree_.configs);
    const Cost here = cheapest(totals);
    if (depth >= options_.max_depth ||
        rows.size() < 2 * std::max<std::size_t>(options_.min_leaf, 1) || here == Cost{}) {
      return index;
    }
    Cost no_split = here;
    if (options_.criterion == SplitCriterion::leave_one_out) {
      const std::vector<std::size_t> order(rows.begin(), rows.end());
      no_split = loo_cost(ts_, order, 0, order.size(), tree_.configs, totals,
                          parent_totals.empty() ? totals : parent_totals);
    }
    const Split split = best_split(ts_, rows, tree_.configs, totals,
                                   std::max<std::size_t>(options_.min_leaf, 1), no_split,
                                   options_.criterion);
    if (split.feature < 0) return index;
    std::vector<std::size_t> left, right;
    for (const std::size_t r : rows) {
      (ts_.features_of(r)[split.feature] < split.threshold ? left : right).push_back(r);
    }
    rows.clear();
    rows.shrink_to_fit();
    const int32_t l = grow(std::move(left), depth + 1, totals);
    const int32_t r = grow(std::move(right), depth + 1, totals);
    GrownTree::Node& node = tree_.nodes[static_cast<std::size_t>(index)];
    node.feature = split.feature;
    node.threshold = split.threshold;
    node.left = l;
    node.right = r;
    return index;
  }

 private:
  const TrainingSet& ts_;
  GrownTree& tree_;
  const TreeOptions& options_;
};

void flatten_into(const GrownTree& tree, int32_t i, int max_depth, Heuristic& out) {
  const GrownTree::Node& n = tree.nodes[static_cast<std::size_t>(i)];
  const std::size_t at = out.nodes.size();
  out.nodes.emplace_back();
  if (n.feature < 0 || n.depth >= max_depth) {
    out.nodes[at] = {-1, static_cast<int32_t>(out.leaf_configs.size()),
                     static_cast<int32_t>(n.ranked.size()), 0.0};
    out.leaf_configs.insert(out.leaf_configs.end(), n.ranked.begin(), n.ranked.end());
    return;
  }
  const auto left = static_cast<int32_t>(out.nodes.size());
  flatten_into(tree, n.left, max_depth, out);
  const auto right = static_cast<int32_t>(out.nodes.size());
  flatten_into(tree, n.right, max_depth, out);
  out.nodes[at] = {n.feature, left, right, n.threshold};
}

}  // namespace

double split_threshold(double lo, double hi) {
  if (lo > 0 && hi > 0 && std::isfinite(hi)) {
    const double t = std::sqrt(lo) * std::sqrt(hi);
    if (lo < t && t <= hi) return t;
  }
  if (std::isfinite(lo) && std::isfinite(hi)) {
    const double t = lo + (hi - lo) / 2;
    if (lo < t && t <= hi) return t;
  }
  return hi;
}

std::vector<uint16_t> rank_configs(const TrainingSet& ts, std::span<const std::size_t> rows,
                                   const std::vector<std::size_t>& configs, bool only_passing) {
  const std::vector<Cost> costs = config_costs(ts, rows, configs);
  std::vector<uint16_t> order(configs.size());
  std::iota(order.begin(), order.end(), uint16_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](uint16_t a, uint16_t b) { return costs[a] < costs[b]; });
  if (only_passing && !order.empty() && costs[order.front()].misses == 0) {
    std::erase_if(order, [&](uint16_t k) { return costs[k].misses != 0; });
  }
  return order;
}

GrownTree grow_tree(const TrainingSet& ts, std::span<const std::size_t> rows,
                    std::vector<std::size_t> configs, const TreeOptions& options) {
  GrownTree tree;
  std::sort(configs.begin(), configs.end());
  tree.configs = std::move(configs);
  if (tree.configs.empty() || rows.empty()) return tree;
  tree.fallback = rank_configs(ts, rows, tree.configs, false);
  Grower(ts, tree, options).grow(std::vector<std::size_t>(rows.begin(), rows.end()), 0, {});
  return tree;
}

Heuristic flatten(const GrownTree& tree, int max_depth) {
  Heuristic h;
  for (const std::size_t c : tree.configs) h.configs.push_back(static_cast<uint32_t>(c));
  h.fallback = tree.fallback;
  if (!tree.nodes.empty()) flatten_into(tree, 0, max_depth, h);
  return h;
}

Heuristic fit_tree(const TrainingSet& ts, std::span<const std::size_t> rows,
                   std::vector<std::size_t> configs, const TreeOptions& options) {
  return flatten(grow_tree(ts, rows, std::move(configs), options), options.max_depth);
}

}  // namespace aotune::heuristics
