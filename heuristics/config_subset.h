// Choosing the few configs a heuristic may pick from: a greedy cover of the training shapes,
// refined by swaps and pruned of configs that no longer help, minimising the geomean slowdown of
// each shape's best kept config while capping the worst case. Deterministic: ties go to the lower
// config index.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "heuristics/training_set.h"

namespace aotune::heuristics {

struct SubsetOptions {
  // The most configs kept. Fitting treats it as a cap and lets cross-validation choose the size
  // (CrossValidationOptions::subset_sizes: 8, 12 or 16 under the default).
  std::size_t max_configs = 16;
  double worst_case_cap =
      1.25;  // shapes whose best kept config is slower than this are penalised first
};

// The order in which subsets are compared, most important first.
struct SubsetScore {
  std::size_t uncovered = 0;  // shapes with no kept config that passed
  std::size_t over_cap = 0;   // shapes whose best kept config is slower than the cap
  int64_t log_sum = 0;        // summed log_cost of each covered shape's best kept config
  friend constexpr auto operator<=>(const SubsetScore&, const SubsetScore&) = default;
};

SubsetScore score_subset(const TrainingSet& ts, std::span<const std::size_t> rows,
                         std::span<const std::size_t> configs, const SubsetOptions& options);

// Config indices (ascending) of at most options.max_configs configs. Stops early when no config
// improves the score; empty when `rows` is empty.
std::vector<std::size_t> select_config_subset(const TrainingSet& ts,
                                              std::span<const std::size_t> rows,
                                              const SubsetOptions& options);

}  // namespace aotune::heuristics
