// The cost of routing a set of shapes to configs: first how many land on a config that did not
// pass (never acceptable while an alternative exists), then the summed log-slowdown. Summing logs
// makes a pick that is 3x slow cost far more than many picks 1% slow (cost-sensitive fitting).
#pragma once

#include <compare>
#include <cstdint>

namespace aotune::heuristics {

struct Cost {
  int64_t misses = 0;   // shapes routed to a config that is not "ok" for them
  int64_t log_sum = 0;  // sum of log_cost (millionths of ln slowdown) over the other shapes

  friend constexpr auto operator<=>(const Cost&, const Cost&) = default;
  constexpr Cost& operator+=(const Cost& o) {
    misses += o.misses;
    log_sum += o.log_sum;
    return *this;
  }
  friend constexpr Cost operator+(Cost a, const Cost& b) { return a += b; }
  // One shape routed to a config with this log_cost (-1: not ok).
  static constexpr Cost of(int64_t log_cost) {
    return log_cost < 0 ? Cost{1, 0} : Cost{0, log_cost};
  }
};

}  // namespace aotune::heuristics
