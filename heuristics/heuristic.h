// A fitted heuristic as flat tables: the kept configs, the tree and the ranked lists. This is
// exactly what codegen writes into heuristic_<arch>.h and what dispatch reads back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heuristics/training_set.h"
#include "heuristics/tree_node.h"

namespace aotune::heuristics {

struct Heuristic {
  std::vector<uint32_t> configs;       // table position -> config-space index (ascending)
  std::vector<TreeNode> nodes;         // pre-order; empty when untuned
  std::vector<uint16_t> leaf_configs;  // the leaves' ranked lists, concatenated
  std::vector<uint16_t> fallback;      // every table config, best overall first
  // A forest (HeuristicView's num_trees > 0) when roots is not empty: nodes holds every tree, each
  // tree's child indices relative to its root, leaves indexing num_configs costs in leaf_values.
  std::vector<int32_t> roots;
  std::vector<uint16_t> leaf_values;  // 16-bit costs (tree_node.h, leaf_cost())

  bool is_forest() const { return !roots.empty(); }

  HeuristicView view() const;
  int depth() const;  // 0 for a single leaf, -1 without a tree; a forest's deepest tree
  bool empty() const { return nodes.empty(); }
};

// The config the heuristic runs for training shape `row`, following the run-time path with the
// database's legality standing in for supports().
Choice route(const Heuristic& h, const TrainingSet& ts, std::size_t row);

// Keys of the training shapes routed to a config that is illegal for them or failed there (for
// `aot-runner verify`). Empty when every training shape lands on a config that may run it.
std::vector<std::string> unsound_training_routes(const Heuristic& h, const TrainingSet& ts);

}  // namespace aotune::heuristics
