// Measurement on a real GPU with the protocol of BENCH.md: CUDA events around each launch, warm-up,
// repetitions sized by time, an L2 flush (cudaMemsetAsync over 2x the L2) before every repetition
// outside the timed region, and a checked, poisoned-output launch before any timing.
#pragma once

#include <deque>
#include <memory>

#include "kernels/common/cuda_raii.h"
#include "tuner/measurement_device.h"

namespace aotune::tuner {

class GpuDevice final : public MeasurementDevice {
 public:
  // Selects device `ordinal` (initialising CUDA in this process) and allocates the flush buffer.
  GpuDevice(int ordinal, TimingProtocol protocol);
  const DeviceInfo& info() const override { return info_; }
  const TimingProtocol& protocol() const override { return protocol_; }
  std::unique_ptr<ShapeRunner> prepare(const TunableKernel& kernel,
                                       const GridShape& shape) override;
  bool context_lost() override;
  double estimate_seconds(const ProblemInfo& info, std::size_t configs) const override;

  // Used by the shape runners.
  cudaStream_t stream() const { return stream_->get(); }
  void flush_l2();
  // At least `n` events, created once and reused.
  std::deque<CudaEvent>& events(std::size_t n);

 private:
  int ordinal_;
  TimingProtocol protocol_;
  DeviceInfo info_;
  std::unique_ptr<CudaStream> stream_;
  DeviceBuffer flush_buffer_;
  std::deque<CudaEvent> events_;  // deque: events cannot move
  unsigned flushes_ = 0;
};

// Rough seconds to check and time `configs` configs of a shape on a GPU (no GPU needed).
double estimate_gpu_seconds(const ProblemInfo& info, std::size_t configs,
                            const TimingProtocol& protocol);

}  // namespace aotune::tuner
