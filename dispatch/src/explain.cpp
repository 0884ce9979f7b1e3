#include "aotune/explain.h"

#include <fmt/core.h>

#include <cmath>

#include "aotune/arch_fallback.h"
#include "dispatch/src/select_config.h"
#include "heuristics/row_bound.h"
#include "kernels/common/errors.h"

namespace aotune::dispatch {

namespace {

// One tree's walk from its first node `base` (child indices relative to it), recorded step by
// step: the leaf's node index.
int32_t walk_tree(const KernelHeuristic& h, int32_t tree, int32_t base, const std::vector<double>& x,
                  Explanation& e) {
  int32_t i = 0;
  while (!heuristics::is_leaf(h.nodes[static_cast<std::size_t>(base + i)])) {
    const heuristics::TreeNode& n = h.nodes[static_cast<std::size_t>(base + i)];
    const double value = x[static_cast<std::size_t>(n.feature)];
    const bool left = value < n.threshold;
    e.tree_path.push_back(
        {tree, base + i, h.features[static_cast<std::size_t>(n.feature)], value, n.threshold, left});
    i = left ? n.left : n.right;
  }
  return base + i;
}

}  // namespace

Explanation explain(const HeuristicStore& store, const TunableKernel& kernel,
                    const ProblemInfo& info, int arch) {
  Explanation e;
  e.kernel = std::string(kernel.name());
  e.heuristic_kernel = e.kernel;
  e.arch_requested = arch;
  e.features = info.features;
  const std::vector<int> tuned = store.tuned_archs(kernel.name());
  e.fallback_chain = fallback_chain(arch, tuned);
  const KernelHeuristic* h = store.for_device(kernel.name(), arch);
  std::vector<double> x;
  for (const auto& [name, value] : info.features) x.push_back(value);
  auto legal = [&](uint32_t c) { return c < info.legality.size() && info.legality[c].ok; };
  // As select_config(): past the row bound, configs holding a row in one block or warp too
  // slowly for it are passed over, and nnz_split where most rows are empty (heuristics/row_bound.h).
  const bool bound = heuristics::longest_row_past_bound(kernel.name(), info.features);
  const heuristics::RowBoundFeatures row = heuristics::row_bound_features(info.features);
  auto rule = [&](uint32_t c) {
    return bound ? heuristics::row_bound_rule(kernel.name(), kernel.config_id(c), row) : heuristics::PassedOver::no;
  };
  auto avoid = [&](uint32_t c) { return rule(c) != heuristics::PassedOver::no; };
  heuristics::HeuristicView view;
  if (h != nullptr && h->features.size() == x.size()) {
    e.arch_used = h->arch;
    e.heuristic_source = h->source;
    view = h->view();
    // The configs in the order the walk tries them: a tree's leaf list, or a forest's ranking by
    // summed predicted cost.
    std::vector<uint32_t> order;
    std::vector<double> predicted;
    if (h->roots.empty()) {
      e.leaf = walk_tree(*h, 0, 0, x, e);
      const heuristics::TreeNode& leaf = h->nodes[static_cast<std::size_t>(e.leaf)];
      for (int32_t r = 0; r < leaf.right; ++r)
        order.push_back(h->configs[h->leaf_configs[static_cast<std::size_t>(leaf.left + r)]]);
    } else {
      const std::size_t k = h->configs.size();
      std::vector<int64_t> cost(k, 0);
      for (std::size_t t = 0; t < h->roots.size(); ++t) {
        const int32_t leaf = walk_tree(*h, static_cast<int32_t>(t), h->roots[t], x, e);
        e.forest_leaves.push_back(leaf);
        const auto offset = static_cast<std::size_t>(h->nodes[static_cast<std::size_t>(leaf)].left);
        for (std::size_t i = 0; i < k; ++i) cost[i] += heuristics::leaf_cost(h->leaf_values[offset + i]);
      }
      std::vector<uint16_t> ranked(k);
      heuristics::rank_costs(cost.data(), static_cast<int32_t>(k), ranked.data());
      for (const uint16_t p : ranked) {
        order.push_back(h->configs[p]);
        // Costs are ln slowdowns in kLeafCostUnit millionths, summed over the trees.
        predicted.push_back(std::exp(static_cast<double>(cost[p] * heuristics::kLeafCostUnit) / 1e6 /
                                     static_cast<double>(h->roots.size())));
      }
    }
    for (std::size_t r = 0; r < order.size(); ++r) {
      const uint32_t c = order[r];
      std::string reason = legal(c) ? "" : info.legality[c].reason;
      if (legal(c)) {
        switch (rule(c)) {
          case heuristics::PassedOver::slow_row:
            reason = fmt::format(
                "passed over: the longest row alone, at {:.3g} GB/s through the threads this config gives a "
                "row, takes longer than the whole problem at the copy ceiling (heuristics/row_bound.h)",
                heuristics::row_rate_bytes_per_us(kernel.name(), kernel.config_id(c), row.m, row.elem_bytes) / 1e3);
            break;
          case heuristics::PassedOver::mostly_empty_rows:
            reason = fmt::format("passed over: most rows are empty (nnz={:.0f} < B/2, B={:.0f}), and nnz_split "
                                 "writes an empty row's zeros from the one block holding its start "
                                 "(heuristics/row_bound.h)",
                                 row.nnz, row.b);
            break;
          case heuristics::PassedOver::no: break;
        }
      }
      e.leaf_candidates.push_back({kernel.config_id(c), legal(c), reason, predicted.empty() ? 0.0 : predicted[r]});
    }
  }
  const heuristics::Choice c = heuristics::choose_config_avoiding(
      view, x.data(), default_config_index(kernel), static_cast<uint32_t>(kernel.num_configs()), legal,
      avoid);
  if (c.source == heuristics::ChoiceSource::none) throw_no_legal_config(kernel.name());
  e.config = c.config;
  e.config_id = kernel.config_id(c.config);
  e.config_json = kernel.config_json(c.config);
  e.source = c.source;
  e.rank = c.rank;
  return e;
}

nlohmann::ordered_json to_json(const Explanation& e, const nlohmann::json& shape) {
  using ordered_json = nlohmann::ordered_json;
  ordered_json j;
  j["kernel"] = e.kernel;
  j["heuristic_kernel"] = e.heuristic_kernel.empty() ? e.kernel : e.heuristic_kernel;
  j["shape"] = shape;
  j["arch_requested"] = arch_name(e.arch_requested);
  j["arch_used"] = e.arch_used ? ordered_json(arch_name(e.arch_used)) : ordered_json(nullptr);
  ordered_json chain = ordered_json::array();
  for (const int a : e.fallback_chain) chain.push_back(arch_name(a));
  j["fallback_chain"] = chain;
  j["heuristic_source"] = e.heuristic_source;
  ordered_json features = ordered_json::object();
  for (const auto& [name, value] : e.features) features[name] = value;
  j["features"] = features;
  ordered_json path = ordered_json::array();
  const bool forest = !e.forest_leaves.empty();
  std::size_t step = 0;
  auto add_steps = [&](int32_t tree) {
    for (; step < e.tree_path.size() && e.tree_path[step].tree == tree; ++step) {
      const TreeStep& s = e.tree_path[step];
      ordered_json j;
      if (forest) j["tree"] = s.tree;
      j["node"] = s.node;
      j["feature"] = s.feature;
      j["value"] = s.value;
      j["threshold"] = s.threshold;
      j["branch"] = s.went_left ? "left" : "right";
      path.push_back(std::move(j));
    }
  };
  if (forest) {
    for (std::size_t t = 0; t < e.forest_leaves.size(); ++t) {
      add_steps(static_cast<int32_t>(t));
      path.push_back({{"tree", t}, {"node", e.forest_leaves[t]}, {"leaf", true}});
    }
  } else {
    add_steps(0);
    if (e.leaf >= 0) path.push_back({{"node", e.leaf}, {"leaf", true}});
  }
  j["tree_path"] = path;
  ordered_json candidates = ordered_json::array();
  for (const Candidate& c : e.leaf_candidates) {
    ordered_json j = {{"id", c.id}, {"legal", c.legal}, {"reason", c.reason}};
    if (forest) j["predicted_slowdown"] = c.predicted_slowdown;
    candidates.push_back(std::move(j));
  }
  j["leaf_candidates"] = candidates;
  j["config"] = {{"index", e.config},
                 {"id", e.config_id},
                 {"source", heuristics::to_string(e.source)},
                 {"rank", e.rank},
                 {"fields", e.config_json}};
  return j;
}

}  // namespace aotune::dispatch
