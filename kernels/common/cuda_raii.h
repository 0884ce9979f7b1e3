// RAII owners for CUDA resources: device memory, streams and events. Destructors never throw.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "kernels/common/cuda_check.h"

namespace aotune {

// Owns one cudaMalloc allocation. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) AOTUNE_CUDA_CHECK(cudaMalloc(&ptr_, bytes_));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

  void upload(const void* host, std::size_t bytes, std::size_t dst_offset = 0) {
    if (bytes > 0) {
      AOTUNE_CUDA_CHECK(cudaMemcpy(static_cast<char*>(ptr_) + dst_offset, host, bytes,
                                   cudaMemcpyHostToDevice));
    }
  }
  void download(void* host, std::size_t bytes, std::size_t src_offset = 0) const {
    if (bytes > 0) {
      AOTUNE_CUDA_CHECK(cudaMemcpy(host, static_cast<const char*>(ptr_) + src_offset, bytes,
                                   cudaMemcpyDeviceToHost));
    }
  }

 private:
  void reset() noexcept {
    if (ptr_ != nullptr) cudaFree(ptr_);  // errors here are sticky and reported by the next call
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Owns a non-blocking stream.
class CudaStream {
 public:
  CudaStream() { AOTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const { AOTUNE_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// Owns a timing event.
class CudaEvent {
 public:
  CudaEvent() { AOTUNE_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~CudaEvent() {
    if (e_ != nullptr) cudaEventDestroy(e_);
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { AOTUNE_CUDA_CHECK(cudaEventRecord(e_, s)); }
  // Milliseconds from `start` to this event; both must have completed.
  float elapsed_ms_since(const CudaEvent& start) const {
    float ms = 0;
    AOTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// True when at least one CUDA device can be used by this process.
bool cuda_device_available();

}  // namespace aotune
