#include "heuristics/heuristic.h"

#include <algorithm>
#include <functional>

#include "heuristics/row_bound.h"

namespace aotune::heuristics {

HeuristicView Heuristic::view() const {
  HeuristicView v = make_view(nodes, leaf_configs, fallback, configs);
  if (is_forest()) {
    v.roots = roots.data();
    v.num_trees = static_cast<int32_t>(roots.size());
    v.leaf_values = leaf_values.data();
  }
  return v;
}

int Heuristic::depth() const {
  if (nodes.empty()) return -1;
  std::function<int(const TreeNode*, int32_t)> depth_of = [&](const TreeNode* tree, int32_t i) -> int {
    const TreeNode& n = tree[i];
    return is_leaf(n) ? 0 : 1 + std::max(depth_of(tree, n.left), depth_of(tree, n.right));
  };
  if (!is_forest()) return depth_of(nodes.data(), 0);
  int deepest = 0;
  for (const int32_t root : roots) deepest = std::max(deepest, depth_of(&nodes[static_cast<std::size_t>(root)], 0));
  return deepest;
}

Choice route(const Heuristic& h, const TrainingSet& ts, std::size_t row) {
  // As the dispatch library will: configs holding a row in one block or warp are passed over
  // where that row alone outlasts the whole problem (row_bound.h).
  const double* x = ts.features_of(row);
  const bool bound = longest_row_past_bound(ts.kernel, ts.feature_names, x);
  const RowBoundFeatures bound_features = bound ? row_bound_features(ts.feature_names, x) : RowBoundFeatures{};
  return choose_config_avoiding(
      h.view(), x, ts.default_config, static_cast<uint32_t>(ts.num_configs()),
      [&](uint32_t c) { return ts.is_legal(row, c); },
      [&](uint32_t c) { return bound && config_past_row_bound(ts.kernel, ts.config_ids[c], bound_features); });
}

std::vector<std::string> unsound_training_routes(const Heuristic& h, const TrainingSet& ts) {
  std::vector<std::string> keys;
  for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
    const Choice c = route(h, ts, row);
    if (c.source == ChoiceSource::none || !ts.is_legal(row, c.config) || !ts.ok(row, c.config)) {
      keys.push_back(ts.shape_keys[row]);
    }
  }
  return keys;
}

}  // namespace aotune::heuristics
