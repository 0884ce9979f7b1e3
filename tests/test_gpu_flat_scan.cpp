// jagged_sum / jagged_mean flat_scan on inputs large enough that every block walks several tiles
// (the carry of an open row from one tile to the next, and tiles that lie wholly inside a row)
// and rows spread over several blocks (the workspace protocol): the kernel's test shapes are too
// small for either, since a small input gets one tile per block. Two layouts, a mix of row
// lengths and one row holding most entries (whole blocks inside it), in fp32 and bf16.
// flat_split on the same inputs: the mixed layout has hundreds of long rows (heads taken by the
// block after the range they start in), the other one long row over every split block, and the
// longest row of each is masked for jagged_mean (never split).
// Repeated launches on one scratch give the reference every time and leave the scratch all zero.
// Skipped without a GPU.
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

// About `target` entries in a mix of runs of empty rows, short rows, rows of a few hundred and rows
// of 10^4-3x10^5 entries (over many tiles, and over blocks once a block walks several tiles).
std::vector<int64_t> mixed_offsets(int64_t target, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> offsets = {0};
  while (offsets.back() < target) {
    const uint64_t kind = rng() % 100;
    int64_t len = 0;
    if (kind < 15) {
      len = 0;
    } else if (kind < 80) {
      len = 1 + static_cast<int64_t>(rng() % 24);
    } else if (kind < 98) {
      len = 100 + static_cast<int64_t>(rng() % 900);
    } else {
      len = 10000 + static_cast<int64_t>(rng() % 300000);
    }
    offsets.push_back(offsets.back() + len);
  }
  for (int i = 0; i < 5; ++i) offsets.push_back(offsets.back());  // empty rows at nnz
  return offsets;
}

// About `target` entries: 30 % in rows of 0-40 entries, then one row of 70 % (over hundreds of
// blocks, whose tiles all lie inside it), then more short rows.
std::vector<int64_t> one_huge_offsets(int64_t target, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> offsets = {0};
  auto short_rows = [&](int64_t upto) {
    while (offsets.back() < upto) offsets.push_back(offsets.back() + static_cast<int64_t>(rng() % 41));
  };
  short_rows(target * 15 / 100);
  offsets.push_back(offsets.back() + target * 70 / 100 + 13);  // odd, so it ends inside a tile
  short_rows(target);
  offsets.push_back(offsets.back());  // an empty row at nnz
  return offsets;
}

TEST(FlatScanTiles, ManyTilesPerBlockAndRowsOverBlocksMatchTheReferenceAndLeaveTheScratchZero) {
  const auto spreads_rows = [](const jr::Config& c) {
    return c.strategy == jr::Strategy::flat_scan || c.strategy == jr::Strategy::flat_split;
  };
  int configs = 0;
  for (const auto& c : jr::config_space()) configs += spreads_rows(c) ? 1 : 0;
  AOTUNE_REQUIRE_GPU();
  CudaStream stream;
  int launches = 0;
  for (DType dtype : {DType::f32, DType::bf16})
    for (bool one_huge : {false, true})
      for (int64_t M : {1, 2, 4}) {
        // 12-24 MB in fp32: more 16-byte tiles than an H200 holds blocks of any size, so blocks walk
        // 2+ tiles.
        const uint64_t seed = 17 + static_cast<uint64_t>(M) + (one_huge ? 100 : 0);
        const std::vector<int64_t> offsets =
            one_huge ? one_huge_offsets(6'000'000 / M, seed) : mixed_offsets(6'000'000 / M, seed);
        const int64_t B = static_cast<int64_t>(offsets.size()) - 1, nnz = offsets.back();
        const std::string what = std::string(dtype == DType::f32 ? "f32" : "bf16") +
                                 (one_huge ? " one huge row" : " mixed rows") + " M=" + std::to_string(M);
        std::mt19937_64 rng(static_cast<uint64_t>(M));
        const std::vector<double> values = random_values(static_cast<std::size_t>(nnz * M), dtype, rng);
        std::vector<int64_t> fc(static_cast<std::size_t>(B));
        for (auto& f : fc) f = static_cast<int64_t>(rng() % static_cast<uint64_t>(M + 1));
        // The longest row (over several blocks) without features: blocks whose whole range lies in
        // it skip it (jagged_mean), still arriving for it and writing the empty rows they own.
        std::size_t longest = 0;
        for (std::size_t r = 0; r + 1 < offsets.size(); ++r)
          if (offsets[r + 1] - offsets[r] > offsets[longest + 1] - offsets[longest]) longest = r;
        fc[longest] = 0;
        const auto values_bytes = encode(values, dtype);
        const auto offsets_bytes = encode_index(offsets, IndexType::i64);
        const auto fc_bytes = encode_index(fc, IndexType::i64);
        const std::size_t out_bytes = static_cast<std::size_t>(B * M) * dtype_size(dtype);
        DeviceBuffer d_values(values_bytes.size()), d_offsets(offsets_bytes.size()), d_fc(fc_bytes.size());
        DeviceBuffer d_out(out_bytes);
        d_values.upload(values_bytes.data(), values_bytes.size());
        d_offsets.upload(offsets_bytes.data(), offsets_bytes.size());
        d_fc.upload(fc_bytes.data(), fc_bytes.size());
        test::wait_for_default_stream();  // the uploads land before the launches on `stream`
        const jr::Problem shape{.B = B, .M = M, .nnz = nnz, .dtype = dtype, .index = IndexType::i64};
        std::size_t scratch_bytes = 0;
        for (const auto& c : jr::config_space())
          if (spreads_rows(c)) scratch_bytes = std::max(scratch_bytes, jr::workspace_bytes(c, shape));
        DeviceBuffer scratch(scratch_bytes);
        // In the launches' stream: a cudaMemset (legacy default stream) is not ordered before
        // kernels on the non-blocking `stream`.
        AOTUNE_CUDA_CHECK(cudaMemsetAsync(scratch.get(), 0, scratch_bytes, stream.get()));

        for (jr::Op op : {jr::Op::sum, jr::Op::mean}) {
          const std::vector<int64_t> op_fc = op == jr::Op::mean ? fc : std::vector<int64_t>{};
          // The tolerance's scale is sum|x| per output (the tuner check's); 0 for a masked column,
          // whose output must then be exactly 0.
          const jr::Reference r = jr::reference_with_scale(op, values, offsets, op_fc, M);
          const std::vector<double>& ref = r.out;
          const std::vector<double>& scale = r.scale;
          for (const auto& c : jr::config_space()) {
            if (!spreads_rows(c)) continue;
            jr::Problem p = shape;
            p.op = op;
            p.values = d_values.get();
            p.offsets = d_offsets.get();
            p.feature_counts = op == jr::Op::mean ? d_fc.get() : nullptr;
            p.out = d_out.get();
            ASSERT_TRUE(jr::supports(c, p).ok) << jr::config_id(c) << ": " << jr::supports(c, p).reason;
            ASSERT_LE(jr::workspace_bytes(c, p), scratch_bytes);
            for (int rep = 0; rep < 2; ++rep) {
              AOTUNE_CUDA_CHECK(cudaMemsetAsync(d_out.get(), 0xFF, d_out.bytes(), stream.get()));  // NaN
              jr::launch(c, p, scratch.get(), stream.get());
              stream.synchronize();
              ++launches;
              std::vector<std::byte> out_raw(out_bytes);
              d_out.download(out_raw.data(), out_bytes);
              const std::vector<double> decoded = decode(out_raw, dtype);
              const std::vector<float> out(decoded.begin(), decoded.end());
              const std::string label = jr::config_id(c) + " " + what + (op == jr::Op::sum ? " sum" : " mean") +
                                        " rep " + std::to_string(rep);
              const int bad = count_off_reference(out, ref, scale, M, label, dtype == DType::f32 ? 0.0 : 1.0 / 256);
              EXPECT_EQ(bad, 0) << label;
              const int64_t nonzero = nonzero_words(scratch, scratch_bytes);
              ASSERT_EQ(nonzero, 0) << label << " left " << nonzero << " non-zero scratch words behind";
            }
          }
        }
      }
  EXPECT_EQ(configs, 3 + 4);  // flat_scan's block sizes, flat_split's lanes per row
  EXPECT_EQ(launches, 2 * 2 * 3 * 2 * configs * 2);  // dtype x layout x M x op x config x rep
}

}  // namespace
}  // namespace aotune
