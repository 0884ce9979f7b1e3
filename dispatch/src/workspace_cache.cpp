#include "dispatch/src/workspace_cache.h"

#include <map>
#include <mutex>
#include <utility>

#include "aotune/workspace.h"
#include "kernels/common/cuda_raii.h"

namespace aotune::dispatch {

namespace {

std::mutex cache_mutex;
// Function-local owner so buffers are freed at exit, and never before their last user.
std::map<std::pair<int, cudaStream_t>, DeviceBuffer>& cache() {
  static std::map<std::pair<int, cudaStream_t>, DeviceBuffer> buffers;
  return buffers;
}

}  // namespace

void* workspace_for(int device, cudaStream_t stream, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const std::lock_guard lock(cache_mutex);
  DeviceBuffer& buffer = cache()[{device, stream}];
  if (buffer.bytes() < bytes) {
    if (buffer.get() != nullptr) AOTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
    buffer = DeviceBuffer();  // free first: the old and new buffers need not fit together
    buffer = DeviceBuffer(bytes);
    // Zeroed once here, in stream order before its first user; kernels leave their scratch zeroed
    // (jagged_reduce::workspace_bytes), so no call pays for a zero-fill.
    AOTUNE_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 0, bytes, stream));
  }
  return buffer.get();
}

void release_workspaces() {
  // Streams may be gone by now, so no per-stream wait: cudaFree itself waits for the device.
  const std::lock_guard lock(cache_mutex);
  cache().clear();
}

}  // namespace aotune::dispatch
