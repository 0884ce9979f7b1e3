// A deterministic stand-in for a GPU, so CI can run tune, resume, shard, merge and
// assert-cache-hit without hardware. Time = launch latency + bytes_moved / (bandwidth x an
// efficiency that depends on each config field's distance from a preferred value, the preference
// changing with the shape's size and proportions) x a small per-(config, shape) jitter. Legality is
// the kernel's own. Its databases say "simulated": true and are never real tuning.
//
// Test hooks (environment or options): AOTUNE_SIM_DELAY_MS (sleep per cell, so a test can kill a
// sweep midway), AOTUNE_SIM_FAIL / AOTUNE_SIM_CRASH / AOTUNE_SIM_LOSE_CONTEXT (comma-separated
// config ids that give a wrong result / kill the process with SIGSEGV / act as a sticky CUDA
// error).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tuner/measurement_device.h"

namespace aotune::tuner {

struct SimulationOptions {
  std::string arch = "sm90";
  double delay_ms = 0;
  std::set<std::string> fail_configs;
  std::set<std::string> crash_configs;
  std::set<std::string> lose_context_configs;

  // Reads the AOTUNE_SIM_* variables over these defaults.
  static SimulationOptions from_environment(std::string arch);
};

// The identity of the simulated GPU: an H200-like part of the given architecture.
DeviceInfo simulated_device_info(const std::string& arch);

// The cost model alone (microseconds): deterministic in (kernel, config, shape).
double simulated_time_us(const TunableKernel& kernel, std::size_t config, const GridShape& shape);

class SimulatedDevice final : public MeasurementDevice {
 public:
  SimulatedDevice(SimulationOptions options, TimingProtocol protocol);
  const DeviceInfo& info() const override { return info_; }
  const TimingProtocol& protocol() const override { return protocol_; }
  std::unique_ptr<ShapeRunner> prepare(const TunableKernel& kernel,
                                       const GridShape& shape) override;
  bool context_lost() override { return context_lost_; }
  double estimate_seconds(const ProblemInfo& info, std::size_t configs) const override;

  const SimulationOptions& options() const { return options_; }
  void mark_context_lost() { context_lost_ = true; }

 private:
  SimulationOptions options_;
  TimingProtocol protocol_;
  DeviceInfo info_;
  bool context_lost_ = false;
};

}  // namespace aotune::tuner
