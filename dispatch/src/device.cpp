#include "aotune/device.h"

#include <cuda_runtime_api.h>

#include <array>
#include <mutex>

#include "kernels/common/cuda_check.h"

namespace aotune::dispatch {

namespace {

// Enough for any single host; larger ordinals are queried on every call (correct, just slower).
constexpr int kCachedDevices = 64;

int query_arch(int ordinal) {
  int major = 0, minor = 0;
  AOTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal));
  AOTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal));
  return major * 10 + minor;
}

}  // namespace

int current_device() {
  int device = 0;
  AOTUNE_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

int device_arch(int ordinal) {
  if (ordinal < 0 || ordinal >= kCachedDevices) return query_arch(ordinal);
  static std::array<std::once_flag, kCachedDevices> once;
  static std::array<int, kCachedDevices> arch{};
  // A failed query throws out of call_once, which leaves the flag unset: the next call retries.
  std::call_once(once[static_cast<std::size_t>(ordinal)],
                 [ordinal] { arch[static_cast<std::size_t>(ordinal)] = query_arch(ordinal); });
  return arch[static_cast<std::size_t>(ordinal)];
}

}  // namespace aotune::dispatch
