// A cost-sensitive CART tree over shape features. A split is chosen to minimise the total
// log-slowdown of the best single config on each side (not label entropy or accuracy), and each
// node ranks its configs by their summed log-slowdown over the node's shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heuristics/heuristic.h"
#include "heuristics/training_set.h"

namespace aotune::heuristics {

// How a split is scored.
enum class SplitCriterion : uint8_t {
  // Summed cost of the best config of each side over that side's shapes: what the training shapes
  // would pay. Always prefers more splits, so depth and leaf size must stop it.
  training,
  // Leave-one-out: each shape pays for the config that is best on the other shapes of its side
  // (ties to the parent node's best). Estimates what a new shape landing there pays, so a split
  // that only memorises one or two shapes does not pay off and growth stops by itself.
  leave_one_out,
};

struct TreeOptions {
  int max_depth = 8;
  std::size_t min_leaf = 1;  // fewest training shapes on either side of a split
  SplitCriterion criterion = SplitCriterion::leave_one_out;
  // Whether a node's list may lead with a config that is illegal for some of its shapes, which
  // then take the second (dispatch walks the list to the first legal config). Off: every listed
  // config is legal on all the node's shapes whenever one such config exists (the first fitter's
  // rule). Chosen per kernel by cross-validation (HyperParams).
  bool routed_heads = false;
};

// A fitted tree before flattening. Every node keeps its ranked configs, so one tree grown to the
// deepest depth gives every shallower tree by truncation: greedy splits above a depth do not depend
// on the depth limit (cross-validation over depths grows each tree once).
struct GrownTree {
  struct Node {
    int32_t feature = -1;  // -1: no split (a leaf at any depth)
    double threshold = 0;
    int32_t left = -1;
    int32_t right = -1;
    int depth = 0;
    std::vector<uint16_t> ranked;  // positions in `configs`, best first (see rank_configs)
  };
  std::vector<std::size_t> configs;  // the kept configs, config-space indices ascending
  std::vector<Node> nodes;           // nodes[0] is the root; children follow their parent
  std::vector<uint16_t> fallback;    // every kept config ranked over all training shapes
};

// Empty `configs` or `rows` gives a tree with no nodes (an untuned heuristic).
GrownTree grow_tree(const TrainingSet& ts, std::span<const std::size_t> rows,
                    std::vector<std::size_t> configs, const TreeOptions& options);

// The tree cut at `max_depth` as flat tables.
Heuristic flatten(const GrownTree& tree, int max_depth);

// Convenience: grow and flatten.
Heuristic fit_tree(const TrainingSet& ts, std::span<const std::size_t> rows,
                   std::vector<std::size_t> configs, const TreeOptions& options);

// Positions of `configs` ranked for `rows`: by Cost (passing everywhere first, then summed
// log-slowdown), ties by position. When `only_passing` and some config passed on every row, the
// others are left out, so a leaf never lists a config that failed one of its training shapes.
// With `routed_heads`, the list instead starts with the cheapest head (a config, then the one its
// illegal shapes take) and keeps every config that never failed a legal run on `rows`.
std::vector<uint16_t> rank_configs(const TrainingSet& ts, std::span<const std::size_t> rows,
                                   const std::vector<std::size_t>& configs, bool only_passing,
                                   bool routed_heads = false);

// A split point strictly above `lo` and at most `hi`: the geometric midpoint when both are
// positive (a midpoint in log2 space, as sizes span decades), else the arithmetic one.
double split_threshold(double lo, double hi);

}  // namespace aotune::heuristics
