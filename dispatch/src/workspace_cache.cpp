#include "dispatch/src/workspace_cache.h"

#include <mutex>
#include <utility>
#include <vector>

#include "aotune/workspace.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_raii.h"

namespace aotune::dispatch {

namespace {

// Makes `device` current for its scope and restores the caller's device after it. Never throws:
// error() says whether the switch failed (release and exit must not throw; allocate reports it).
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) noexcept {
    error_ = cudaGetDevice(&previous_);
    if (error_ == cudaSuccess && previous_ != device) {
      error_ = cudaSetDevice(device);
      switched_ = error_ == cudaSuccess;
    }
  }
  ~ScopedDevice() {
    if (switched_) cudaSetDevice(previous_);
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;
  cudaError_t error() const { return error_; }

 private:
  int previous_ = 0;
  bool switched_ = false;
  cudaError_t error_ = cudaSuccess;
};

// CUDA under the pool: cudaMalloc on the buffer's device, a stream-ordered zero-fill, a stream
// wait before a buffer is replaced, and cudaFree (which waits for the device's queued work).
class CudaScratch final : public ScratchBackend {
 public:
  void* allocate(int device, std::size_t bytes) override {
    const ScopedDevice on(device);
    AOTUNE_CUDA_CHECK(on.error());
    void* p = nullptr;
    AOTUNE_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  void free(int device, void* p) noexcept override {
    // At exit or after a sticky error there is nothing useful to do with a failure here.
    const ScopedDevice on(device);
    if (on.error() == cudaSuccess) cudaFree(p);
  }
  void zero(void* p, std::size_t bytes, void* stream) override {
    AOTUNE_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, static_cast<cudaStream_t>(stream)));
  }
  void wait(void* stream) override {
    AOTUNE_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }
};

// Function-local owners so buffers are freed at exit, and never before their last user.
ScratchPool& pool() {
  static CudaScratch backend;
  static ScratchPool buffers(backend, static_cast<void*>(cudaStreamPerThread));
  return buffers;
}

std::mutex captured_mutex;
// Buffers handed to calls captured into CUDA graphs: a graph keeps the pointer and uses it on every
// replay, so each stays allocated until release_workspaces() (at exit, or when the caller says).
std::vector<DeviceBuffer>& captured() {
  static std::vector<DeviceBuffer> buffers;
  return buffers;
}

// Sets this thread's stream-capture mode to relaxed and restores the previous one on scope exit.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() { AOTUNE_CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode_)); }
  // Restoring a mode the runtime gave us cannot fail.
  ~RelaxedCaptureMode() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// Scratch for a call that `stream` is capturing into a graph (torch.cuda.graph, a serving stack's
// step graph). The pool cannot serve it: the graph may replay on any stream, alongside eager calls
// that use the pooled buffer, and a later growth would free the pointer the graph holds. So the
// call gets a buffer of its own that outlives the graph. cudaMalloc is not captured, which is why
// a capture begun in global or thread-local mode refuses it; this allocation is meant to happen
// now and once, so it runs in relaxed mode. The zero-fill is captured: every replay starts from
// zeroed scratch (the kernels leave it zeroed, but the first replay finds new memory).
void* captured_workspace(cudaStream_t stream, std::size_t bytes) {
  DeviceBuffer buffer;
  {
    const RelaxedCaptureMode relaxed;
    buffer = DeviceBuffer(bytes);
  }
  AOTUNE_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 0, bytes, stream));
  void* p = buffer.get();
  const std::lock_guard lock(captured_mutex);
  captured().push_back(std::move(buffer));
  return p;
}

}  // namespace

ScratchLease workspace_for(int device, cudaStream_t stream, std::size_t bytes) {
  if (bytes == 0) return {};
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  AOTUNE_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return {{}, captured_workspace(stream, bytes)};
  return pool().lease(device, static_cast<void*>(stream), bytes);
}

void release_workspaces() {
  // Streams may be gone by now, so no per-stream wait: cudaFree itself waits for the device.
  pool().release();
  const std::lock_guard lock(captured_mutex);
  captured().clear();
}

}  // namespace aotune::dispatch
