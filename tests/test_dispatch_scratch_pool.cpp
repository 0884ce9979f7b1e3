// The dispatch library's scratch cache (dispatch/src/scratch_pool.h) on host memory: reuse and
// growth per (device, stream), a buffer per thread for the per-thread stream, zeroing before first
// use, and, from many threads at once, no buffer freed while a call holds it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dispatch/src/scratch_pool.h"

namespace aotune::dispatch {
namespace {

// Host memory standing in for the device's, with a log of what the pool asked for.
class HostScratch final : public ScratchBackend {
 public:
  void* allocate(int, std::size_t bytes) override {
    auto* p = new unsigned char[bytes];
    std::memset(p, 0xab, bytes);  // garbage until zeroed
    const std::lock_guard lock(mutex_);
    live_.insert(p);
    ++allocations;
    return p;
  }
  void free(int, void* p) noexcept override {
    {
      const std::lock_guard lock(mutex_);
      live_.erase(p);
      ++frees;
    }
    delete[] static_cast<unsigned char*>(p);
  }
  void zero(void* p, std::size_t bytes, void*) override {
    if (fail_next_zero.exchange(false)) throw std::runtime_error("zero-fill refused");
    std::memset(p, 0, bytes);
  }
  void wait(void* stream) override {
    const std::lock_guard lock(mutex_);
    waited.push_back(stream);
  }
  bool live(const void* p) {
    const std::lock_guard lock(mutex_);
    return live_.contains(p);
  }

  std::atomic<int> allocations{0}, frees{0};
  std::atomic<bool> fail_next_zero{false};
  std::vector<void*> waited;

 private:
  std::mutex mutex_;
  std::set<const void*> live_;
};

void* stream(std::uintptr_t handle) { return reinterpret_cast<void*>(handle); }
constexpr std::uintptr_t kPerThread = 2;  // as cudaStreamPerThread

bool all_zero(const void* p, std::size_t bytes) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

TEST(ScratchPool, ReusesPerStreamGrowsAfterWaitingAndZeroesNewBuffers) {
  HostScratch backend;
  ScratchPool pool(backend, stream(kPerThread));
  EXPECT_EQ(pool.lease(0, stream(16), 0).get(), nullptr);
  EXPECT_EQ(backend.allocations, 0);
  void* a = pool.lease(0, stream(16), 100).get();
  EXPECT_TRUE(all_zero(a, 100));
  EXPECT_EQ(pool.lease(0, stream(16), 64).get(), a);  // a smaller call reuses it
  EXPECT_TRUE(backend.waited.empty());
  void* other = pool.lease(0, stream(32), 100).get();         // another stream: its own
  void* other_device = pool.lease(1, stream(16), 100).get();  // another device: its own
  EXPECT_NE(other, a);
  EXPECT_NE(other_device, a);
  void* grown = pool.lease(0, stream(16), 1000).get();
  EXPECT_TRUE(all_zero(grown, 1000));
  ASSERT_EQ(backend.waited.size(), 1U);  // the stream's queued work may use the old one
  EXPECT_EQ(backend.waited[0], stream(16));
  EXPECT_FALSE(backend.live(a));
  EXPECT_EQ(pool.buffers(), 3U);
  pool.release();
  EXPECT_EQ(pool.buffers(), 0U);
  EXPECT_EQ(backend.allocations, backend.frees);
}

TEST(ScratchPool, ThePerThreadStreamGetsABufferPerThreadOtherStreamsAreShared) {
  HostScratch backend;
  ScratchPool pool(backend, stream(kPerThread));
  void* mine = pool.lease(0, stream(kPerThread), 64).get();
  void* shared = pool.lease(0, stream(16), 64).get();
  void* theirs = nullptr;
  void* theirs_shared = nullptr;
  std::thread([&] {
    theirs = pool.lease(0, stream(kPerThread), 64).get();
    theirs_shared = pool.lease(0, stream(16), 64).get();
  }).join();
  EXPECT_NE(theirs, mine);  // two threads' per-thread streams run concurrently
  EXPECT_EQ(theirs_shared, shared);
}

TEST(ScratchPool, ABufferWhoseZeroFillFailedIsNeverHandedOut) {
  HostScratch backend;
  ScratchPool pool(backend, stream(kPerThread));
  backend.fail_next_zero = true;
  EXPECT_THROW(pool.lease(0, stream(16), 100), std::runtime_error);
  EXPECT_EQ(backend.allocations, backend.frees);
  void* p = pool.lease(0, stream(16), 100).get();
  EXPECT_TRUE(all_zero(p, 100));
}

// Threads leasing sizes that keep growing the buffers of two shared streams and their own
// per-thread ones, one thread releasing everything now and then: while a lease lives, its buffer
// is allocated (the pool's old code handed out a raw pointer another thread could free before
// the launch). Every lease also finds its buffer zeroed where the last user left it zeroed.
TEST(ScratchPool, NoBufferIsFreedWhileALeaseHoldsIt) {
  HostScratch backend;
  ScratchPool pool(backend, stream(kPerThread));
  std::atomic<int> freed_under_a_lease{0}, not_zeroed{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(t));
      for (int i = 0; i < 3000; ++i) {
        const std::uintptr_t s = rng() % 3 == 0 ? kPerThread : 16 + 16 * (rng() % 2);
        const std::size_t bytes = 1 + rng() % (64 + static_cast<std::size_t>(i));
        const ScratchLease lease = pool.lease(0, stream(s), bytes);
        if (!all_zero(lease.get(), bytes)) ++not_zeroed;
        std::this_thread::yield();  // a launch being enqueued
        if (!backend.live(lease.get())) ++freed_under_a_lease;
      }
    });
  }
  std::thread releaser([&] {
    while (!stop) {
      pool.release();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  for (std::thread& th : threads) th.join();
  stop = true;
  releaser.join();
  EXPECT_EQ(freed_under_a_lease, 0);
  EXPECT_EQ(not_zeroed, 0);
  EXPECT_GT(backend.allocations, 6);
  pool.release();
  EXPECT_EQ(backend.allocations, backend.frees);
}

}  // namespace
}  // namespace aotune::dispatch
