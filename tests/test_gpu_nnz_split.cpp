// jagged_sum / jagged_mean nnz_split is one launch whose scratch is zeroed once and left zeroed:
// repeated launches on the same scratch give the reference every time, the scratch is all zero
// afterwards, and a switch to another chunk size or vector width (another counter layout) on the
// same scratch stays correct. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/cuda_raii.h"
#include "kernels/common/host_data.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "tests/gpu_test_support.h"
#include "tests/jagged_reduce_gpu_checks.h"

namespace aotune {
namespace {

namespace jr = jagged_reduce;

// Rows chosen to hit every ownership case of the kernel for a 16384-element chunk and M = 64
// (256 rows of values per chunk): empty rows first, at chunk boundaries and at the very end, a
// row spanning many chunks, rows ending exactly on a boundary, and short rows inside one chunk.
std::vector<int64_t> awkward_offsets() {
  const std::vector<int64_t> lengths = {0, 0, 3, 253, 0, 256, 1, 2000, 0, 0, 255, 1, 7, 512, 0, 3000, 9, 0, 0};
  std::vector<int64_t> offsets = {0};
  for (int64_t len : lengths) offsets.push_back(offsets.back() + len);
  return offsets;
}

TEST(NnzSplitOneLaunch, RepeatedLaunchesMatchTheReferenceAndLeaveTheScratchZero) {
  AOTUNE_REQUIRE_GPU();
  const int64_t M = 64;
  const std::vector<int64_t> offsets = awkward_offsets();
  const int64_t B = static_cast<int64_t>(offsets.size()) - 1, nnz = offsets.back();
  std::mt19937_64 rng(7);
  const std::vector<double> values = random_values(static_cast<std::size_t>(nnz * M), DType::f32, rng);
  std::vector<int64_t> fc(static_cast<std::size_t>(B));
  for (auto& f : fc) f = static_cast<int64_t>(rng() % (M + 1));

  const auto values_bytes = encode(values, DType::f32);
  const auto offsets_bytes = encode_index(offsets, IndexType::i64);
  const auto fc_bytes = encode_index(fc, IndexType::i64);
  DeviceBuffer d_values(values_bytes.size()), d_offsets(offsets_bytes.size()), d_fc(fc_bytes.size());
  DeviceBuffer d_out(static_cast<std::size_t>(B * M) * sizeof(float));
  d_values.upload(values_bytes.data(), values_bytes.size());
  d_offsets.upload(offsets_bytes.data(), offsets_bytes.size());
  d_fc.upload(fc_bytes.data(), fc_bytes.size());
  test::wait_for_default_stream();  // the uploads land before the launches on `stream`

  std::size_t scratch_bytes = 0;
  for (const auto& c : jr::config_space()) {
    if (c.strategy != jr::Strategy::nnz_split) continue;
    jr::Problem p{.op = jr::Op::mean, .B = B, .M = M, .nnz = nnz, .dtype = DType::f32, .index = IndexType::i64};
    scratch_bytes = std::max(scratch_bytes, jr::workspace_bytes(c, p));
  }
  ASSERT_GT(scratch_bytes, 0u);
  DeviceBuffer scratch(scratch_bytes);
  CudaStream stream;
  // Zeroed in the launches' stream: a cudaMemset (legacy default stream) is not ordered before
  // kernels on this non-blocking stream.
  AOTUNE_CUDA_CHECK(cudaMemsetAsync(scratch.get(), 0, scratch_bytes, stream.get()));

  int launches = 0;
  for (jr::Op op : {jr::Op::sum, jr::Op::mean}) {
    // fp32 accumulation error grows with the summed magnitudes, so the tolerance is relative to
    // sum|x| over the row (divided by the length for mean), the scale the tuner's check uses too;
    // a masked column's scale is 0, so its output must be exactly 0.
    const jr::Reference r = jr::reference_with_scale(op, values, offsets, op == jr::Op::mean ? fc : std::vector<int64_t>{}, M);
    const std::vector<double>& ref = r.out;
    const std::vector<double>& scale = r.scale;
    for (const auto& c : jr::config_space()) {
      if (c.strategy != jr::Strategy::nnz_split) continue;
      const jr::Problem p{.op = op, .B = B, .M = M, .nnz = nnz, .dtype = DType::f32, .index = IndexType::i64,
                          .values = d_values.get(), .offsets = d_offsets.get(),
                          .feature_counts = op == jr::Op::mean ? d_fc.get() : nullptr, .out = d_out.get()};
      if (!jr::supports(c, p).ok) continue;
      for (int rep = 0; rep < 3; ++rep) {
        AOTUNE_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0xFF, d_out.bytes(), stream.get()));  // NaN
        jr::launch(c, p, scratch.get(), stream.get());
        stream.synchronize();
        ++launches;
        std::vector<float> out(static_cast<std::size_t>(B * M));
        d_out.download(out.data(), out.size() * sizeof(float));
        count_off_reference(out, ref, scale, M, jr::config_id(c) + " rep " + std::to_string(rep));
        const int64_t nonzero = nonzero_words(scratch, scratch_bytes);
        ASSERT_EQ(nonzero, 0) << jr::config_id(c) << " rep " << rep << " left " << nonzero
                              << " non-zero scratch words behind";
      }
    }
  }
  EXPECT_GE(launches, 2 * 3 * 3);  // every chunk size at least, twice over
}

}  // namespace
}  // namespace aotune
