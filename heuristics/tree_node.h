// The flat decision tree shared by the fitter, the generated headers and the dispatch library:
// an array of nodes in pre-order plus per-leaf ranked config lists, walked with no allocation.
#pragma once

#include <cstdint>
#include <span>

namespace aotune::heuristics {

// An internal node sends a shape left when features[feature] < threshold, right otherwise (NaN
// goes right). A leaf has feature -1 and ranks leaf_configs[left .. left + right), best first;
// entries are positions in the heuristic's own config table.
struct TreeNode {
  int32_t feature = -1;
  int32_t left = 0;
  int32_t right = 0;
  double threshold = 0;
};

constexpr bool is_leaf(const TreeNode& node) { return node.feature < 0; }

// Index of the leaf the features fall into. Children always come after their parent (checked
// when a tree is loaded), so the walk ends. `nodes` must hold at least one node.
constexpr int32_t find_leaf(const TreeNode* nodes, const double* features) {
  int32_t i = 0;
  while (nodes[i].feature >= 0) {
    i = features[nodes[i].feature] < nodes[i].threshold ? nodes[i].left : nodes[i].right;
  }
  return i;
}

// A tree and its tables seen through plain pointers: what the fitter's model, a generated header
// and a JSON override all reduce to, so one routing function serves scoring and dispatch.
struct HeuristicView {
  const TreeNode* nodes = nullptr;
  int32_t num_nodes = 0;  // 0: no tree (untuned)
  const uint16_t* leaf_configs = nullptr;
  const uint16_t* fallback = nullptr;  // every table config, best overall first
  int32_t num_fallback = 0;
  const uint32_t* config_index = nullptr;  // table position -> index in the kernel's config space
  int32_t num_configs = 0;
  // A forest instead of one tree (num_trees > 0; heuristics/forest.h): `nodes` holds every tree,
  // tree t starting at roots[t] with child indices relative to that root, and a leaf's `left` is
  // the offset of its num_configs predicted costs in leaf_values (`leaf_configs` is unused). The
  // configs are ranked by their costs summed over the trees, cheapest first.
  const int32_t* roots = nullptr;
  int32_t num_trees = 0;
  const int32_t* leaf_values = nullptr;
};

// The most configs a forest ranks: its costs and order live on the stack of every dispatch call.
inline constexpr int32_t kMaxForestConfigs = 128;

// A forest's table positions ranked by summed cost, cheapest first (ties: the lower position):
// `order` receives h.num_configs entries. Requires h.num_trees > 0 and h.num_configs <=
// kMaxForestConfigs (checked when a heuristic is loaded).
constexpr void rank_by_forest(const HeuristicView& h, const double* features, uint16_t* order) {
  int64_t cost[kMaxForestConfigs]{};
  const int32_t k = h.num_configs;
  for (int32_t t = 0; t < h.num_trees; ++t) {
    const TreeNode* tree = h.nodes + h.roots[t];
    const int32_t* values = h.leaf_values + tree[find_leaf(tree, features)].left;
    for (int32_t i = 0; i < k; ++i) cost[i] += values[i];
  }
  // Insertion sort: stable, and K is small (16 on the sm90 tables, at most kMaxForestConfigs).
  for (int32_t i = 0; i < k; ++i) {
    int32_t j = i;
    for (; j > 0 && cost[order[j - 1]] > cost[i]; --j) order[j] = order[j - 1];
    order[j] = static_cast<uint16_t>(i);
  }
}

// The view of tables held elsewhere (the fitter's Heuristic, the dispatch store's entries); they
// must outlive it.
constexpr HeuristicView make_view(std::span<const TreeNode> nodes,
                                  std::span<const uint16_t> leaf_configs,
                                  std::span<const uint16_t> fallback,
                                  std::span<const uint32_t> config_index) {
  return {.nodes = nodes.data(),
          .num_nodes = static_cast<int32_t>(nodes.size()),
          .leaf_configs = leaf_configs.data(),
          .fallback = fallback.data(),
          .num_fallback = static_cast<int32_t>(fallback.size()),
          .config_index = config_index.data(),
          .num_configs = static_cast<int32_t>(config_index.size())};
}

// Where the routed config came from, best to worst.
enum class ChoiceSource : int32_t { leaf, fallback, default_config, any_legal, none };

struct Choice {
  uint32_t config = 0;  // index in the kernel's config space (meaningless when source is none)
  ChoiceSource source = ChoiceSource::none;
  int32_t leaf = -1;  // the leaf node reached, -1 without a tree
  int32_t rank = 0;   // position in the list it came from
};

// The config to run: the leaf's ranked list, then the global fallback list, then the safe default,
// then the first legal config of the whole space. `legal(space_index)` is the kernel's supports()
// at run time, or the database's legality when scoring, so both follow exactly the same path.
template <typename IsLegal>
constexpr Choice choose_config(const HeuristicView& h, const double* features,
                               uint32_t default_config, uint32_t space_size, IsLegal&& legal) {
  Choice c;
  if (h.num_nodes > 0 && h.num_trees > 0) {
    // A forest: its ranking stands in for a leaf's list (no single leaf: c.leaf stays -1).
    uint16_t order[kMaxForestConfigs]{};
    rank_by_forest(h, features, order);
    for (int32_t r = 0; r < h.num_configs; ++r) {
      const uint32_t config = h.config_index[order[r]];
      if (legal(config)) return {config, ChoiceSource::leaf, -1, r};
    }
    for (int32_t r = 0; r < h.num_fallback; ++r) {
      const uint32_t config = h.config_index[h.fallback[r]];
      if (legal(config)) return {config, ChoiceSource::fallback, -1, r};
    }
  } else if (h.num_nodes > 0) {
    c.leaf = find_leaf(h.nodes, features);
    const TreeNode& leaf = h.nodes[c.leaf];
    for (int32_t r = 0; r < leaf.right; ++r) {
      const uint32_t config = h.config_index[h.leaf_configs[leaf.left + r]];
      if (legal(config)) return {config, ChoiceSource::leaf, c.leaf, r};
    }
    for (int32_t r = 0; r < h.num_fallback; ++r) {
      const uint32_t config = h.config_index[h.fallback[r]];
      if (legal(config)) return {config, ChoiceSource::fallback, c.leaf, r};
    }
  }
  if (default_config < space_size && legal(default_config)) {
    return {default_config, ChoiceSource::default_config, c.leaf, 0};
  }
  for (uint32_t i = 0; i < space_size; ++i) {
    if (legal(i)) return {i, ChoiceSource::any_legal, c.leaf, static_cast<int32_t>(i)};
  }
  return c;
}

constexpr const char* to_string(ChoiceSource s) {
  switch (s) {
    case ChoiceSource::leaf:
      return "leaf";
    case ChoiceSource::fallback:
      return "fallback";
    case ChoiceSource::default_config:
      return "default_config";
    case ChoiceSource::any_legal:
      return "any_legal";
    case ChoiceSource::none:
      return "none";
  }
  return "?";
}

}  // namespace aotune::heuristics

namespace aotune::heuristics {

// The per-kernel table structs of one generated header, as a type list the dispatch library
// iterates (so adding a kernel needs no edit there).
template <typename... Tables>
struct TableList {};

}  // namespace aotune::heuristics
