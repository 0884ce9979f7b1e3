// CPU tests of jagged_sum / jagged_mean: config space, legality, validation and the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>

#include "kernels/common/errors.h"
#include "kernels/common/host_data.h"
#include "kernels/common/registry.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "kernels/jagged_reduce/jagged_reduce_flat_split_plan.h"

namespace aotune::jagged_reduce {
namespace {

using ::testing::HasSubstr;

Problem valid_problem() {
  Problem p;
  p.B = 4;
  p.M = 8;
  p.nnz = 10;
  p.values = reinterpret_cast<const void*>(std::uintptr_t{256});
  p.offsets = reinterpret_cast<const void*>(std::uintptr_t{512});
  p.out = reinterpret_cast<void*>(std::uintptr_t{1024});
  return p;
}

std::string validation_message(const Problem& p) {
  try {
    validate(p);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(JaggedReduceConfigSpace, HasAtLeast24ConfigsWithUniqueIds) {
  std::set<std::string> ids;
  for (const Config& c : config_space()) ids.insert(config_id(c));
  EXPECT_GE(config_space().size(), 24u);
  EXPECT_EQ(ids.size(), config_space().size());
}

TEST(JaggedReduceConfigSpace, EveryConfigRoundTripsThroughJson) {
  for (const Config& c : config_space()) EXPECT_EQ(config_from_json(to_json(c)), c) << config_id(c);
}

TEST(JaggedReduceSupports, RejectsVectorLoadsWhenMIsNotAMultipleOfVec) {
  Problem p = valid_problem();
  p.M = 6;
  const Legality l = supports({Strategy::block_row, 256, 4, 0}, p);
  EXPECT_FALSE(l.ok);
  EXPECT_THAT(l.reason, HasSubstr("M=6"));
  EXPECT_TRUE(supports({Strategy::block_row, 256, 2, 0}, p).ok);
}

TEST(JaggedReduceSupports, RejectsVectorLoadsOnMisalignedValues) {
  Problem p = valid_problem();
  p.values = reinterpret_cast<const void*>(std::uintptr_t{260});
  EXPECT_FALSE(supports({Strategy::group_row, 128, 4, 0}, p).ok);
  EXPECT_TRUE(supports({Strategy::group_row, 128, 1, 0}, p).ok);
}

TEST(JaggedReduceSupports, RejectsMoreThan16BytesPerLoad) {
  Problem p = valid_problem();
  EXPECT_FALSE(supports({Strategy::block_row, 256, 8, 0}, p).ok);  // 8 x f32 = 32 bytes
  p.dtype = DType::bf16;
  EXPECT_TRUE(supports({Strategy::block_row, 256, 8, 0}, p).ok);
}

TEST(JaggedReduceResolved, AutoVecIsTheWidestLegalVector) {
  Problem p = valid_problem();  // f32, M = 8, pointers 256-aligned
  const Config a{Strategy::block_row, 256, 0, 0};
  EXPECT_EQ(resolved(a, p).vec, 4);  // 8 x f32 would exceed 16 bytes
  p.dtype = DType::bf16;
  EXPECT_EQ(resolved(a, p).vec, 8);
  p.M = 6;
  EXPECT_EQ(resolved(a, p).vec, 2);
  p.M = 7;
  EXPECT_EQ(resolved(a, p).vec, 1);
  p.M = 8;
  p.out = reinterpret_cast<void*>(std::uintptr_t{1028});  // 4-byte aligned only
  EXPECT_EQ(resolved(a, p).vec, 2);
  EXPECT_TRUE(supports(a, p).ok);  // auto never picks an illegal width
  EXPECT_EQ(config_id(a), "block_row.t256.va");
  const Config fixed{Strategy::block_row, 256, 4, 0};
  EXPECT_EQ(resolved(fixed, p), fixed);  // nothing auto: unchanged
}

TEST(JaggedReduceResolved, AutoChunkSpreadsNnzOverTheSmsWithinItsClamp) {
  Problem p = valid_problem();
  const Config a{Strategy::nnz_split, 256, 2, 0};
  EXPECT_EQ(config_id(a), "nnz_split.t256.v2.ca");
  EXPECT_EQ(resolved(a, p).chunk, kAutoChunkMin);  // 80 elements: the smallest chunk
  p.nnz = int64_t{1} << 40;
  p.M = 64;
  EXPECT_EQ(resolved(a, p).chunk, kAutoChunkMax);  // 2^46 elements: the largest
  p.nnz = 4'000'000;
  p.M = 16;
  const int chunk = resolved(a, p).chunk;
  EXPECT_GT(chunk, kAutoChunkMin);
  EXPECT_LT(chunk, kAutoChunkMax);
  // About kAutoChunksPerSm blocks per SM on any GPU from 16 to 256 SMs.
  const int64_t blocks = p.nnz * p.M / chunk;
  EXPECT_GE(blocks, int64_t{kAutoChunksPerSm} * 16);
  EXPECT_LE(blocks, int64_t{kAutoChunksPerSm} * 256 + 1);
  EXPECT_EQ(nnz_split_grid(a, p).rows_per_chunk, chunk / p.M);
  // One wave: whole rows per chunk, and 3 blocks per SM instead of 4 for 16-byte loads (their
  // __launch_bounds__), so the wide config gets 3/4 as many chunks.
  EXPECT_EQ(chunk % p.M, 0);
  const Config wide{Strategy::nnz_split, 256, 4, 0};
  const int64_t narrow_chunks = nnz_split_grid(a, p).chunks, wide_chunks = nnz_split_grid(wide, p).chunks;
  EXPECT_NEAR(static_cast<double>(wide_chunks) / narrow_chunks, 0.75, 0.01);
}

TEST(JaggedReduceSupports, GroupRowSlotsMustFitOneWarpWithTheLanes) {
  Problem p = valid_problem();
  p.M = 32;  // f32: 32 lanes at vec 1, 8 at vec 4
  EXPECT_FALSE(supports({Strategy::group_row, 128, 1, 0, 2}, p).ok);
  const Legality l = supports({Strategy::group_row, 128, 1, 0, 2}, p);
  EXPECT_THAT(l.reason, HasSubstr("slots=2"));
  EXPECT_TRUE(supports({Strategy::group_row, 128, 4, 0, 4}, p).ok);   // 8 lanes x 4 slots
  EXPECT_FALSE(supports({Strategy::block_row, 128, 4, 0, 2}, p).ok);  // not a block_row knob
  EXPECT_EQ(config_id({Strategy::group_row, 128, 4, 0, 4}), "group_row.t128.v4.s4");
  p.M = 4;  // f32: 4 lanes at vec 1, 1 at vec 4
  EXPECT_TRUE(supports({Strategy::group_row, 128, 1, 0, 8}, p).ok);    // 4 lanes x 8 slots
  EXPECT_FALSE(supports({Strategy::group_row, 128, 1, 0, 16}, p).ok);  // 4 x 16 > 32
  EXPECT_TRUE(supports({Strategy::group_row, 128, 4, 0, 32}, p).ok);   // 1 lane x 32 slots
  EXPECT_EQ(config_id({Strategy::group_row, 128, 4, 0, 32}), "group_row.t128.v4.s32");
}

TEST(JaggedReduceConfigSpace, GroupRowSlotsReachAWholeWarpForNarrowRows) {
  std::set<int> slots;
  for (const Config& c : config_space())
    if (c.strategy == Strategy::group_row) slots.insert(c.slots);
  EXPECT_EQ(slots, (std::set<int>{1, 2, 4, 8, 16, 32}));
}

TEST(JaggedReduceSupports, FlatScanNeedsRowsThatDivideSixteenBytes) {
  Problem p = valid_problem();  // f32, pointers 256-aligned
  const Config c{Strategy::flat_scan, 256, 0, 0};
  EXPECT_EQ(config_id(c), "flat_scan.t256");
  for (int64_t m : {1, 2, 4}) {
    p.M = m;
    EXPECT_TRUE(supports(c, p).ok) << m;
  }
  p.M = 3;
  EXPECT_THAT(supports(c, p).reason, HasSubstr("M=3"));
  p.M = 8;  // 32 bytes of f32
  EXPECT_FALSE(supports(c, p).ok);
  p.dtype = DType::bf16;  // 16 bytes
  EXPECT_TRUE(supports(c, p).ok);
  p.M = 2;
  p.values = reinterpret_cast<const void*>(std::uintptr_t{264});  // 8-byte aligned: no 16-byte loads
  EXPECT_THAT(supports(c, p).reason, HasSubstr("values aligned to 16"));
  p.values = reinterpret_cast<const void*>(std::uintptr_t{256});
  p.out = reinterpret_cast<void*>(std::uintptr_t{1026});  // bf16 M=2 rows are 4 bytes
  EXPECT_THAT(supports(c, p).reason, HasSubstr("out aligned to 4"));
  p.out = reinterpret_cast<void*>(std::uintptr_t{1024});
  EXPECT_FALSE(supports({Strategy::flat_scan, 256, 2, 0}, p).ok);  // no vec knob
  EXPECT_FALSE(supports({Strategy::flat_scan, 1024, 0, 0}, p).ok);  // past its shared arrays
}

TEST(JaggedReduceSupports, FlatScanTilesAndWorkspace) {
  Problem p = valid_problem();
  p.M = 1;  // f32: 4 entries per vector, 4 vectors per thread
  EXPECT_EQ(flat_scan_tile({Strategy::flat_scan, 256, 0, 0}, p), 256 * 16);
  p.M = 2;  // f32: 2 entries per vector, 8 vectors per thread
  EXPECT_EQ(flat_scan_tile({Strategy::flat_scan, 256, 0, 0}, p), 256 * 16);
  p.M = 4;  // f32: 1 entry per vector, 8 vectors per thread
  EXPECT_EQ(flat_scan_tile({Strategy::flat_scan, 128, 0, 0}, p), 128 * 8);
  p.M = 2;
  p.dtype = DType::bf16;  // 4 entries per vector, 4 vectors per thread
  EXPECT_EQ(flat_scan_tile({Strategy::flat_scan, 128, 0, 0}, p), 128 * 16);
  p.M = 1;  // 8 entries per vector, 4 vectors per thread
  EXPECT_EQ(flat_scan_tile({Strategy::flat_scan, 128, 0, 0}, p), 128 * 32);
  p.M = 2;
  // fp32 accumulator [B, M] and one counter per row (B = 4, M = 2): 48 bytes, rounded to 16.
  EXPECT_EQ(workspace_bytes({Strategy::flat_scan, 128, 0, 0}, p), 48u);
  p.B = 0;
  EXPECT_EQ(workspace_bytes({Strategy::flat_scan, 128, 0, 0}, p), 0u);
}

TEST(JaggedReduceSupports, FlatRowNeedsNarrowRowsAndAPowerOfTwoLanes) {
  Problem p = valid_problem();  // f32, pointers 256-aligned
  const Config c{Strategy::flat_row, 128, 0, 0, 8};
  EXPECT_EQ(config_id(c), "flat_row.t128.s8");
  for (int64_t m : {1, 2, 4}) {
    p.M = m;
    EXPECT_TRUE(supports(c, p).ok) << m;
  }
  p.M = 8;  // 32 bytes of f32
  EXPECT_THAT(supports(c, p).reason, HasSubstr("flat_row needs M x element size to divide 16 bytes, got M=8"));
  p.dtype = DType::bf16;
  EXPECT_TRUE(supports(c, p).ok);
  p.values = reinterpret_cast<const void*>(std::uintptr_t{264});
  EXPECT_THAT(supports(c, p).reason, HasSubstr("flat_row needs values aligned to 16"));
  p.values = reinterpret_cast<const void*>(std::uintptr_t{256});
  EXPECT_THAT(supports({Strategy::flat_row, 128, 0, 0, 12}, p).reason, HasSubstr("got 12"));
  // Groups of whole warps, up to the block.
  EXPECT_TRUE(supports({Strategy::flat_row, 128, 0, 0, 64}, p).ok);
  EXPECT_TRUE(supports({Strategy::flat_row, 512, 0, 0, 512}, p).ok);
  EXPECT_THAT(supports({Strategy::flat_row, 128, 0, 0, 256}, p).reason,
              HasSubstr("a power of two from 2 that divides its 128 threads, got 256"));
  EXPECT_THAT(supports({Strategy::flat_row, 96, 0, 0, 64}, p).reason, HasSubstr("divides its 96 threads, got 64"));
  EXPECT_THAT(supports({Strategy::flat_row, 2048, 0, 0, 64}, p).reason, HasSubstr("up to 1024, got 2048"));
  EXPECT_THAT(supports({Strategy::flat_row, 128, 0, 0, 1}, p).reason, HasSubstr("got 1"));
  EXPECT_THAT(supports({Strategy::flat_row, 128, 2, 0, 8}, p).reason, HasSubstr("no vec or chunk"));
  EXPECT_THAT(supports({Strategy::flat_row, 96 + 1, 0, 0, 8}, p).reason, HasSubstr("multiple of 32 threads"));
  EXPECT_EQ(workspace_bytes(c, p), 0u);
  EXPECT_EQ(resolved(c, p), c);  // no auto field to fill: its loads are 16 bytes along the row
}

TEST(JaggedReduceConfigSpace, FlatRowTakesFourLanesToAWholeBlockPerRow) {
  std::set<int> lanes;
  for (const Config& c : config_space()) {
    if (c.strategy != Strategy::flat_row) continue;
    lanes.insert(c.slots);
    EXPECT_EQ(c.threads, c.slots <= 32 ? 128 : 512) << config_id(c);
    EXPECT_EQ(config_from_json(to_json(c)), c);
  }
  EXPECT_EQ(lanes, (std::set<int>{4, 8, 16, 32, 64, 128, 256, 512}));
}

TEST(JaggedReduceSupports, FlatSplitTakesNarrowRowsAndSplitsOnlyRowsPastItsShare) {
  Problem p = valid_problem();  // f32
  p.B = 1000;
  p.M = 4;
  p.nnz = 1'000'000;
  const Config c{Strategy::flat_split, kFlatSplitThreads, 0, 0, 8};
  EXPECT_EQ(config_id(c), "flat_split.t256.s8");
  EXPECT_EQ(config_from_json(to_json(c)), c);
  EXPECT_TRUE(supports(c, p).ok) << supports(c, p).reason;
  EXPECT_EQ(resolved(c, p), c);  // no auto field
  EXPECT_EQ(workspace_bytes(c, p) % 16, 0u);
  EXPECT_EQ(workspace_bytes(c, p), 1000u * 4 * 4 + 1000 * 4);  // flat_scan's: [B, M] sums, B counters
  // 32 rows of 8 lanes per block; ranges of an equal share over 4 split blocks per SM, long past
  // a range.
  FlatSplitGrid g = flat_split_grid(c, p, 132);
  EXPECT_EQ(g.row_blocks, 32);
  EXPECT_EQ(g.range, (1'000'000 + 527) / 528);
  EXPECT_EQ(g.split_blocks, (1'000'000 + g.range - 1) / g.range);
  EXPECT_EQ(g.long_len, g.range);
  // A small problem: ranges of at least one vector (one f32 entry) per thread; long past a range,
  // and with 32 lanes per row past kFlatSplitMinSteps steps of the row's group (32 lanes x 4
  // vectors of one f32 entry each).
  p.nnz = 5000;
  g = flat_split_grid(c, p, 132);
  EXPECT_EQ(g.range, kFlatSplitThreads);
  EXPECT_EQ(g.split_blocks, (5000 + kFlatSplitThreads - 1) / kFlatSplitThreads);
  EXPECT_EQ(g.long_len, kFlatSplitThreads);
  EXPECT_EQ(flat_split_grid({Strategy::flat_split, kFlatSplitThreads, 0, 0, 32}, p, 132).long_len,
            int64_t{kFlatSplitMinSteps} * 32 * kFlatRowVectors * 1);
  // No values: no split block.
  p.nnz = 0;
  EXPECT_EQ(flat_split_grid(c, p, 132).split_blocks, 0);
  // At most kFlatSplitMaxSplitBlocks split blocks, whatever the SM count.
  p.nnz = int64_t{1} << 30;
  EXPECT_EQ(flat_split_grid(c, p, 100'000).split_blocks, kFlatSplitMaxSplitBlocks);
  p.nnz = 5000;
  // A block takes the part of the row holding its range's start, the row's head too when the row
  // starts after the previous range's start; arrivals count the range starts inside the row.
  EXPECT_EQ(flat_split_part(0, 1000, 0, 300).from, 0);
  EXPECT_EQ(flat_split_part(0, 1000, 0, 300).to, 300);
  EXPECT_EQ(flat_split_part(250, 1000, 300, 300).from, 250);  // head [250, 300) and [300, 600)
  EXPECT_EQ(flat_split_part(250, 1000, 600, 300).from, 600);
  EXPECT_EQ(flat_split_part(250, 1000, 900, 300).to, 1000);
  EXPECT_EQ(flat_split_others(250, 1000, 300), 2u);  // range starts 300, 600, 900
  EXPECT_EQ(flat_split_others(300, 1000, 300), 2u);
  EXPECT_EQ(flat_split_others(300, 900, 300), 1u);
  // bf16 at M = 1: eight entries per vector.
  p.dtype = DType::bf16;
  p.M = 1;
  EXPECT_EQ(flat_split_grid(c, p, 132).range, kFlatSplitThreads * 8);
  EXPECT_EQ(flat_split_grid(c, p, 132).long_len, kFlatSplitThreads * 8);
  EXPECT_TRUE(supports(c, p).ok) << supports(c, p).reason;
  p.M = 16;
  EXPECT_THAT(supports(c, p).reason, HasSubstr("flat_split needs M x element size to divide 16 bytes"));
  p.M = 8;
  EXPECT_THAT(supports({Strategy::flat_split, 128, 0, 0, 8}, p).reason, HasSubstr("blocks of 256 threads, got 128"));
  EXPECT_THAT(supports({Strategy::flat_split, kFlatSplitThreads, 0, 0, 64}, p).reason,
              HasSubstr("power of two from 2 to 32, got 64"));
  EXPECT_THAT(supports({Strategy::flat_split, kFlatSplitThreads, 4, 0, 8}, p).reason, HasSubstr("no vec or chunk"));
  p.values = reinterpret_cast<const void*>(std::uintptr_t{264});
  EXPECT_THAT(supports(c, p).reason, HasSubstr("values aligned to 16 bytes"));
}

TEST(JaggedReduceValidate, NamesEachBadInputAndItsValue) {
  Problem p = valid_problem();
  p.M = 0;
  EXPECT_THAT(validation_message(p), HasSubstr("M must be >= 1, got 0"));
  p = valid_problem();
  p.B = -3;
  EXPECT_THAT(validation_message(p), HasSubstr("B must be >= 0, got -3"));
  p = valid_problem();
  p.values = nullptr;
  EXPECT_THAT(validation_message(p), HasSubstr("values is a null pointer with nnz=10"));
  p = valid_problem();
  p.out = nullptr;
  EXPECT_THAT(validation_message(p), HasSubstr("out is a null pointer with B=4"));
  p = valid_problem();
  p.nnz = int64_t{1} << 60;
  EXPECT_THAT(validation_message(p), HasSubstr("nnz*M overflows"));
  p = valid_problem();
  p.index = IndexType::i32;
  p.nnz = int64_t{3} << 31;
  p.M = 1;
  EXPECT_THAT(validation_message(p), HasSubstr("does not fit int32"));
  EXPECT_EQ(validation_message(valid_problem()), "");
}

TEST(JaggedReduceReference, SumsAndAveragesRowsWithFeatureCountMasking) {
  // Rows: [0,2) and [2,2) (empty) and [2,3); M = 2.
  const std::vector<double> values = {1, 2, 3, 4, 5, 6};
  const std::vector<int64_t> offsets = {0, 2, 2, 3};
  EXPECT_EQ(reference(Op::sum, values, offsets, {}, 2), (std::vector<double>{4, 6, 0, 0, 5, 6}));
  EXPECT_EQ(reference(Op::mean, values, offsets, {1, 2, 2}, 2), (std::vector<double>{2, 0, 0, 0, 5, 6}));
}

// Rows for the reference tests: every fifth empty, row `huge` of huge_len entries, the rest
// shorter than max_len; feature counts 0..M.
struct ReferenceRows {
  std::vector<int64_t> offsets, fc;
};
ReferenceRows rows_for_reference_tests(int64_t B, int64_t M, int64_t huge, int64_t huge_len,
                                       int64_t max_len, std::mt19937_64& rng) {
  ReferenceRows r{std::vector<int64_t>(B + 1, 0), std::vector<int64_t>(B)};
  for (int64_t b = 0; b < B; ++b) {
    const int64_t len =
        b == huge ? huge_len : (b % 5 == 0 ? 0 : static_cast<int64_t>(rng() % max_len));
    r.offsets[b + 1] = r.offsets[b] + len;
    r.fc[b] = static_cast<int64_t>(rng() % (M + 1));
  }
  return r;
}

// The tuner's reference walks each row once along M, on every host thread, with the error scale
// in the same pass. Against a column-at-a-time walk written here: the same bits (every output is
// still summed over its elements in order from 0.0), on enough values (over 8 Mi) that the rows are
// split over threads, with empty rows, one long row, masked columns, odd M.
TEST(JaggedReduceReference, RowParallelPassEqualsAColumnWalkBitForBit) {
  const int64_t M = 37, B = 6000;
  std::mt19937_64 rng(20);
  const ReferenceRows rows = rows_for_reference_tests(B, M, 7, 20000, 90, rng);
  const std::vector<int64_t>& offsets = rows.offsets;
  const std::vector<int64_t>& fc = rows.fc;
  std::vector<double> values(static_cast<std::size_t>(offsets[B] * M));
  for (double& v : values) v = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000) / 7.0;
  ASSERT_GT(values.size(), std::size_t{8} << 20);  // several threads even on a 2-core machine
  auto column_walk = [&](Op op, bool magnitudes, const std::vector<int64_t>& counts) {
    std::vector<double> out(static_cast<std::size_t>(B * M), 0.0);
    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = offsets[b + 1] - offsets[b];
      for (int64_t m = 0; m < (counts.empty() ? M : counts[b]); ++m) {
        double acc = 0;
        for (int64_t e = offsets[b]; e < offsets[b + 1]; ++e) {
          const double v = values[e * M + m];
          acc += magnitudes ? std::abs(v) : v;
        }
        out[b * M + m] = op == Op::mean ? (len > 0 ? acc / static_cast<double>(len) : 0.0) : acc;
      }
    }
    return out;
  };
  for (Op op : {Op::sum, Op::mean}) {
    const std::vector<int64_t> counts = op == Op::mean ? fc : std::vector<int64_t>{};
    const Reference r = reference_with_scale(op, values, offsets, counts, M);
    EXPECT_TRUE(r.out == column_walk(op, false, counts)) << (op == Op::sum ? "sum" : "mean");
    EXPECT_TRUE(r.scale == column_walk(op, true, counts)) << (op == Op::sum ? "sum" : "mean");
    EXPECT_TRUE(reference(op, values, offsets, counts, M) == r.out);
  }
}

// The tuner's workload keeps its values in the device's encoding and the reference decodes each
// row entry as it adds it: the same bits as the reference on the decoded float64 values, in every
// dtype, with empty rows, one long row, masked columns and odd M, over enough values (over 2 Mi)
// that rows go to several threads.
TEST(JaggedReduceReference, FromEncodedValuesEqualsFromTheirDoublesBitForBit) {
  const int64_t M = 37, B = 3000;
  std::mt19937_64 rng(23);
  const ReferenceRows rows = rows_for_reference_tests(B, M, 11, 30000, 40, rng);
  const std::vector<int64_t>& offsets = rows.offsets;
  const std::vector<int64_t>& fc = rows.fc;
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    std::mt19937_64 draw(24);
    const EncodedValues encoded = random_encoded(static_cast<std::size_t>(offsets[B] * M), t, draw, 0.5, 2.0);
    ASSERT_GT(encoded.size(), std::size_t{2} << 20);
    std::vector<double> values(encoded.size());
    encoded.decode_to(0, values.size(), values.data());
    for (Op op : {Op::sum, Op::mean}) {
      const std::vector<int64_t> counts = op == Op::mean ? fc : std::vector<int64_t>{};
      const Reference a = reference_with_scale(op, encoded, offsets, counts, M);
      const Reference b = reference_with_scale(op, values, offsets, counts, M);
      EXPECT_TRUE(a.out == b.out) << to_string(t);
      EXPECT_TRUE(a.scale == b.scale) << to_string(t);
    }
  }
}

TEST(JaggedReduceKernel, DescribeIsDeterministicAndCountsBytes) {
  const TunableKernel& k = find_kernel("jagged_sum");
  const nlohmann::json shape = {{"B", 100}, {"M", 16}, {"len", 10}, {"dist", "powerlaw"}, {"seed", 5}};
  const ProblemInfo a = k.describe(shape), b = k.describe(shape);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.features, b.features);
  EXPECT_EQ(a.legality.size(), k.num_configs());
  EXPECT_GT(a.bytes_moved, 0);
}

TEST(JaggedReduceKernel, EveryTestShapeHasALegalConfig) {
  for (const char* name : {"jagged_sum", "jagged_mean"}) {
    const TunableKernel& k = find_kernel(name);
    for (const auto& shape : k.test_shapes()) {
      const ProblemInfo info = k.describe(shape);
      bool any = false;
      for (const auto& l : info.legality) any = any || l.ok;
      EXPECT_TRUE(any) << name << " " << shape.dump();
    }
  }
}

TEST(JaggedReduceKernel, RejectsAShapeWithAnUnknownDistribution) {
  const TunableKernel& k = find_kernel("jagged_mean");
  try {
    k.describe({{"B", 4}, {"M", 4}, {"len", 3}, {"dist", "zipf"}});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'zipf'"));
  }
}

// max_vec (session 57): the widest vector M allows, within 16 bytes. It replaced m_mod_8, on
// which no threshold separates odd M from M = 2, 4, 6 mod 8.
TEST(JaggedReduceFeatures, MaxVecIsTheLargestPowerOfTwoDividingMWithin16Bytes) {
  const auto max_vec = [](DType dt, int64_t m) {
    for (const auto& [name, value] : features(dt, 8, m, 8 * 3, 3))
      if (name == "max_vec") return value;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(max_vec(DType::f32, 12), 4.0);
  EXPECT_DOUBLE_EQ(max_vec(DType::f32, 64), 4.0);  // 16 bytes of f32
  EXPECT_DOUBLE_EQ(max_vec(DType::f16, 64), 8.0);
  EXPECT_DOUBLE_EQ(max_vec(DType::bf16, 18), 2.0);
  EXPECT_DOUBLE_EQ(max_vec(DType::f16, 492), 4.0);  // session 56's 2.0x miss: M = 4 mod 8
  EXPECT_DOUBLE_EQ(max_vec(DType::f32, 441), 1.0);
  EXPECT_DOUBLE_EQ(max_vec(DType::f16, 0), 8.0);  // no columns: no division, the widest
}

}  // namespace
}  // namespace aotune::jagged_reduce
