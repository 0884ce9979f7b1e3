#include "tuner/gpu_device.h"

#include <algorithm>
#include <utility>

#include "kernels/common/cuda_check.h"

namespace aotune::tuner {

namespace {

class GpuShapeRunner final : public ShapeRunner {
 public:
  GpuShapeRunner(GpuDevice& device, std::unique_ptr<Workload> workload)
      : device_(device), workload_(std::move(workload)) {}

  CheckResult check(std::size_t config) override {
    // On the legacy default stream, not the timing stream. A config's first launch may grow the
    // workload's scratch, which WorkloadBase::workspace() zeroes with cudaMemset: queued on the
    // legacy default stream, and not ordered before a kernel on the non-blocking timing stream
    // (session 21: under load the fill overlapped an nnz_split launch and wiped its arrival
    // counters, and every later launch on that scratch read stale sums). The fill belongs on the
    // launch stream, but workload_base.cpp is in every kernel's source hash, so it moves there at
    // the next full re-sweep. Every config is checked before it is timed (sweep.cpp), so its
    // scratch exists, zeroed, before any timed launch; check() synchronises the device anyway.
    workload_->poison_output(cudaStreamLegacy);
    workload_->launch(config, cudaStreamLegacy);
    return workload_->check();  // synchronises: a faulting kernel surfaces here as CudaError
  }

  Timing time(std::size_t config, double loser_above_us) override {
    const TimingProtocol& p = device_.protocol();
    if (loser_above_us <= 0) return timed(config, p.warmup);
    // The check launch has just run (code loaded, TLBs warm): two flushed launches over the bar
    // make a clear loser (one could be slowed by something else on the GPU); anything else goes
    // on to the full protocol, these launches standing in for warm-up.
    std::vector<double> samples;
    for (int probe = 0; probe < 2; ++probe) {
      samples.push_back(flushed_launch_us(config));
      if (samples.back() <= loser_above_us) return timed(config, std::max(0, p.warmup - probe - 1));
    }
    while (static_cast<int>(samples.size()) < p.loser_reps)
      samples.push_back(flushed_launch_us(config));
    return summarize(std::move(samples));
  }

  std::vector<Timing> time_interleaved(const std::vector<std::size_t>& configs) override {
    return interleaved(configs, device_.protocol().warmup);
  }

  Timing time_back_to_back(std::size_t config, int calls) override {
    constexpr int kBatches = 11;
    const cudaStream_t s = device_.stream();
    for (int w = 0; w < std::max(1, device_.protocol().warmup); ++w) workload_->launch(config, s);
    auto& ev = device_.events(2 * kBatches);
    for (int b = 0; b < kBatches; ++b) {
      ev[2 * b].record(s);
      for (int i = 0; i < calls; ++i) workload_->launch(config, s);
      ev[2 * b + 1].record(s);
    }
    AOTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<double> samples;
    for (int b = 0; b < kBatches; ++b)
      samples.push_back(1000.0 * ev[2 * b + 1].elapsed_ms_since(ev[2 * b]) / calls);
    Timing t = summarize(std::move(samples));
    t.reps = kBatches * calls;
    return t;
  }

 private:
  Timing timed(std::size_t config, int warmup) { return interleaved({config}, warmup).front(); }

  double flushed_launch_us(std::size_t config) {
    const cudaStream_t s = device_.stream();
    auto& ev = device_.events(2);
    device_.flush_l2();
    ev[0].record(s);
    workload_->launch(config, s);
    ev[1].record(s);
    AOTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
    return 1000.0 * ev[1].elapsed_ms_since(ev[0]);
  }

  std::vector<Timing> interleaved(const std::vector<std::size_t>& configs, int warmup) {
    const TimingProtocol& p = device_.protocol();
    const cudaStream_t s = device_.stream();
    // Warm-up, then one timed launch per config to size the repetitions.
    int rounds = p.min_reps;
    for (std::size_t c : configs) {
      for (int w = 0; w < warmup; ++w) workload_->launch(c, s);
      rounds = std::max(rounds, reps_for(flushed_launch_us(c), p));
    }
    // Round-robin: A/B/A/B... so clock and thermal drift hit every config alike.
    const std::size_t n = configs.size();
    auto& ev = device_.events(2 * n * static_cast<std::size_t>(rounds));
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t e = 2 * (static_cast<std::size_t>(r) * n + i);
        device_.flush_l2();
        ev[e].record(s);
        workload_->launch(configs[i], s);
        ev[e + 1].record(s);
      }
    }
    AOTUNE_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<Timing> out;
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> samples;
      for (int r = 0; r < rounds; ++r) {
        const std::size_t e = 2 * (static_cast<std::size_t>(r) * n + i);
        samples.push_back(1000.0 * ev[e + 1].elapsed_ms_since(ev[e]));
      }
      out.push_back(summarize(std::move(samples)));
    }
    return out;
  }

  GpuDevice& device_;
  std::unique_ptr<Workload> workload_;
};

}  // namespace

GpuDevice::GpuDevice(int ordinal, TimingProtocol protocol)
    : ordinal_(ordinal), protocol_(protocol) {
  AOTUNE_CUDA_CHECK(cudaSetDevice(ordinal_));
  info_ = query_device(ordinal_);
  protocol_ = for_device(protocol_, info_);
  stream_ = std::make_unique<CudaStream>();
  flush_buffer_ = DeviceBuffer(static_cast<std::size_t>(protocol_.l2_flush_bytes));
}

std::unique_ptr<ShapeRunner> GpuDevice::prepare(const TunableKernel& kernel,
                                                const GridShape& shape) {
  AOTUNE_CUDA_CHECK(
      cudaSetDevice(ordinal_));  // the current device is per thread: inputs may be built on another
  auto workload = kernel.make_workload(shape.spec);
  // The workload's uploads are pageable cudaMemcpy calls on the legacy default stream, which may
  // return with the last copy still in flight. check() launches on that stream too, so it is
  // ordered after them, and every config is checked before it is timed (sweep.cpp); this wait
  // makes the inputs whole before anything else could touch them, with no such reasoning. It
  // lives here, not in WorkloadBase, because kernels/common is in every kernel's source hash.
  AOTUNE_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  return std::make_unique<GpuShapeRunner>(*this, std::move(workload));
}

bool GpuDevice::context_lost() {
  cudaGetLastError();  // clears an error that is not sticky; a sticky one stays and shows below
  return cudaDeviceSynchronize() != cudaSuccess;
}

void GpuDevice::flush_l2() {
  // A different byte each time, so nothing can treat the write as a no-op.
  AOTUNE_CUDA_CHECK(cudaMemsetAsync(flush_buffer_.get(), static_cast<int>(++flushes_ & 0xff),
                                    flush_buffer_.bytes(), stream_->get()));
}

std::deque<CudaEvent>& GpuDevice::events(std::size_t n) {
  while (events_.size() < n) events_.emplace_back();
  return events_;
}

double GpuDevice::estimate_seconds(const ProblemInfo& info, std::size_t configs) const {
  return estimate_gpu_seconds(info, configs, protocol_);
}

double estimate_gpu_seconds(const ProblemInfo& info, std::size_t configs, const TimingProtocol& p) {
  // H200-ish: ~3 TB/s achieved, flushes at the same rate, checks on the device. A shape costs its
  // host build (inputs, float64 reference, upload) plus its timing, or the longer of the two where
  // the next shape's inputs are built while this one is timed (TimingProtocol::overlap_inputs).
  // Host side: ~0.55 ns per byte moved, measured on the H200 machine's 16-core host with nothing
  // overlapped (session 47: jagged_mean, 606 shapes, 71.8 GB moved, 39.3 s waiting for inputs;
  // the last 68 jagged_sum shapes 0.47 ns). It was ~7.5 ns in session 7, before session 45 drew
  // the inputs in the device's encoding on every thread. The device side read 0.7x the 160.5 s
  // that jagged_mean's sweep measured (re-timings and per-cell checks are not modelled). Rough:
  // it splits work across GPUs and drives the ETA, whose pace corrects itself as shapes finish.
  const double kernel_us = 4.0 + info.bytes_moved / 3.0e6;
  const double flush_us = static_cast<double>(p.l2_flush_bytes) / 3.0e6;
  const int reps = reps_for(kernel_us, p);
  const double per_config =
      3e-4 + 2.0 * kernel_us * 1e-6 + (p.warmup + 1 + reps) * (kernel_us + flush_us + 6.0) * 1e-6;
  const double host = info.bytes_moved * 0.55e-9;
  const double device = static_cast<double>(configs) * per_config;
  return 0.02 + (p.overlap_inputs ? std::max(host, device) : host + device);
}

}  // namespace aotune::tuner
