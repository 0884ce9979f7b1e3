// What a sweep measures with: a real GPU (gpu_device) or the deterministic cost model
// (simulated_device). The sweep and the search see only this interface.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "kernels/common/tunable_kernel.h"
#include "tuner/cell.h"
#include "tuner/device_info.h"
#include "tuner/shape_grid.h"
#include "tuner/timing_protocol.h"

namespace aotune::tuner {

// One shape's inputs, ready to run any legal config. Methods throw CudaError on CUDA failures.
class ShapeRunner {
 public:
  virtual ~ShapeRunner() = default;
  // One launch on a poisoned output, compared with the float64 reference.
  virtual CheckResult check(std::size_t config) = 0;
  // Warm-up, then repetitions sized by time with an L2 flush before each. With loser_above_us > 0,
  // a config whose first two flushed launches both take longer is a clear loser: it gets
  // max(2, TimingProtocol::loser_reps) repetitions in all and no more warm-up.
  virtual Timing time(std::size_t config, double loser_above_us) = 0;
  // Round-robin repetitions (A/B/A/B) so drift affects every config alike.
  virtual std::vector<Timing> time_interleaved(const std::vector<std::size_t>& configs) = 0;
  // Per-call time of `calls` launches issued back to back with no flush between them (inputs warm
  // in L2, launch overheads overlapped, as when a model calls the op in its stream): events around
  // each batch, divided by `calls`; statistics over the batches.
  virtual Timing time_back_to_back(std::size_t config, int calls) = 0;
};

class MeasurementDevice {
 public:
  virtual ~MeasurementDevice() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual const TimingProtocol& protocol() const = 0;
  // Builds the shape's inputs (and reference) on the device. May run on a second thread while the
  // previous shape is measured (TimingProtocol::overlap_inputs).
  virtual std::unique_ptr<ShapeRunner> prepare(const TunableKernel& kernel,
                                               const GridShape& shape) = 0;
  // After an error: true when the CUDA context is unusable (a sticky error) and the worker must
  // exit.
  virtual bool context_lost() = 0;
  // Rough seconds to measure `configs` configs of a shape: splits work across GPUs, drives the ETA
  // and decides whether an exhaustive search fits the budget.
  virtual double estimate_seconds(const ProblemInfo& info, std::size_t configs) const = 0;
};

}  // namespace aotune::tuner
