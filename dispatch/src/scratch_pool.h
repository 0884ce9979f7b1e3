// The scratch cache's logic, apart from CUDA so the CPU tests can drive it from many threads: one
// buffer per key (device, stream, and the calling thread for cudaStreamPerThread), grown on demand,
// handed out as leases. A lease holds the pool's shared lock from the lookup until the caller
// has enqueued its launch; growing and releasing take the lock exclusively. So no buffer is freed
// between a call's lookup and its launch, whichever thread grows or releases it.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <tuple>
#include <utility>

namespace aotune::dispatch {

// What the pool asks of the device (dispatch/src/workspace_cache.cpp: CUDA; tests: host memory).
class ScratchBackend {
 public:
  virtual ~ScratchBackend() = default;
  virtual void* allocate(int device, std::size_t bytes) = 0;
  virtual void free(int device, void* p) noexcept = 0;
  // Enqueues zeroing `bytes` at `p` on `stream`, before the work the caller enqueues next.
  virtual void zero(void* p, std::size_t bytes, void* stream) = 0;
  // Waits until the work queued on `stream` so far is done.
  virtual void wait(void* stream) = 0;
};

// A buffer a call may use until it has enqueued its work; null for a zero-byte request.
class ScratchLease {
 public:
  ScratchLease() = default;
  ScratchLease(std::shared_lock<std::shared_mutex> lock, void* p) : lock_(std::move(lock)), p_(p) {}
  void* get() const { return p_; }

 private:
  std::shared_lock<std::shared_mutex> lock_;
  void* p_ = nullptr;
};

class ScratchPool {
 public:
  // `per_thread_stream`: the handle whose meaning depends on the calling thread (CUDA's
  // cudaStreamPerThread): calls through it from different threads run on different streams, so
  // they must not share a buffer.
  ScratchPool(ScratchBackend& backend, void* per_thread_stream)
      : backend_(backend), per_thread_stream_(per_thread_stream) {}
  ~ScratchPool() { release(); }
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  // At least `bytes` for work on `stream` of `device`, zeroed before its first use. Growing waits
  // for the stream's queued work (it may use the old buffer), frees, allocates and zeroes.
  ScratchLease lease(int device, void* stream, std::size_t bytes) {
    if (bytes == 0) return {};
    const Key key{device, stream,
                  stream == per_thread_stream_ ? std::this_thread::get_id() : std::thread::id()};
    for (;;) {
      // Readers only find(); the map changes under the exclusive lock.
      std::shared_lock shared(rw_);
      const auto it = buffers_.find(key);
      if (it != buffers_.end() && it->second.bytes >= bytes)
        return {std::move(shared), it->second.p};
      shared.unlock();
      // Then look again under the shared lock: another thread may have grown it further.
      grow(key, bytes);
    }
  }

  // Frees every buffer, waiting for the leases held now to end.
  void release() noexcept {
    const std::unique_lock exclusive(rw_);
    for (auto& [key, b] : buffers_) backend_.free(std::get<0>(key), b.p);
    buffers_.clear();
  }

  std::size_t buffers() const {
    const std::shared_lock shared(rw_);
    return buffers_.size();
  }

 private:
  using Key = std::tuple<int, void*, std::thread::id>;
  struct Buffer {
    void* p = nullptr;
    std::size_t bytes = 0;
  };

  void grow(const Key& key, std::size_t bytes) {
    const std::unique_lock exclusive(rw_);
    Buffer& b = buffers_[key];
    if (b.bytes >= bytes) return;
    const int device = std::get<0>(key);
    void* stream = std::get<1>(key);
    if (b.p != nullptr) {
      backend_.wait(stream);
      backend_.free(device, std::exchange(b.p, nullptr));  // free first: both need not fit
      b.bytes = 0;
    }
    void* p = backend_.allocate(device, bytes);
    // Zeroed once, in stream order before its first user; the kernels leave their scratch zeroed
    // (jagged_reduce::workspace_bytes), so no call pays for a zero-fill. A buffer whose zeroing
    // could not be enqueued is never handed out.
    try {
      backend_.zero(p, bytes, stream);
    } catch (...) {
      backend_.free(device, p);
      throw;
    }
    b = {p, bytes};
  }

  ScratchBackend& backend_;
  void* per_thread_stream_;
  mutable std::shared_mutex rw_;
  std::map<Key, Buffer> buffers_;
};

}  // namespace aotune::dispatch
