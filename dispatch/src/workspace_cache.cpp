#include "dispatch/src/workspace_cache.h"

#include "aotune/workspace.h"
#include "kernels/common/cuda_check.h"

namespace aotune::dispatch {

namespace {

// CUDA under the pool: cudaMalloc on the buffer's device, a stream-ordered zero-fill, a stream
// wait before a buffer is replaced, and cudaFree (which waits for the device's queued work).
class CudaScratch final : public ScratchBackend {
 public:
  void* allocate(int device, std::size_t bytes) override {
    const DeviceGuard on(device);
    void* p = nullptr;
    AOTUNE_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  void free(int device, void* p) noexcept override {
    int current = 0;
    // At exit or after a sticky error there is nothing useful to do with a failure here.
    if (cudaGetDevice(&current) != cudaSuccess) return;
    if (current != device) cudaSetDevice(device);
    cudaFree(p);
    if (current != device) cudaSetDevice(current);
  }
  void zero(void* p, std::size_t bytes, void* stream) override {
    AOTUNE_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, static_cast<cudaStream_t>(stream)));
  }
  void wait(void* stream) override {
    AOTUNE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }

 private:
  // Makes `device` current for an allocation and restores the caller's device after it.
  class DeviceGuard {
   public:
    explicit DeviceGuard(int device) {
      AOTUNE_CUDA_CHECK(cudaGetDevice(&previous_));
      if (previous_ != device) AOTUNE_CUDA_CHECK(cudaSetDevice(device));
    }
    ~DeviceGuard() { cudaSetDevice(previous_); }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

   private:
    int previous_ = 0;
  };
};

// Function-local owners so buffers are freed at exit, and never before their last user.
ScratchPool& pool() {
  static CudaScratch backend;
  static ScratchPool buffers(backend, static_cast<void*>(cudaStreamPerThread));
  return buffers;
}

}  // namespace

ScratchLease workspace_for(int device, cudaStream_t stream, std::size_t bytes) {
  return pool().lease(device, static_cast<void*>(stream), bytes);
}

void release_workspaces() {
  // Streams may be gone by now, so no per-stream wait: cudaFree itself waits for the device.
  pool().release();
}

}  // namespace aotune::dispatch
