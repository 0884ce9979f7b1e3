#include "apps/aot-runner/copy_ceiling.h"

#include <algorithm>
#include <vector>

#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_raii.h"
#include "kernels/common/errors.h"

namespace aotune::cli {

double measure_copy_ceiling_gbps() {
  std::size_t free_bytes = 0, total_bytes = 0;
  AOTUNE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Far larger than any L2 (so it measures DRAM), small enough to leave room for the workload.
  const std::size_t bytes = std::min<std::size_t>(std::size_t{2} << 30, free_bytes / 4) & ~std::size_t{255};
  if (bytes < (std::size_t{64} << 20)) {
    throw Error("too little free GPU memory to measure the copy ceiling (" +
                std::to_string(free_bytes >> 20) + " MiB free); drop --measure-ceiling");
  }
  DeviceBuffer src(bytes), dst(bytes);
  CudaStream stream;
  // Never time on zeros: fill the source with a pattern first.
  AOTUNE_CUDA_CHECK(cudaMemsetAsync(src.get(), 0x5a, bytes, stream.get()));
  constexpr int kWarmup = 2, kReps = 10;
  for (int i = 0; i < kWarmup; ++i) {
    AOTUNE_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
  }
  std::vector<CudaEvent> events(2 * kReps);
  for (int i = 0; i < kReps; ++i) {
    events[2 * i].record(stream.get());
    AOTUNE_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    events[2 * i + 1].record(stream.get());
  }
  stream.synchronize();
  std::vector<double> gbps;
  for (int i = 0; i < kReps; ++i) {
    const double seconds = 1e-3 * events[2 * i + 1].elapsed_ms_since(events[2 * i]);
    gbps.push_back(2.0 * static_cast<double>(bytes) / seconds / 1e9);  // read + write
  }
  std::nth_element(gbps.begin(), gbps.begin() + kReps / 2, gbps.end());
  return gbps[kReps / 2];
}

CopyCeiling copy_ceiling_for(const std::string& device_name, bool measure) {
  if (!measure && device_name.find("H200") != std::string::npos) {
    return {kH200CopyCeilingGbps, "constant (H200, BENCH.md; --measure-ceiling measures it)"};
  }
  return {measure_copy_ceiling_gbps(), "measured now (device-to-device cudaMemcpy)"};
}

}  // namespace aotune::cli
