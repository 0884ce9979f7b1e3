// Why a shape gets its config on an architecture: the fallback chain, the tree path, the leaf's
// candidates with their legality, and the config chosen. What `aot-runner explain` prints.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "aotune/heuristic_store.h"
#include "heuristics/tree_node.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune::dispatch {

struct TreeStep {
  int32_t tree = 0;  // which tree of a forest (0 for one tree)
  int32_t node = 0;  // index in the heuristic's node table
  std::string feature;
  double value = 0;
  double threshold = 0;
  bool went_left = false;
};

struct Candidate {
  std::string id;
  bool legal = false;
  std::string reason;  // why not, when illegal
  // A forest's candidates: the mean over its trees of the predicted slowdown against the shape's
  // best (exp of the mean predicted ln slowdown); 0 for a tree's leaf list.
  double predicted_slowdown = 0;
};

struct Explanation {
  std::string kernel;
  // The kernel whose heuristic chose: `kernel` itself, except where a call does another kernel's
  // work (a jagged_mean call without feature counts takes jagged_sum's, dispatch's rule).
  std::string heuristic_kernel;
  int arch_requested = 0;
  int arch_used = 0;  // 0: no heuristic applies, the default config runs
  std::vector<int> fallback_chain;
  std::string heuristic_source;  // "compiled" or the override file; empty without a heuristic
  Features features;
  std::vector<TreeStep> tree_path;  // every tree's path, in tree order, for a forest
  int32_t leaf = -1;                // one tree's leaf
  std::vector<int32_t> forest_leaves;  // a forest's leaf per tree (node indices)
  std::vector<Candidate> leaf_candidates;
  uint32_t config = 0;
  std::string config_id;
  nlohmann::json config_json;
  heuristics::ChoiceSource source = heuristics::ChoiceSource::none;
  int32_t rank = 0;
};

// Legality comes from info.legality (the kernel's supports() for the shape's alignment). Throws
// InvalidArgument when no config is legal.
Explanation explain(const HeuristicStore& store, const TunableKernel& kernel,
                    const ProblemInfo& info, int arch);

// {"kernel", "heuristic_kernel", "shape", "arch_requested", "arch_used" (null: none), "fallback_chain",
// "heuristic_source",
//  "features", "tree_path", "leaf_candidates", "config": {"index", "id", "source", "rank",
//  "fields"}}; a forest's steps and leaves carry "tree", its candidates "predicted_slowdown".
nlohmann::ordered_json to_json(const Explanation& e, const nlohmann::json& shape);

}  // namespace aotune::dispatch
