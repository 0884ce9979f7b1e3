// causal_trailing_mean persistent configs (`.p`): the grid is what the GPU holds at once, so on a
// problem with many more work items than resident scanning units each unit walks many items and
// prefetches across them. The registry's test shapes are too small for that (the sweep's own
// checks cover it on the grid); this test makes the items outnumber the units for every config, on
// both paths (direct and running window) and a row length that leaves a partial last tile.
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/common/cuda_raii.h"
#include "kernels/common/host_data.h"
#include "tests/gpu_test_support.h"

namespace aotune {
namespace {

namespace ctm = causal_trailing_mean;

TEST(TrailingMeanPersistent, UnitsWalkingManyItemsMatchTheReference) {
  AOTUNE_REQUIRE_GPU();
  // 64 x 1024 rows of 200: 65536 rows, more than the resident units of any config on any current
  // GPU (at most 2048 threads per SM, so 64 warp units per SM, 8448 on a 132-SM H200).
  const int64_t B = 64, D = 1024, T = 200;
  const int64_t rows = B * D, n = rows * T;
  std::mt19937_64 rng(3);
  const std::vector<double> x = random_values(static_cast<std::size_t>(n), DType::f32, rng, -20.0);
  const auto x_bytes = encode(x, DType::f32);
  DeviceBuffer d_x(x_bytes.size()), d_out(x_bytes.size());
  d_x.upload(x_bytes.data(), x_bytes.size());
  test::wait_for_default_stream();  // the uploads land before the launches on `stream`
  CudaStream stream;

  // AOTUNE_GPU_TEST_STRIDE=k (compute-sanitizer runs) takes every k-th config only.
  const char* stride_env = std::getenv("AOTUNE_GPU_TEST_STRIDE");
  const int stride = stride_env ? std::max(1, std::atoi(stride_env)) : 1;
  int launches = 0, seen = 0;
  for (int64_t cf : {3, 50}) {  // direct (cf <= 4 for f32) and running window
    const std::vector<double> ref = ctm::reference(x, rows, T, cf);
    // fp32 error grows with the window's magnitudes: tolerance relative to the mean of |x| over it.
    std::vector<double> abs_x(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) abs_x[i] = std::abs(x[i]);
    const std::vector<double> scale = ctm::reference(abs_x, rows, T, cf);
    for (const ctm::Config& c : ctm::config_space()) {
      if (!c.persistent) continue;
      const ctm::Problem p{.B = B, .D = D, .T = T, .cf = cf, .dtype = DType::f32, .x = d_x.get(), .out = d_out.get()};
      if (!ctm::supports(c, p).ok || seen++ % stride != 0) continue;
      AOTUNE_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0xFF, d_out.bytes(), stream.get()));  // NaN
      ctm::launch(c, p, nullptr, stream.get());
      stream.synchronize();
      ++launches;
      std::vector<float> out(static_cast<std::size_t>(n));
      d_out.download(out.data(), out.size() * sizeof(float));
      int bad = 0;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (!(std::abs(out[i] - ref[i]) <= 1e-5 * scale[i] + 1e-30) && ++bad <= 3) {
          ADD_FAILURE() << ctm::config_id(c) << " cf=" << cf << ": out[" << i << "] = " << out[i] << ", reference "
                        << ref[i];
        }
      }
    }
  }
  EXPECT_GE(launches * stride, 2 * 24);  // every persistent config is legal here, on both paths
}

}  // namespace
}  // namespace aotune
