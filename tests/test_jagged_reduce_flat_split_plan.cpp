// flat_split's division of the long rows among its split blocks, simulated on the host with the
// functions the kernel runs (jagged_reduce_flat_split_plan.h) and the launch's grid
// (flat_split_grid): over every length distribution, with masked rows at random, every block's
// range starts inside the values, every entry of every long row is taken by exactly one split
// block (the one whose range start falls in the row, or the next one for the row's head), and
// each long row's arrival count is the number of blocks that take part of it. The GPU tests check
// the kernel's outputs; this checks the bookkeeping on many more problems.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/common/jagged_lengths.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "kernels/jagged_reduce/jagged_reduce_flat_split_plan.h"

namespace aotune::jagged_reduce {
namespace {

TEST(FlatSplitPlan, EveryLongRowEntryGoesToOneSplitBlockAndArrivalsCountThem) {
  std::mt19937_64 rng(42);
  int problems = 0, with_long_rows = 0;
  for (LengthDist dist : {LengthDist::uniform, LengthDist::tritonbench, LengthDist::powerlaw, LengthDist::one_huge,
                          LengthDist::many_empty, LengthDist::fixed})
    for (int64_t B : {1, 5, 300, 5000})
      for (int64_t mean_len : {1, 64, 3000})
        for (int64_t M : {1, 4})
          for (int slots : {4, 32})
            for (int64_t sms : {1, 132, 2000}) {
              const std::vector<int64_t> lens = make_jagged_lengths(B, mean_len, dist, rng(), int64_t{1} << 40);
              std::vector<int64_t> offsets(1, 0);
              for (const int64_t len : lens) offsets.push_back(offsets.back() + len);
              Problem p;
              p.B = B;
              p.M = M;
              p.nnz = offsets.back();
              const Config c{Strategy::flat_split, kFlatSplitThreads, 0, 0, slots};
              const FlatSplitGrid g = flat_split_grid(c, p, sms);
              ++problems;
              ASSERT_EQ(g.row_blocks, (B + kFlatSplitThreads / slots - 1) / (kFlatSplitThreads / slots));
              ASSERT_LE(g.split_blocks, kFlatSplitMaxSplitBlocks);
              ASSERT_GE(g.split_blocks * g.range, p.nnz) << "every entry lies in some block's range";
              ASSERT_LE(g.range, g.long_len) << "a long row is longer than a range";
              std::vector<int64_t> cols(static_cast<std::size_t>(B));
              for (int64_t& k : cols) k = static_cast<int64_t>(rng() % static_cast<uint64_t>(M + 1));
              std::vector<int64_t> taken(static_cast<std::size_t>(B), 0);
              std::vector<unsigned> blocks(static_cast<std::size_t>(B), 0);
              for (int64_t j = 0; j < g.split_blocks; ++j) {
                const int64_t lo = j * g.range;
                ASSERT_LT(lo, p.nnz) << "block " << j << "'s range starts past the values";
                // The row holding entry lo (block_find_row): the last row starting at or before it.
                const auto r = static_cast<std::size_t>(
                    std::upper_bound(offsets.begin(), offsets.end(), lo) - offsets.begin() - 1);
                const int64_t rs = offsets[r], re = offsets[r + 1];
                ASSERT_TRUE(rs <= lo && lo < re);
                if (!flat_split_is_long(re - rs, cols[r], g.long_len)) continue;
                const FlatSplitPart part = flat_split_part(rs, re, lo, g.range);
                ASSERT_TRUE(rs <= part.from && part.from <= lo && lo < part.to && part.to <= re)
                    << "block " << j << " takes [" << part.from << ", " << part.to << ") of row [" << rs << ", " << re << ")";
                ASSERT_LE(part.to - part.from, 2 * g.range);
                taken[r] += part.to - part.from;
                ++blocks[r];
              }
              bool any = false;
              for (std::size_t r = 0; r < lens.size(); ++r) {
                if (!flat_split_is_long(lens[r], cols[r], g.long_len)) {
                  EXPECT_EQ(blocks[r], 0u) << "a short or masked row is its group's alone";
                  continue;
                }
                any = true;
                EXPECT_EQ(taken[r], lens[r]) << "row " << r;
                EXPECT_EQ(blocks[r], flat_split_others(offsets[r], offsets[r + 1], g.range) + 1) << "row " << r;
              }
              with_long_rows += any ? 1 : 0;
            }
  EXPECT_EQ(problems, 6 * 4 * 3 * 2 * 2 * 3);
  EXPECT_GT(with_long_rows, problems / 6);  // the simulation is not vacuous
}

TEST(FlatSplitPlan, RolesSpreadTheSplitBlocksOverTheGridAndNumberEachRoleOnce) {
  for (int64_t split : {0, 1, 3, 528, 4096})
    for (int64_t rows : {1, 2, 128, 529, 70'000}) {
      const int64_t blocks = split + rows;
      std::vector<int> split_seen(static_cast<std::size_t>(split), 0), row_seen(static_cast<std::size_t>(rows), 0);
      int64_t splits_so_far = 0;
      for (int64_t i = 0; i < blocks; ++i) {
        const FlatSplitRole role = flat_split_role(i, split, blocks);
        if (role.split) {
          ASSERT_LT(role.index, split);
          ++split_seen[static_cast<std::size_t>(role.index)];
          ++splits_so_far;
        } else {
          ASSERT_LT(role.index, rows) << "block " << i << " of " << split << " + " << rows;
          ++row_seen[static_cast<std::size_t>(role.index)];
        }
        // Evenly spread: the first k blocks hold floor(k x split / blocks) split blocks.
        ASSERT_EQ(splits_so_far, (i + 1) * split / blocks);
      }
      for (int n : split_seen) ASSERT_EQ(n, 1);
      for (int n : row_seen) ASSERT_EQ(n, 1);
    }
}

}  // namespace
}  // namespace aotune::jagged_reduce
