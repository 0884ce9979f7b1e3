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
  // configs are ranked by their costs summed over the trees (leaf_cost()), cheapest first.
  const int32_t* roots = nullptr;
  int32_t num_trees = 0;
  const uint16_t* leaf_values = nullptr;
};

// A forest leaf's predicted cost of a config is 16 bits: its mean clipped ln slowdown in units of
// kLeafCostUnit millionths (1/20000), or kLeafCostFailed where the config failed (broken, not
// illegal) on a training shape of the leaf. 16 bits, not 32, halve the largest tables a header
// carries (a jagged forest's costs are 62 per leaf, about 32000 leaves for 32 trees); a step of
// 5e-5 in ln slowdown is far below the timing noise (about 1e-2). The largest cost, 65534 units,
// is ln 3.28: the forest's clip is at most kMaxLeafCostLn.
inline constexpr int64_t kLeafCostUnit = 50;
inline constexpr uint16_t kLeafCostFailed = 0xFFFF;
inline constexpr double kMaxLeafCostLn = 3.0;
// What a failed mark adds to a config's summed cost: more than every other tree's costs together,
// so a shape is never sent to a config that failed on a training shape like it while another
// config ranks without that mark.
inline constexpr int64_t kFailedLeafPenalty = int64_t{1} << 40;

// The "format" of the JSON heuristics `emit --json` writes (codegen/json_writer.cpp) and the
// dispatch library reads from AOTUNE_HEURISTIC_DIR (dispatch/src/heuristic_file.cpp): one string
// for both, so a change of the tables (2: these 16-bit leaf costs) bumps writer and reader alike.
inline constexpr const char* kHeuristicFileFormat = "aotune-heuristic/2";

// The cost a leaf value adds to its config's sum, in kLeafCostUnit millionths of ln slowdown.
constexpr int64_t leaf_cost(uint16_t value) {
  return value == kLeafCostFailed ? kFailedLeafPenalty : int64_t{value};
}

// The most configs a forest ranks: its costs and order live on the stack of every dispatch call.
inline constexpr int32_t kMaxForestConfigs = 128;

// Each table position's cost summed over a forest's trees: cost[i] for h.config_index[i], lower
// is better (all 0 without trees). `cost` holds h.num_configs entries, at most kMaxForestConfigs
// where it lives on the stack (checked when a heuristic is loaded).
//
// The trees are walked in lockstep, kForestLanes at a time, each step chosen without a branch
// (a leaf stays where it is): the lanes' node loads overlap instead of each waiting on the last,
// and a shape's comparisons, which no branch predictor can learn across calls with varied shapes,
// cost no mispredictions. The walk per tree reaches the same leaf as find_leaf(). On the committed
// jagged_sum forest it took 0.55-0.75x the time of 8 find_leaf() walks for shapes varying call to
// call, and the same for one shape repeated (PERF.md, Selection speed, session 23). 16 lanes
// since the forests grew to 32 trees (session 60): `choose_config` on the jagged_sum forest took
// 2.3-2.4 us against 3.0-3.2 with 8, the forest's costs for a repeated shape 1.9-2.0 against 2.5.
inline constexpr int32_t kForestLanes = 16;

constexpr void forest_costs(const HeuristicView& h, const double* features, int64_t* cost) {
  const int32_t k = h.num_configs;
  for (int32_t i = 0; i < k; ++i) cost[i] = 0;
  for (int32_t first = 0; first < h.num_trees; first += kForestLanes) {
    const int32_t lanes = h.num_trees - first < kForestLanes ? h.num_trees - first : kForestLanes;
    // Every lane walks (a lane past the last tree repeats the first, unused) so the loop below has
    // a fixed trip count and unrolls with no conditions in it.
    const TreeNode* tree[kForestLanes]{};
    int32_t at[kForestLanes]{};
    for (int32_t l = 0; l < kForestLanes; ++l) tree[l] = h.nodes + h.roots[first + (l < lanes ? l : 0)];
    for (int32_t moved = 1; moved != 0;) {
      moved = 0;
      for (int32_t l = 0; l < kForestLanes; ++l) {
        // Integer masks rather than ?: so the compiler emits no branch (with ?: GCC 12 branches on
        // the comparison). A leaf (feature -1) reads features[0] and keeps its index.
        const TreeNode& node = tree[l][at[l]];
        const int32_t inner = node.feature >= 0;
        const int32_t right = !(features[node.feature & ~(node.feature >> 31)] < node.threshold);
        const int32_t next = node.left + ((node.right - node.left) & -right);
        at[l] += (next - at[l]) & -inner;
        moved |= inner;
      }
    }
    for (int32_t l = 0; l < lanes; ++l) {
      const uint16_t* values = h.leaf_values + tree[l][at[l]].left;
      for (int32_t i = 0; i < k; ++i) cost[i] += leaf_cost(values[i]);
    }
  }
}

// Positions 0 .. k-1 ordered by cost, cheapest first, ties to the lower position.
constexpr void rank_costs(const int64_t* cost, int32_t k, uint16_t* order) {
  for (int32_t i = 0; i < k; ++i) {  // insertion sort: stable, and k is small
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
// `known_costs`, for a forest only: forest_costs() of these features, computed earlier (the
// dispatch library's per-thread memo); null computes them here.
template <typename IsLegal>
constexpr Choice choose_config(const HeuristicView& h, const double* features,
                               uint32_t default_config, uint32_t space_size, IsLegal&& legal,
                               const int64_t* known_costs = nullptr) {
  Choice c;
  if (h.num_nodes > 0 && h.num_trees > 0) {
    // A forest: its ranking stands in for a leaf's list (no single leaf: c.leaf stays -1). The
    // ranking is taken lazily, the cheapest untried position each step (ties to the lower, as
    // rank_costs orders them): the first or second is nearly always legal, so this skips a sort.
    int64_t cost[kMaxForestConfigs]{};
    if (known_costs != nullptr) {
      for (int32_t i = 0; i < h.num_configs; ++i) cost[i] = known_costs[i];
    } else {
      forest_costs(h, features, cost);
    }
    constexpr int64_t kTried = INT64_MAX;  // far above any sum of int32 leaf costs
    for (int32_t r = 0; r < h.num_configs; ++r) {
      int32_t best = 0;
      for (int32_t i = 1; i < h.num_configs; ++i) best = cost[i] < cost[best] ? i : best;
      cost[best] = kTried;
      const uint32_t config = h.config_index[best];
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
