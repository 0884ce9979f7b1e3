// causal_trailing_mean on one row longer than 2^31 elements: only there do the thread and flat
// kernels take their 64-bit index instances, and the flat kernel's position in the row passes an
// int's range (session 16 found it kept in an int on its shared-terms path). The input is all
// ones, so an output is exactly 1 when its divisor is its window's term count, whatever the row
// length; a float64 reference of 2^31 elements would need 17 GB of host memory for no more. The
// outputs are read at the row's start, around 2^31 and at its end. Needs about 9 GB of GPU memory
// (skipped with less, and without a GPU).
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_raii.h"
#include "tests/gpu_test_support.h"

namespace aotune {
namespace {

namespace ctm = causal_trailing_mean;

const ctm::Config& config_named(const std::string& id) {
  for (const ctm::Config& c : ctm::config_space())
    if (ctm::config_id(c) == id) return c;
  throw std::runtime_error("no config " + id);
}

TEST(TrailingMeanLongRows, ThreadAndFlatPastTwoToThe31MatchTheWindowCounts) {
  AOTUNE_REQUIRE_GPU();
  // An error left by an earlier test would otherwise surface in this one's first checked call.
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  constexpr uint16_t kOne = 0x3F80;   // bf16 1.0
  constexpr uint16_t kPoison = 0xFFFF;  // a NaN
  const int64_t T = (int64_t{1} << 31) + 100;  // B = D = 1
  const std::size_t bytes = static_cast<std::size_t>(T) * sizeof(uint16_t);
  std::size_t free_bytes = 0, total_bytes = 0;
  AOTUNE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < 2 * bytes + (std::size_t{1} << 30)) GTEST_SKIP() << "needs " << 2 * bytes << " bytes of GPU memory";

  DeviceBuffer x(bytes), out(bytes);
  const std::vector<uint16_t> ones(std::size_t{1} << 26, kOne);
  for (std::size_t off = 0; off < bytes; off += ones.size() * sizeof(uint16_t)) {
    x.upload(ones.data(), std::min(ones.size() * sizeof(uint16_t), bytes - off), off);
  }
  test::wait_for_default_stream();  // the launches below run on a non-blocking stream
  ctm::Problem p;
  p.B = 1;
  p.D = 1;
  p.T = T;
  p.dtype = DType::bf16;
  p.x = x.get();
  p.out = out.get();
  CudaStream stream;
  // [begin, end) output ranges: the row start, the 4096 outputs below 2^31, and 2^31 to the row
  // end. None crosses the buffer's 4 GiB byte offset: on the H200 one cudaMemcpy of 4096 outputs
  // from 2^31 - 2048, across that offset of this 4.3 GB cudaMalloc, failed with
  // cudaErrorInvalidValue, while the same copy from a torch tensor of that length did not
  // (session 17, cause unknown; reads on either side of the offset pass).
  const int64_t half = int64_t{1} << 31;
  const std::vector<std::pair<int64_t, int64_t>> ranges = {{0, 4096}, {half - 4096, half}, {half, T}};
  for (const char* id : {"thread.t128", "flat.t128", "flat.t256"}) {
    for (const int64_t cf : {4, 8, 16, 32}) {
      SCOPED_TRACE(std::string(id) + " cf=" + std::to_string(cf));
      p.cf = cf;
      const ctm::Config& c = config_named(id);
      ASSERT_TRUE(ctm::supports(c, p).ok) << ctm::supports(c, p).reason;
      AOTUNE_CUDA_CHECK(cudaMemsetAsync(out.get(), 0xFF, bytes, stream.get()));
      ctm::launch(c, p, nullptr, stream.get());
      const cudaError_t ran = cudaStreamSynchronize(stream.get());
      ASSERT_EQ(ran, cudaSuccess) << cudaGetErrorString(ran);
      int bad = 0;
      for (const auto& [s, e] : ranges) {
        std::vector<uint16_t> got(static_cast<std::size_t>(e - s), kPoison);
        // Checked here rather than through DeviceBuffer::download so a failure names the offset.
        const cudaError_t copied = cudaMemcpy(got.data(), out.as<const char>() + static_cast<std::size_t>(s) * sizeof(uint16_t),
                                              got.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost);
        if (copied != cudaSuccess) (void)cudaGetLastError();  // not left for the next test's launch check
        ASSERT_EQ(copied, cudaSuccess) << "reading outputs " << s << " to " << e << ": " << cudaGetErrorString(copied);
        for (std::size_t i = 0; i < got.size(); ++i) {
          if (got[i] != kOne && ++bad <= 5) {
            ADD_FAILURE() << "out[" << s + static_cast<int64_t>(i) << "] = 0x" << std::hex << got[i] << std::dec
                          << ", expected bf16 1.0";
          }
        }
      }
      EXPECT_EQ(bad, 0);
    }
  }
}

}  // namespace
}  // namespace aotune
