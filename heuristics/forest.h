// An average of extremely randomised regression trees (Geurts et al. 2006, scikit-learn's
// ExtraTreesRegressor) predicting every config's log-slowdown at once, scored by the same nested
// cross-validation as the single tree. `fit` and `emit` ship it where it holds out at least
// kForestMargin better (fit.h); docs/ARCHITECTURE.md ("One tree or a forest") says what it buys
// and what it costs at run time (tree_node.h, forest_costs).
//
// Deterministic and portable: targets and leaf values are integers (millionths of ln slowdown,
// as TrainingSet::log_cost), split scores are exact integer arithmetic, and thresholds come from
// std::mt19937_64's raw output (whose sequence the standard fixes) turned into doubles here, not
// by a std:: distribution (whose output is implementation-defined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heuristics/cross_validation.h"
#include "heuristics/heuristic.h"
#include "heuristics/training_set.h"
#include "heuristics/tree_node.h"

namespace aotune::heuristics {

// Which configs a forest predicts and may pick.
enum class ForestConfigs : uint8_t {
  // The config subset fitted on the training rows (select_config_subset), of the size the tree's
  // own inner cross-validation chose for the same rows where known, else the cap
  // (SubsetOptions::max_configs): the configs the shipped tree could pick.
  subset,
  // The kernel's whole config space, where it has at most kMaxForestConfigs (the run-time walk
  // ranks that many on the stack); a larger space falls back to `subset`. The default: the
  // forest's per-config costs do the subset's job, and over every config it holds out better on
  // the sm90 databases (ten fold draws, session 22: jagged_sum 1.050 against 1.063, jagged_mean
  // 1.071 against 1.084, causal_trailing_mean equal). The dispatch library links every config
  // anyway (docs/ARCHITECTURE.md, Dispatch), so nothing more is compiled.
  all,
};

struct ForestOptions {
  // 32 since session 60 (16 from session 58, 8 before). Over three forest seeds on the jagged
  // kernels' three test sets, 32 trees moved the mean geomean by -0.26 % (jagged_sum) and -0.37 %
  // (jagged_mean) and narrowed the seeds' spread; 16-bit leaf costs (tree_node.h) keep the header
  // about the size 16 trees of 32-bit costs had (PERF.md, Session 60).
  std::size_t trees = 32;
  int max_depth = 12;
  std::size_t min_leaf = 1;  // fewest training shapes on either side of a split (sklearn's default 1)
  uint64_t seed = 0;
  // Training targets are ln slowdowns clipped here (`fit --forest-clip`): a config 5x or 50x off
  // is equally useless, and unclipped tails would pull every split toward them. Illegal and
  // failed cells train at the clip too, so they never look attractive. On the jagged databases
  // 0.7 and 1.0 hold out within 0.2 % of 1.5, 2.0 and 3.0 up to 0.6 % worse (PERF.md, Session 46).
  // At most kMaxLeafCostLn (tree_node.h), the largest a 16-bit leaf cost holds.
  double clip = 1.5;
  ForestConfigs configs = ForestConfigs::all;
};

// Leaves hold a vector of predicted costs, one per kept config, added over the trees.
struct Forest {
  std::vector<uint32_t> configs;  // column -> config-space index, ascending
  // Every tree's nodes, tree t from roots[t]; child indices are relative to the tree's root, so
  // find_leaf(&nodes[roots[t]], x) walks it. Thresholds are on the raw features, as the tree's.
  // A leaf's `left` is the offset of its configs.size() values in leaf_values.
  std::vector<TreeNode> nodes;
  std::vector<int32_t> roots;
  // Mean clipped ln slowdown per config over the leaf's training shapes, in kLeafCostUnit
  // millionths (tree_node.h, rounded half up); kLeafCostFailed for a config that failed (broken,
  // not illegal) on any of them, so a training shape is never sent to a config that failed on it
  // while another ranks without that mark.
  std::vector<uint16_t> leaf_values;

  std::size_t num_trees() const { return roots.size(); }
};

// Grows the forest on `rows`, predicting `configs` (config-space indices; sorted and deduplicated
// here). Empty rows or configs give a forest with no trees.
Forest fit_forest(const TrainingSet& ts, std::span<const std::size_t> rows,
                  std::vector<std::size_t> configs, const ForestOptions& options);

// The summed leaf values over the trees for raw features `x`: costs[i] for forest.configs[i]. The
// lower, the better. `costs` must hold forest.configs.size() entries.
void forest_costs(const Forest& forest, const double* x, int64_t* costs);

// Positions of forest.configs ranked by forest_costs(), cheapest first (ties: the lower position).
std::vector<uint16_t> forest_ranking(const Forest& forest, const double* x);

// The forest as the flat tables a heuristic ships (heuristic.h: roots and leaf_values set), its
// fallback list every forest config ranked over `rows` (what it was fitted on).
Heuristic forest_heuristic(const Forest& forest, const TrainingSet& ts, std::span<const std::size_t> rows);

// The config the forest runs for training-set shape `row`, by the run-time path (route() on
// forest_heuristic()): its ranked configs, then the safe default, then any legal config, with the
// database's legality standing in for supports() and the row bound (row_bound.h) passing configs
// over.
Choice route_forest(const Forest& forest, const TrainingSet& ts, std::size_t row);

// Whether a forest of `which` configs predicts every config of `ts` (ForestConfigs::all over a
// space the run-time walk can rank), or else the fitted subset.
bool takes_every_config(const TrainingSet& ts, ForestConfigs which);

// The configs a fold's forest predicts: ForestConfigs::subset fits a subset on `rows` of
// `subset_size` configs (0: options.subset's cap), ForestConfigs::all takes every config (or,
// past kMaxForestConfigs of them, the subset).
std::vector<std::size_t> forest_config_columns(const TrainingSet& ts, std::span<const std::size_t> rows,
                                               ForestConfigs which, const SubsetOptions& subset,
                                               std::size_t subset_size = 0);

// Held-out choices as heldout_choices() deals them (assign_folds with cv.fold_salt): every shape
// is routed by a forest fitted, config subset included, on the other folds only. `subset_sizes`,
// when given, holds one subset size per fold (what the tree's inner cross-validation chose on the
// same training rows: HeldOut::per_fold's max_configs); the forest's own options are fixed.
// HeldOut::per_fold stays empty.
HeldOut heldout_forest_choices(const TrainingSet& ts, const CrossValidationOptions& cv,
                               const ForestOptions& options,
                               std::span<const std::size_t> subset_sizes = {});

}  // namespace aotune::heuristics
