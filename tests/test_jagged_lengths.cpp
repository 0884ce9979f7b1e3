// CPU tests of the reproducible row-length distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "kernels/common/errors.h"
#include "kernels/common/jagged_lengths.h"

namespace aotune {
namespace {

double mean_of(const std::vector<int64_t>& v) {
  return v.empty() ? 0.0 : static_cast<double>(std::accumulate(v.begin(), v.end(), int64_t{0})) / v.size();
}

TEST(JaggedLengths, SameSeedGivesSameLengthsAndOtherSeedsDiffer) {
  EXPECT_EQ(make_jagged_lengths(1000, 50, LengthDist::powerlaw, 7, 1 << 20),
            make_jagged_lengths(1000, 50, LengthDist::powerlaw, 7, 1 << 20));
  EXPECT_NE(make_jagged_lengths(1000, 50, LengthDist::powerlaw, 7, 1 << 20),
            make_jagged_lengths(1000, 50, LengthDist::powerlaw, 8, 1 << 20));
}

TEST(JaggedLengths, EveryDistributionKeepsRoughlyTheRequestedMean) {
  for (auto d : {LengthDist::uniform, LengthDist::tritonbench, LengthDist::one_huge, LengthDist::many_empty,
                 LengthDist::fixed}) {
    const auto len = make_jagged_lengths(20000, 100, d, 3, 1 << 30);
    EXPECT_NEAR(mean_of(len), 100.0, 5.0) << to_string(d);
  }
  // Power law is heavy-tailed: its sample mean converges slowly.
  EXPECT_NEAR(mean_of(make_jagged_lengths(20000, 100, LengthDist::powerlaw, 3, 1 << 30)), 100.0, 35.0);
}

TEST(JaggedLengths, OneHugeRowHoldsMostElementsAndManyEmptyHasEmptyRows) {
  const auto huge = make_jagged_lengths(100, 100, LengthDist::one_huge, 1, 1 << 30);
  EXPECT_GE(*std::max_element(huge.begin(), huge.end()), 8000);
  const auto empty = make_jagged_lengths(1000, 10, LengthDist::many_empty, 1, 1 << 30);
  EXPECT_GE(std::count(empty.begin(), empty.end(), 0), 700);
}

TEST(JaggedLengths, NoLengthExceedsTheCap) {
  const auto len = make_jagged_lengths(5000, 1000, LengthDist::powerlaw, 2, 1500);
  EXPECT_LE(*std::max_element(len.begin(), len.end()), 1500);
}

TEST(JaggedLengths, UnknownDistributionNameIsRejectedByName) {
  EXPECT_THROW(parse_length_dist("gaussian"), InvalidArgument);
  EXPECT_EQ(parse_length_dist("one_huge"), LengthDist::one_huge);
}

}  // namespace
}  // namespace aotune
