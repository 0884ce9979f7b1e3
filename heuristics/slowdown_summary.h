// Summary statistics of per-shape slowdowns against the per-shape best (the oracle).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

namespace aotune::heuristics {

struct SlowdownSummary {
  std::size_t shapes = 0;
  std::size_t misses = 0;  // shapes routed to a config that failed or cannot run: infinitely slow
  std::size_t unmeasured = 0;  // shapes routed to a config not timed there: slowdown imputed
  double geomean = 1;          // +inf when misses > 0
  double p95 = 1;              // nearest rank
  double max = 1;
};

SlowdownSummary summarize_slowdowns(std::vector<double> slowdowns);

// {"geomean_slowdown", "p95_slowdown", "max_slowdown", "misses", "unmeasured_picks"};
// infinities become null.
nlohmann::ordered_json to_json(const SlowdownSummary& s);
// A number for JSON output: null when not finite.
nlohmann::ordered_json json_number(double v);

}  // namespace aotune::heuristics
