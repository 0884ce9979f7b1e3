// Which configs of one shape to measure, and which one wins.
//   exhaustive: every legal config, the seeds first.
//   quick: seeded candidates (best configs of measured neighbouring shapes, the first legal config,
//          a few spread over the space), then local search over configs that differ from the
//          current one in one field, until no neighbour improves: once from the best measured
//          config of each connected part of that neighbour graph.
//   none: the first legal config that passes its check.
// Legal configs left unmeasured are recorded as skipped. Configs within near_tie of the best are
// re-timed interleaved; the winner is the lowest median, then the lowest config index.
// Clear losers: with loser_factor > 0, each measurement after the first is told the time above
// which it may stop early (loser_factor x the fastest median so far, once that is at least
// loser_min_us). Nearly all of a sweep's GPU
// time went to configs over 2x the shape's best, timed with as many launches as the winner; their
// ranking, not their third digit, is what the fit needs. Seeding the exhaustive order with the
// neighbours' best configs makes the bar low from the first few measurements.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/tunable_kernel.h"
#include "tuner/cell.h"

namespace aotune::tuner {

enum class Effort { none, quick, full };
enum class SearchMode { none, quick, exhaustive };

Effort parse_effort(std::string_view name);  // throws InvalidArgument
std::string_view to_string(Effort e);
std::string_view to_string(SearchMode m);

// Whether a shape whose configs were chosen by `search` (a database's exhaustive | quick | none |
// crashed) is measured as `effort` asks when time allows: full asks for exhaustive, quick for
// quick or exhaustive. A crashed shape counts as done (its crash records keep it from running
// again). Under --budget-seconds, full turns quick once the rest would not fit; --resume measures
// such shapes again, since the budget, not the user, chose the weaker search.
bool meets_effort(std::string_view search, Effort effort);

// For each config, the configs whose JSON differs from it in exactly one field.
std::vector<std::vector<std::size_t>> one_field_neighbours(const TunableKernel& kernel);

struct SearchPlan {
  SearchMode mode = SearchMode::exhaustive;
  // Pre-set cells (illegal, crashed); every other entry must be `skipped` and is a candidate.
  std::vector<Cell> cells;
  std::vector<std::size_t> seeds;  // configs to try first (best of measured neighbouring shapes)
  const std::vector<std::vector<std::size_t>>* neighbours = nullptr;  // quick only
  double near_tie = 0.02;
  int max_tie_candidates = 4;
  double loser_factor = 0;  // 0: every config timed in full
  double loser_min_us = 0;  // no loser bar while the fastest median so far is below this
  // Cells timed in full (kMinUnsteadyReps or more) whose median is over (1 + unsteady) x their
  // p10 are re-timed once, before the near ties, and keep the lower median (TimingProtocol). 0:
  // off.
  double unsteady = 0;
  int max_unsteady_retimes = 8;
};

// Fewer repetitions than this (a loser's) give no spread worth reading.
inline constexpr int kMinUnsteadyReps = 5;

struct SearchOutcome {
  std::vector<Cell> cells;
  std::optional<std::size_t> best;
};

// `measure` checks then times one config, and may time it briefly once it is slower than
// `loser_above_us` (0: no bar yet); `retime` times several interleaved (an empty result keeps the
// first timings).
using MeasureFn = std::function<Cell(std::size_t config, double loser_above_us)>;
using RetimeFn = std::function<std::vector<Timing>(const std::vector<std::size_t>&)>;

SearchOutcome run_search(const SearchPlan& plan, const MeasureFn& measure, const RetimeFn& retime);

// Lowest median, then lowest index, among ok cells.
std::optional<std::size_t> fastest(const std::vector<Cell>& cells);

}  // namespace aotune::tuner
