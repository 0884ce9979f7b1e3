// k-fold cross-validation over shapes: chooses the tree's depth and minimum leaf size, and scores
// a heuristic on shapes it was not fitted on. Everything fitted inside a fold (config subset,
// hyper-parameters, tree) sees only that fold's training shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heuristics/config_subset.h"
#include "heuristics/cost.h"
#include "heuristics/decision_tree.h"
#include "heuristics/heuristic.h"
#include "heuristics/training_set.h"

namespace aotune::heuristics {

struct HyperParams {
  int max_depth = 0;
  std::size_t min_leaf = 1;
  bool routed_heads = false;  // TreeOptions::routed_heads
  std::size_t max_configs = 0;  // configs the subset keeps; 0: SubsetOptions::max_configs
  friend bool operator==(const HyperParams&, const HyperParams&) = default;
};

struct CrossValidationOptions {
  std::size_t folds = 5;
  // Mixed into the shape-key hash that deals the folds: 0 is the canonical draw (what emit and
  // verify score); other values re-draw the folds, for repeated cross-validation.
  uint64_t fold_salt = 0;
  // Fold draws the hyper-parameter choice sums its costs over (choose_hyper_params): one draw's
  // costs are noisy enough that the routed-heads choice flipped with the grid (session 11:
  // causal_trailing_mean chose plain lists on one draw, 10-draw held-out 1.0455, while routed heads
  // held out at 1.0436 and plain lists at 1.0516).
  std::size_t inner_draws = 3;
  // Up to 12 levels: deeper trees still evaluate in a few tens of nanoseconds.
  std::vector<int> depths = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::vector<std::size_t> min_leaves = {1, 2, 4, 8, 16, 32};
  // Subset sizes tried: those under subset.max_configs (the cap), and the cap itself. More
  // configs cover more shapes but give each leaf more ways to be wrong on unseen shapes, so the
  // size is chosen like depth (session 11: K = 12 held out at 1.064 / 1.077 on jagged_sum /
  // jagged_mean against 1.075 / 1.086 at K = 8, 10 draws; trailing mean and dense_add level).
  std::vector<std::size_t> subset_sizes = {8, 12, 16};
  SplitCriterion criterion = SplitCriterion::leave_one_out;
  SubsetOptions subset;
};

// Fold (0..k-1) of each of `rows`, k = min(folds, rows.size()): rows ordered by a hash of their
// shape key and dealt round-robin, so folds are balanced, independent of grid order (a grid that
// cycles through dtypes must not put one dtype in one fold) and the same on every machine.
std::vector<std::size_t> assign_folds(const TrainingSet& ts, std::span<const std::size_t> rows,
                                      std::size_t folds, uint64_t salt = 0);

// Subset (of params.max_configs configs when set), then tree, on `rows` only.
Heuristic fit_on(const TrainingSet& ts, std::span<const std::size_t> rows,
                 const HyperParams& params, const SubsetOptions& subset,
                 SplitCriterion criterion = SplitCriterion::leave_one_out);

// The hyper-parameters (subset size, depth, leaf size, routed heads) with the lowest
// cross-validated cost on `rows`, summed over options.inner_draws fold draws; ties prefer the
// smaller subset, then the shallower tree, then the larger leaves, and plain lists unless routed
// heads win by a margin. Fewer than two rows: depth 0.
HyperParams choose_hyper_params(const TrainingSet& ts, std::span<const std::size_t> rows,
                                const CrossValidationOptions& options);

struct HeldOut {
  std::vector<Choice> choices;        // per shape, from a heuristic fitted without its fold
  std::vector<HyperParams> per_fold;  // what each fold's inner cross-validation chose
  std::vector<std::size_t> fold_of;   // per shape
};

// Nested cross-validation: for each fold, hyper-parameters are chosen by an inner
// cross-validation on the other folds, then fitted there and used on this fold.
HeldOut heldout_choices(const TrainingSet& ts, const CrossValidationOptions& options);

}  // namespace aotune::heuristics
