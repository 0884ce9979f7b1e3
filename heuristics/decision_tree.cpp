#include "heuristics/decision_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "heuristics/cost.h"

namespace aotune::heuristics {

namespace {

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

// Per-config cost sums over a set of rows, for scoring a node's ranked list the way dispatch walks
// it: a shape takes the first listed config that is legal for it (supports()). legal[k] sums
// config k's cost over the rows where k is legal; instead[k][j] sums config j's cost over the rows
// where k is illegal. A node listing k first and j second pays legal[k] + instead[k][j]; a row for
// which both are illegal counts as a miss (the list's later configs are not modelled). So a leaf
// may lead with a config that is illegal for some of its shapes (the thread unit of
// causal_trailing_mean, legal only for windows of at most 32, say) and send those to its second
// config, instead of giving up the first config on every shape or spending a split on legality.
// Broken cells (legal, but failed) stay misses: dispatch would run them.
class RoutedTotals {
 public:
  struct Pick {
    std::size_t first = 0, second = 0;  // positions in the node's configs
    bool needs_second = false;          // some row is illegal for `first`
    Cost cost;
  };

  // `routed`: false scores plain lists (an illegal row is a miss for the config, as for a broken
  // one), so head(k) is config k's summed cost and no head needs a second config.
  RoutedTotals(std::size_t num_configs, bool routed)
      : k_(num_configs), routed_(routed), legal_(num_configs), instead_(num_configs * num_configs),
        illegal_rows_(num_configs, 0) {}

  // Adds (sign +1) or removes (-1) row r.
  void add(const TrainingSet& ts, std::size_t r, const std::vector<std::size_t>& configs, int sign = 1) {
    for (std::size_t k = 0; k < k_; ++k) {
      if (!routed_ || ts.is_legal(r, configs[k])) {
        legal_[k] += signed_cost(ts.cost_at(r, configs[k]), sign);
      } else {
        illegal_rows_[k] += sign;
        for (std::size_t j = 0; j < k_; ++j) instead_[k * k_ + j] += signed_cost(ts.cost_at(r, configs[j]), sign);
      }
    }
  }

  RoutedTotals minus(const RoutedTotals& o) const {
    RoutedTotals d(k_, routed_);
    for (std::size_t k = 0; k < k_; ++k) {
      d.legal_[k] = sub(legal_[k], o.legal_[k]);
      d.illegal_rows_[k] = illegal_rows_[k] - o.illegal_rows_[k];
    }
    for (std::size_t i = 0; i < instead_.size(); ++i) d.instead_[i] = sub(instead_[i], o.instead_[i]);
    return d;
  }

  // The best list head for config k: k, then the config cheapest on k's illegal rows.
  Pick head(std::size_t k) const {
    Pick p{k, 0, illegal_rows_[k] > 0, legal_[k]};
    if (!p.needs_second) return p;
    std::size_t best_j = 0;
    for (std::size_t j = 1; j < k_; ++j)
      if (instead_[k * k_ + j] < instead_[k * k_ + best_j]) best_j = j;
    p.second = best_j;
    p.cost += instead_[k * k_ + best_j];
    return p;
  }

  bool routed() const { return routed_; }

  // The cheapest head over all configs, ties to the lower position.
  Pick best() const {
    Pick b = head(0);
    for (std::size_t k = 1; k < k_; ++k) {
      const Pick p = head(k);
      if (p.cost < b.cost) b = p;
    }
    return b;
  }

  // What row r pays when the other rows of this set (r included in it) choose the head: the
  // leave-one-out step of SplitCriterion::leave_one_out. Ties go to the lower cost of the same
  // head on `prior` (the parent node's rows), then to the lower position.
  Cost loo_row(const TrainingSet& ts, std::size_t r, const std::vector<std::size_t>& configs,
               const RoutedTotals& prior) const {
    // head(k) of this set without row r, computed in place (no copy per row).
    auto head_without_r = [&](std::size_t k) {
      const bool r_legal = !routed_ || ts.is_legal(r, configs[k]);
      Pick p{k, 0, illegal_rows_[k] - (r_legal ? 0 : 1) > 0, legal_[k]};
      if (r_legal) p.cost = sub(p.cost, Cost::of(ts.cost_at(r, configs[k])));
      if (!p.needs_second) return p;
      auto instead = [&](std::size_t j) {
        const Cost c = instead_[k * k_ + j];
        return r_legal ? c : sub(c, Cost::of(ts.cost_at(r, configs[j])));
      };
      Cost best = instead(0);
      for (std::size_t j = 1; j < k_; ++j) {
        const Cost c = instead(j);
        if (c < best) {
          best = c;
          p.second = j;
        }
      }
      p.cost += best;
      return p;
    };
    Pick b = head_without_r(0);
    Cost b_prior = prior.head_cost(b);
    for (std::size_t k = 1; k < k_; ++k) {
      const Pick p = head_without_r(k);
      if (p.cost > b.cost) continue;
      const Cost pp = prior.head_cost(p);
      if (p.cost < b.cost || pp < b_prior) {
        b = p;
        b_prior = pp;
      }
    }
    const bool first_runs = !routed_ || ts.is_legal(r, configs[b.first]) || !b.needs_second;
    const std::size_t k = first_runs ? b.first : b.second;
    return Cost::of(ts.cost_at(r, configs[k]));
  }

 private:
  static Cost signed_cost(int64_t log_cost, int sign) {
    const Cost c = Cost::of(log_cost);
    return sign > 0 ? c : Cost{-c.misses, -c.log_sum};
  }
  static Cost sub(Cost a, const Cost& b) { return {a.misses - b.misses, a.log_sum - b.log_sum}; }
  // The cost of head p's two configs on these rows.
  Cost head_cost(const Pick& p) const {
    Cost c = legal_[p.first];
    if (illegal_rows_[p.first] > 0) c += instead_[p.first * k_ + p.second];
    return c;
  }

  std::size_t k_;
  bool routed_;
  std::vector<Cost> legal_;
  std::vector<Cost> instead_;
  std::vector<int64_t> illegal_rows_;
};

RoutedTotals routed_totals(const TrainingSet& ts, std::span<const std::size_t> rows,
                           const std::vector<std::size_t>& configs, bool routed) {
  RoutedTotals t(configs.size(), routed);
  for (const std::size_t r : rows) t.add(ts, r, configs);
  return t;
}

struct Split {
  int32_t feature = -1;
  double threshold = 0;
  Cost cost;
};

// Leave-one-out cost of `order[begin, end)`, whose totals are `side`: each row pays for the head
// that is best on the side's other rows (RoutedTotals::loo_row), ties going to the parent's.
Cost loo_cost(const TrainingSet& ts, const std::vector<std::size_t>& order, std::size_t begin,
              std::size_t end, const std::vector<std::size_t>& configs, const RoutedTotals& side,
              const RoutedTotals& prior) {
  Cost total;
  for (std::size_t i = begin; i < end; ++i) total += side.loo_row(ts, order[i], configs, prior);
  return total;
}

// The split with the lowest cost (see SplitCriterion), if it beats `no_split`.
Split best_split(const TrainingSet& ts, std::span<const std::size_t> rows,
                 const std::vector<std::size_t>& configs, const RoutedTotals& totals,
                 std::size_t min_leaf, Cost no_split, SplitCriterion criterion) {
  Split best{-1, 0, no_split};
  std::vector<std::size_t> order(rows.begin(), rows.end());
  for (std::size_t f = 0; f < ts.num_features(); ++f) {
    auto value = [&](std::size_t r) { return sort_value(ts.features_of(r)[f]); };
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return value(a) != value(b) ? value(a) < value(b) : a < b;
    });
    RoutedTotals left(configs.size(), totals.routed());
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      left.add(ts, order[i], configs);
      const std::size_t n_left = i + 1, n_right = order.size() - n_left;
      const double lo = value(order[i]), hi = value(order[i + 1]);
      if (lo == hi || n_left < min_leaf || n_right < min_leaf) continue;
      const RoutedTotals right = totals.minus(left);
      Cost c = left.best().cost + right.best().cost;
      if (criterion == SplitCriterion::leave_one_out) {
        // The training cost (each side's cheapest head) never exceeds the leave-one-out cost:
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

  // `parent`: the parent's totals (null at the root, which is its own).
  int32_t grow(std::vector<std::size_t> rows, int depth, const RoutedTotals* parent) {
    const auto index = static_cast<int32_t>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    tree_.nodes.back().depth = depth;
    tree_.nodes.back().ranked = rank_configs(ts_, rows, tree_.configs, true, options_.routed_heads);
    const RoutedTotals totals = routed_totals(ts_, rows, tree_.configs, options_.routed_heads);
    const Cost here = totals.best().cost;
    if (depth >= options_.max_depth ||
        rows.size() < 2 * std::max<std::size_t>(options_.min_leaf, 1) || here == Cost{}) {
      return index;
    }
    Cost no_split = here;
    if (options_.criterion == SplitCriterion::leave_one_out) {
      const std::vector<std::size_t> order(rows.begin(), rows.end());
      no_split = loo_cost(ts_, order, 0, order.size(), tree_.configs, totals,
                          parent == nullptr ? totals : *parent);
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
    const int32_t l = grow(std::move(left), depth + 1, &totals);
    const int32_t r = grow(std::move(right), depth + 1, &totals);
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
                                   const std::vector<std::size_t>& configs, bool only_passing,
                                   bool routed_heads) {
  const std::vector<Cost> costs = config_costs(ts, rows, configs);
  std::vector<uint16_t> order(configs.size());
  std::iota(order.begin(), order.end(), uint16_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](uint16_t a, uint16_t b) { return costs[a] < costs[b]; });
  if (!only_passing || order.empty()) return order;
  if (!routed_heads) {
    if (costs[order.front()].misses == 0) {
      std::erase_if(order, [&](uint16_t k) { return costs[k].misses != 0; });
    }
    return order;
  }
  // A node's list: the cheapest head (RoutedTotals), then the other configs that never failed a
  // legal run on its rows (illegal is fine: dispatch skips those), by summed cost.
  const RoutedTotals::Pick head = routed_totals(ts, rows, configs, true).best();
  if (head.cost.misses > 0 && costs[order.front()] <= head.cost) return order;  // nothing routes cleanly
  auto never_broken = [&](uint16_t k) {
    return std::all_of(rows.begin(), rows.end(),
                       [&](std::size_t r) { return !ts.is_legal(r, configs[k]) || ts.ok(r, configs[k]); });
  };
  std::vector<uint16_t> ranked{static_cast<uint16_t>(head.first)};
  if (head.needs_second) ranked.push_back(static_cast<uint16_t>(head.second));
  for (const uint16_t k : order) {
    if (std::find(ranked.begin(), ranked.end(), k) == ranked.end() && never_broken(k)) ranked.push_back(k);
  }
  return ranked;
}

GrownTree grow_tree(const TrainingSet& ts, std::span<const std::size_t> rows,
                    std::vector<std::size_t> configs, const TreeOptions& options) {
  GrownTree tree;
  std::sort(configs.begin(), configs.end());
  tree.configs = std::move(configs);
  if (tree.configs.empty() || rows.empty()) return tree;
  tree.fallback = rank_configs(ts, rows, tree.configs, false);
  Grower(ts, tree, options).grow(std::vector<std::size_t>(rows.begin(), rows.end()), 0, nullptr);
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
