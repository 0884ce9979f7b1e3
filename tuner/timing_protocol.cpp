#include "tuner/timing_protocol.h"

#include <algorithm>
#include <cmath>

#include "tuner/device_info.h"

namespace aotune::tuner {

TimingProtocol for_device(TimingProtocol p, const DeviceInfo& device) {
  constexpr int64_t kMiB = 1 << 20;
  p.l2_flush_bytes = (2 * device.l2_bytes + kMiB - 1) / kMiB * kMiB;
  p.simulated = device.simulated;
  return p;
}

int reps_for(double estimate_us, const TimingProtocol& p) {
  const double wanted = p.target_ms * 1000.0 / std::max(estimate_us, 0.5);
  return static_cast<int>(std::clamp(std::ceil(wanted), double(p.min_reps), double(p.max_reps)));
}

Timing summarize(std::vector<double> samples_us) {
  std::sort(samples_us.begin(), samples_us.end());
  const std::size_t n = samples_us.size();
  auto rank = [&](double q) {
    return samples_us[static_cast<std::size_t>(std::floor(q * double(n - 1) + 0.5))];
  };
  Timing t;
  t.median_us = n % 2 == 1 ? samples_us[n / 2] : 0.5 * (samples_us[n / 2 - 1] + samples_us[n / 2]);
  t.p10_us = rank(0.1);
  t.p90_us = rank(0.9);
  t.reps = static_cast<int>(n);
  return t;
}

nlohmann::ordered_json to_json(const TimingProtocol& p, const std::string& effort) {
  nlohmann::ordered_json j;
  j["timer"] = p.simulated ? "simulated cost model (no GPU)" : "CUDA events around each launch";
  j["check"] =
      "output poisoned with NaN, one launch compared with the float64 reference before timing";
  j["warmup_launches"] = p.warmup;
  j["target_ms_per_config"] = p.target_ms;
  j["min_reps"] = p.min_reps;
  j["max_reps"] = p.max_reps;
  j["l2_flush_bytes"] = p.l2_flush_bytes;
  j["l2_flush"] = "cudaMemsetAsync between repetitions, outside the timed region";
  j["statistics"] = "median, p10, p90 (nearest rank) in microseconds";
  if (p.loser_factor > 0) {
    j["loser_factor"] = p.loser_factor;
    j["loser_reps"] = p.loser_reps;
    j["loser_min_us"] = p.loser_min_us;
    j["losers"] =
        "once the shape's fastest median so far is at least loser_min_us, a config whose first two "
        "flushed launches (after its check launch) are both over loser_factor x that median gets "
        "loser_reps repetitions and no more warm-up; the neighbouring shapes' best configs are "
        "measured first";
  }
  j["near_tie"] = p.near_tie;
  // Written only when not the default, so the databases tuned before the option existed (which
  // used the default) keep the same protocol block and stay resumable and mergeable.
  if (p.max_tie_candidates != TimingProtocol{}.max_tie_candidates)
    j["max_tie_candidates"] = p.max_tie_candidates;
  if (p.unsteady > 0) {
    j["unsteady"] = p.unsteady;
    j["max_unsteady_retimes"] = p.max_unsteady_retimes;
    j["unsteady_retime"] =
        "a cell whose median is over (1 + unsteady) x its p10 is timed again, interleaved with "
        "the shape's other such cells (at most max_unsteady_retimes, the most unsteady first), "
        "after the next shape's inputs are built, and keeps the lower median";
  }
  j["tie_break"] =
      "configs within near_tie of the best are re-timed interleaved (their cells hold the "
      "re-timed statistics); then lowest median, then lowest config index";
  j["inputs"] = p.overlap_inputs ? kInputsOverlapped : kInputsBeforeEachShape;
  j["effort"] = effort;
  return j;
}

}  // namespace aotune::tuner
