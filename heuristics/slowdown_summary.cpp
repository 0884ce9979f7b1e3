#include "heuristics/slowdown_summary.h"

#include <algorithm>
#include <cmath>

#include "heuristics/training_set.h"

namespace aotune::heuristics {

SlowdownSummary summarize_slowdowns(std::vector<double> slowdowns) {
  SlowdownSummary s;
  s.shapes = slowdowns.size();
  if (slowdowns.empty()) return s;
  std::sort(slowdowns.begin(), slowdowns.end());
  double log_sum = 0;
  for (const double v : slowdowns) {
    if (v == kInfiniteSlowdown) {
      ++s.misses;
    } else {
      log_sum += std::log(v);
    }
  }
  s.geomean =
      s.misses > 0 ? kInfiniteSlowdown : std::exp(log_sum / static_cast<double>(slowdowns.size()));
  const auto rank =
      static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(slowdowns.size())));
  s.p95 = slowdowns[std::max<std::size_t>(rank, 1) - 1];
  s.max = slowdowns.back();
  return s;
}

nlohmann::ordered_json json_number(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json to_json(const SlowdownSummary& s) {
  return {{"geomean_slowdown", json_number(s.geomean)},
          {"p95_slowdown", json_number(s.p95)},
          {"max_slowdown", json_number(s.max)},
          {"misses", s.misses},
          {"unmeasured_picks", s.unmeasured}};
}

}  // namespace aotune::heuristics
