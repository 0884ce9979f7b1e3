#include "aotune/explain.h"

#include <fmt/core.h>

#include "aotune/arch_fallback.h"
#include "dispatch/src/select_config.h"
#include "heuristics/row_bound.h"
#include "kernels/common/errors.h"

namespace aotune::dispatch {

namespace {

void walk_tree(const KernelHeuristic& h, const std::vector<double>& x, Explanation& e) {
  int32_t i = 0;
  while (!heuristics::is_leaf(h.nodes[static_cast<std::size_t>(i)])) {
    const heuristics::TreeNode& n = h.nodes[static_cast<std::size_t>(i)];
    const double value = x[static_cast<std::size_t>(n.feature)];
    const bool left = value < n.threshold;
    e.tree_path.push_back(
        {i, h.features[static_cast<std::size_t>(n.feature)], value, n.threshold, left});
    i = left ? n.left : n.right;
  }
  e.leaf = i;
}

}  // namespace

Explanation explain(const HeuristicStore& store, const TunableKernel& kernel,
                    const ProblemInfo& info, int arch) {
  Explanation e;
  e.kernel = std::string(kernel.name());
  e.arch_requested = arch;
  e.features = info.features;
  const std::vector<int> tuned = store.tuned_archs(kernel.name());
  e.fallback_chain = fallback_chain(arch, tuned);
  const KernelHeuristic* h = store.for_device(kernel.name(), arch);
  std::vector<double> x;
  for (const auto& [name, value] : info.features) x.push_back(value);
  auto legal = [&](uint32_t c) { return c < info.legality.size() && info.legality[c].ok; };
  // As select_config(): past the row bound, configs holding a row in one block or warp too
  // slowly for it are passed over (heuristics/row_bound.h).
  const bool bound = heuristics::longest_row_past_bound(kernel.name(), info.features);
  const heuristics::RowBoundFeatures row = heuristics::row_bound_features(info.features);
  auto avoid = [&](uint32_t c) {
    return bound && heuristics::config_past_row_bound(kernel.name(), kernel.config_id(c), row);
  };
  heuristics::HeuristicView view;
  if (h != nullptr && h->features.size() == x.size()) {
    e.arch_used = h->arch;
    e.heuristic_source = h->source;
    view = h->view();
    walk_tree(*h, x, e);
    const heuristics::TreeNode& leaf = h->nodes[static_cast<std::size_t>(e.leaf)];
    for (int32_t r = 0; r < leaf.right; ++r) {
      const uint32_t c = h->configs[h->leaf_configs[static_cast<std::size_t>(leaf.left + r)]];
      std::string reason = legal(c) ? "" : info.legality[c].reason;
      if (legal(c) && avoid(c)) {
        const double rate = heuristics::row_rate_bytes_per_us(kernel.name(), kernel.config_id(c), row.m, row.elem_bytes);
        reason = fmt::format(
            "passed over: the longest row alone, at {:.3g} GB/s through the threads this config gives a "
            "row, takes longer than the whole problem at the copy ceiling (heuristics/row_bound.h)",
            rate / 1e3);
      }
      e.leaf_candidates.push_back({kernel.config_id(c), legal(c), reason});
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
  for (const TreeStep& s : e.tree_path) {
    path.push_back({{"node", s.node},
                    {"feature", s.feature},
                    {"value", s.value},
                    {"threshold", s.threshold},
                    {"branch", s.went_left ? "left" : "right"}});
  }
  if (e.leaf >= 0) path.push_back({{"node", e.leaf}, {"leaf", true}});
  j["tree_path"] = path;
  ordered_json candidates = ordered_json::array();
  for (const Candidate& c : e.leaf_candidates) {
    candidates.push_back({{"id", c.id}, {"legal", c.legal}, {"reason", c.reason}});
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
