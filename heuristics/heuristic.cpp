#include "heuristics/heuristic.h"

#include <algorithm>
#include <functional>

#include "heuristics/row_bound.h"

namespace aotune::heuristics {

HeuristicView Heuristic::view() const { return make_view(nodes, leaf_configs, fallback, configs); }

int Heuristic::depth() const {
  if (nodes.empty()) return -1;
  std::function<int(int32_t)> depth_of = [&](int32_t i) -> int {
    const TreeNode& n = nodes[static_cast<std::size_t>(i)];
    return is_leaf(n) ? 0 : 1 + std::max(depth_of(n.left), depth_of(n.right));
  };
  return depth_of(0);
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
