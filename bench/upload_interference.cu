// What another thread's CUDA work does to the tuner's timing protocol (BENCH.md: an L2 flush, then
// events around one launch; every repetition queued, then one synchronise). A sweep used to build
// the next shape's inputs on a second thread while it timed the current one; that build ends in
// cudaMalloc and a pageable cudaMemcpy of up to a GB. This times a small kernel (about 4.7 us on
// an H200) by that protocol while another thread does each part of it, and while every host core
// is busy, and prints p10 / median / p90 per trial. Session 47 (PERF.md) ran it and turned the
// overlap off by default (`tune --overlap` to opt in).
//
// Run: build with -DAOTUNE_BUILD_BENCH=ON, then ./aotune_bench_upload_interference [reps] [trials]
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "kernels/common/cuda_raii.h"

namespace {

using aotune::CudaEvent;
using aotune::CudaStream;
using aotune::DeviceBuffer;

constexpr std::size_t kUploadBytes = std::size_t{1} << 30;   // a large grid shape's values
constexpr int kValues = 32768;                               // the timed kernel reads 128 KB

__global__ void small_sum(const float* x, float* y, int n) {
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  if (s == 12345.f) y[0] = s;  // never true on zeroed input; keeps the loads
}

// Page-locked host memory, owned.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) { AOTUNE_CUDA_CHECK(cudaMallocHost(&ptr_, bytes)); }
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

struct Percentiles {
  double p10, median, p90;
};

// `reps` repetitions of the protocol, all queued before one synchronise, as tuner/gpu_device.cpp.
Percentiles time_protocol(const CudaStream& stream, const DeviceBuffer& flush,
                          const DeviceBuffer& x, const DeviceBuffer& y, int reps) {
  std::vector<CudaEvent> events(2 * static_cast<std::size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    AOTUNE_CUDA_CHECK(cudaMemsetAsync(flush.get(), r & 0xff, flush.bytes(), stream.get()));
    events[2 * r].record(stream.get());
    small_sum<<<64, 256, 0, stream.get()>>>(x.as<float>(), y.as<float>(), kValues);
    AOTUNE_CUDA_CHECK_LAUNCH();
    events[2 * r + 1].record(stream.get());
  }
  stream.synchronize();
  std::vector<double> us;
  for (int r = 0; r < reps; ++r)
    us.push_back(1000.0 * events[2 * r + 1].elapsed_ms_since(events[2 * r]));
  std::sort(us.begin(), us.end());
  const auto at = [&](double q) { return us[static_cast<std::size_t>(q * (us.size() - 1) + 0.5)]; };
  return {at(0.1), at(0.5), at(0.9)};
}

// Runs `step` in a loop on its own thread(s) until destroyed; the first error is rethrown by
// stop() so a failing background call is never silent.
class Background {
 public:
  Background(int threads, std::function<void()> step) {
    for (int t = 0; t < threads; ++t)
      threads_.emplace_back([this, step] {
        try {
          while (!stop_) step();
        } catch (...) {
          if (!failed_.exchange(true)) error_ = std::current_exception();
        }
      });
  }
  ~Background() { join(); }
  void stop() {
    join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void join() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace

int main(int argc, char** argv) try {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 30;
  const int trials = argc > 2 ? std::atoi(argv[2]) : 3;
  if (reps < 10 || trials < 1) {
    std::fprintf(stderr, "usage: %s [reps >= 10] [trials >= 1] (got %d, %d)\n", argv[0], reps,
                 trials);
    return 2;
  }
  AOTUNE_CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  AOTUNE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  CudaStream stream;
  // The protocol's flush: twice the L2, rounded up to a MiB (tuner/timing_protocol.cpp).
  const std::size_t mib = std::size_t{1} << 20;
  const std::size_t flush_bytes =
      (2 * static_cast<std::size_t>(prop.l2CacheSize) + mib - 1) / mib * mib;
  DeviceBuffer flush(flush_bytes), x(kValues * sizeof(float)), y(sizeof(float));
  AOTUNE_CUDA_CHECK(cudaMemset(x.get(), 0, x.bytes()));
  std::vector<char> pageable(kUploadBytes, 1);  // touched, so the copy reads resident pages
  PinnedBuffer pinned(kUploadBytes);
  DeviceBuffer kept(kUploadBytes);
  CudaStream copy_stream;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  struct Mode {
    const char* name;
    int threads;
    std::function<void()> step;  // empty: nothing beside the timing
  };
  const std::vector<Mode> modes = {
      {"nothing else", 0, {}},
      {"cudaMalloc + pageable cudaMemcpy 1 GB + cudaFree (the overlapped input build)", 1,
       [&] {
         DeviceBuffer b(kUploadBytes);
         b.upload(pageable.data(), kUploadBytes);
       }},
      {"pageable cudaMemcpy 1 GB into a kept buffer", 1,
       [&] { kept.upload(pageable.data(), kUploadBytes); }},
      {"pinned cudaMemcpyAsync 1 GB on its own stream", 1,
       [&] {
         AOTUNE_CUDA_CHECK(cudaMemcpyAsync(kept.get(), pinned.get(), kUploadBytes,
                                           cudaMemcpyHostToDevice, copy_stream.get()));
         copy_stream.synchronize();
       }},
      {"every host core spinning, no CUDA", cores,
       [] {
         volatile double z = 0;
         for (int i = 0; i < 1000000; ++i) z = z + 1.0;
       }},
      // Last: on an H100 (session 48) the run was stopped after 6 minutes in this mode or the one
      // before it, with nothing printed (a loop of device-wide synchronising frees may keep the
      // timing thread's launches waiting for as long as it runs).
      {"cudaMalloc + cudaFree 1 GB", 1, [&] { DeviceBuffer b(kUploadBytes); }},
  };
  std::printf("%s; a %zu MiB flush, %d repetitions per trial, p10 / median / p90 in us\n",
              prop.name, flush_bytes / mib, reps);
  for (const Mode& m : modes) {
    std::unique_ptr<Background> beside;
    if (m.step) {
      beside = std::make_unique<Background>(m.threads, [&m] {
        AOTUNE_CUDA_CHECK(cudaSetDevice(0));  // the current device is per thread
        m.step();
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::printf("%-80s", m.name);
    std::fflush(stdout);
    for (int t = 0; t < trials; ++t) {
      const Percentiles p = time_protocol(stream, flush, x, y, reps);
      std::printf("  %.1f / %.1f / %.1f", p.p10, p.median, p.p90);
      std::fflush(stdout);  // a run stopped by a time limit keeps every trial it printed
      std::fflush(stdout);
    }
    std::printf("\n");
    if (beside) beside->stop();
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "upload_interference: %s\n", e.what());
  return 1;
}
