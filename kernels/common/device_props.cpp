#include "kernels/common/device_props.h"

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>

#include "kernels/common/cuda_check.h"

namespace aotune {

int current_device_sm_count() {
  // 0 = not asked yet. Two threads may both ask the first time; they store the same answer.
  static std::array<std::atomic<int>, 64> cache{};
  int device = 0;
  AOTUNE_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= static_cast<int>(cache.size())) {
    int sms = 0;
    AOTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
  }
  int sms = cache[static_cast<std::size_t>(device)].load(std::memory_order_relaxed);
  if (sms == 0) {
    AOTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    cache[static_cast<std::size_t>(device)].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

}  // namespace aotune
