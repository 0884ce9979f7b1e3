#include "dispatch/src/kernel_heuristic_check.h"

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "heuristics/kernel_features.h"
#include "kernels/common/errors.h"

namespace aotune::dispatch {

namespace {

struct KernelFacts {
  std::vector<std::string> features;
  std::map<std::string, uint32_t, std::less<>> config_index;
};

// Per kernel, computed once: describe() and the id list are not free.
const KernelFacts& facts_of(const TunableKernel& kernel) {
  static std::mutex mutex;
  static std::map<std::string, KernelFacts, std::less<>> cache;
  const std::lock_guard lock(mutex);
  auto it = cache.find(kernel.name());
  if (it == cache.end()) {
    KernelFacts f;
    f.features = heuristics::current_feature_names(kernel);
    for (std::size_t i = 0; i < kernel.num_configs(); ++i)
      f.config_index[kernel.config_id(i)] = static_cast<uint32_t>(i);
    it = cache.emplace(std::string(kernel.name()), std::move(f)).first;
  }
  return it->second;
}

void fail(const KernelHeuristic& h, const std::string& what) {
  throw InvalidArgument(
      fmt::format("{} heuristic for {} (sm{}): {}", h.source, h.kernel, h.arch, what));
}

}  // namespace

void resolve_and_check(KernelHeuristic& h, const TunableKernel& kernel) {
  const KernelFacts& facts = facts_of(kernel);
  if (h.features != facts.features) {
    fail(h, fmt::format("features [{}] differ from the kernel's [{}]", fmt::join(h.features, ", "),
                        fmt::join(facts.features, ", ")));
  }
  if (h.features.size() > kMaxFeatures)
    fail(h, fmt::format("{} features, at most {}", h.features.size(), kMaxFeatures));
  if (h.config_ids.empty() || h.config_ids.size() > 65535)
    fail(h, fmt::format("{} configs", h.config_ids.size()));
  h.configs.clear();
  for (const std::string& id : h.config_ids) {
    const auto it = facts.config_index.find(id);
    if (it == facts.config_index.end())
      fail(h, fmt::format("config '{}' is not in the kernel's config space", id));
    h.configs.push_back(it->second);
  }
  if (h.nodes.empty()) fail(h, "the tree has no nodes");
  const auto n = static_cast<int64_t>(h.nodes.size());
  // One tree: [0, n) with leaves indexing leaf_configs. A forest: tree t is [roots[t],
  // roots[t + 1]) with child indices relative to its root, and leaves indexing configs.size()
  // costs each in leaf_values.
  const bool forest = !h.roots.empty();
  if (!forest && !h.leaf_values.empty()) fail(h, "leaf_values without roots");
  if (forest && h.configs.size() > static_cast<std::size_t>(heuristics::kMaxForestConfigs))
    fail(h, fmt::format("a forest over {} configs, at most {}", h.configs.size(), heuristics::kMaxForestConfigs));
  std::vector<int64_t> starts;
  if (forest) {
    for (std::size_t t = 0; t < h.roots.size(); ++t) {
      const int64_t root = h.roots[t];
      const bool ok = t == 0 ? root == 0 : root > starts.back() && root < n;  // in order, inside nodes
      if (!ok)
        fail(h, fmt::format("tree {} starts at node {} (of {} nodes, after {})", t, root, n,
                            t == 0 ? int64_t{-1} : starts.back()));
      starts.push_back(root);
    }
  } else {
    starts.push_back(0);
  }
  const auto k = static_cast<int64_t>(h.configs.size());
  for (std::size_t t = 0; t < starts.size(); ++t) {
    const int64_t base = starts[t], end = t + 1 < starts.size() ? starts[t + 1] : n;
    const int64_t size = end - base;
    for (int64_t i = 0; i < size; ++i) {
      const heuristics::TreeNode& node = h.nodes[static_cast<std::size_t>(base + i)];
      if (heuristics::is_leaf(node)) {
        if (forest) {
          if (node.left < 0 || node.right != k || int64_t{node.left} + k > static_cast<int64_t>(h.leaf_values.size()))
            fail(h, fmt::format("forest leaf {} holds leaf_values[{}, +{}) outside the {} entries (or not one per "
                                "config)",
                                base + i, node.left, node.right, h.leaf_values.size()));
        } else if (node.left < 0 || node.right < 1 ||
                   int64_t{node.left} + node.right > static_cast<int64_t>(h.leaf_configs.size())) {
          fail(h, fmt::format("leaf {} lists leaf_configs[{}, +{}) outside the {} entries", i,
                              node.left, node.right, h.leaf_configs.size()));
        }
      } else {
        // Children after their parent, inside its tree: the walk always moves forward, so it ends.
        if (node.feature >= static_cast<int32_t>(h.features.size()) || node.left <= i ||
            node.left >= size || node.right <= i || node.right >= size) {
          fail(h, fmt::format("node {} has feature {} and children {} and {} (of {} nodes)", base + i,
                              node.feature, node.left, node.right, size));
        }
      }
    }
  }
  for (const uint16_t p : h.leaf_configs) {
    if (p >= h.configs.size())
      fail(h,
           fmt::format("leaf_configs entry {} is not one of the {} configs", p, h.configs.size()));
  }
  for (const uint16_t p : h.fallback) {
    if (p >= h.configs.size())
      fail(h, fmt::format("fallback entry {} is not one of the {} configs", p, h.configs.size()));
  }
}

}  // namespace aotune::dispatch
