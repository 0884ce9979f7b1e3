// CPU tests of the shared pieces: dtypes, host encoding, the reference comparison, shape specs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cuda_bf16.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/errors.h"
#include "kernels/common/host_data.h"
#include "kernels/common/reference_check.h"
#include "kernels/common/shape_spec.h"

namespace aotune {
namespace {

using ::testing::HasSubstr;

TEST(DType, ParsesEveryNameAndRejectsUnknownOnesByName) {
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("float16"), DType::f16);
  try {
    parse_dtype("f8");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'f8'"));
  }
}

TEST(HostData, EncodeDecodeIsExactForValuesAlreadyRoundedToTheType) {
  std::mt19937_64 rng(1);
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    const auto v = random_values(1000, t, rng, -20.0, 3.0);
    EXPECT_EQ(decode(encode(v, t), t), v) << to_string(t);
  }
}

// Value i depends on the caller's rng state and i alone: arrays built in different chunkings
// (4 Mi and 5 Mi values split over the host threads at different boundaries; inline below 2 Mi)
// agree element by element, and the caller's rng moves on by exactly one draw whatever n is
// (jagged_mean draws its feature counts next).
TEST(HostData, RandomValuesDependOnTheSeedAloneNotOnTheThreadCount) {
  for (DType t : {DType::f32, DType::bf16}) {
    std::mt19937_64 a(7), b(7), c(7), one_draw(7);
    const auto small = random_values(1000, t, a, 0.5, 2.0);
    const auto four = random_values(std::size_t{4} << 20, t, b, 0.5, 2.0);
    const auto five = random_values(std::size_t{5} << 20, t, c, 0.5, 2.0);
    ASSERT_EQ(four.size(), std::size_t{4} << 20);
    EXPECT_TRUE(std::equal(small.begin(), small.end(), five.begin())) << to_string(t);
    EXPECT_TRUE(std::equal(four.begin(), four.end(), five.begin())) << to_string(t);
    one_draw.discard(1);
    const uint64_t next = one_draw();
    EXPECT_EQ(a(), next) << to_string(t);
    EXPECT_EQ(b(), next) << to_string(t);
    EXPECT_EQ(c(), next) << to_string(t);
    std::mt19937_64 other(8);
    EXPECT_NE(random_values(1000, t, other, 0.5, 2.0), small) << "another seed, the same values";
  }
  std::mt19937_64 rng(9), untouched(9);
  EXPECT_TRUE(random_values(0, DType::f32, rng).empty());
  untouched.discard(1);
  EXPECT_EQ(rng(), untouched()) << "n = 0 still takes its one draw";
}

// Uniform on [mean - spread, mean + spread]: 1 Mi f32 values stay inside, their mean is within
// 0.005 of `mean` (the standard error is 0.0011), and each tenth of the range holds 10 % ± 0.3 %
// of them (about 10 standard errors of a bin count).
TEST(HostData, RandomValuesAreUniformOnTheirRange) {
  std::mt19937_64 rng(11);
  const std::size_t n = std::size_t{1} << 20;
  const auto v = random_values(n, DType::f32, rng, 0.5, 2.0);
  std::vector<std::size_t> bins(10, 0);
  double sum = 0;
  for (double x : v) {
    ASSERT_GE(x, -1.5);
    ASSERT_LE(x, 2.5);
    sum += x;
    ++bins[std::min<std::size_t>(9, static_cast<std::size_t>((x + 1.5) / 0.4))];
  }
  EXPECT_NEAR(sum / static_cast<double>(n), 0.5, 0.005);
  for (std::size_t b = 0; b < bins.size(); ++b) {
    EXPECT_NEAR(static_cast<double>(bins[b]) / static_cast<double>(n), 0.1, 0.003) << "bin " << b;
  }
}

TEST(HostData, EncodeOfManyValuesIsEncodeOfEachValue) {
  std::mt19937_64 rng(3);
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    const auto v = random_values(std::size_t{5} << 20, t, rng);
    const auto bytes = encode(v, t);
    const std::size_t size = dtype_size(t);
    ASSERT_EQ(bytes.size(), v.size() * size);
    for (std::size_t i : {std::size_t{0}, v.size() / 3, v.size() / 2 + 1, v.size() - 1}) {
      const auto one = encode({v[i]}, t);
      EXPECT_TRUE(
          std::equal(one.begin(), one.end(), bytes.begin() + static_cast<std::ptrdiff_t>(i * size)))
          << to_string(t) << " value " << i;
    }
    EXPECT_EQ(decode(bytes, t), v) << to_string(t);
  }
}

// random_encoded is the device-side form of random_values: the same draw of the caller's rng
// gives the bytes encode() makes of random_values' doubles, and reads back as those doubles,
// whether the array is filled inline (1000) or over the host threads (5 Mi).
TEST(HostData, RandomEncodedIsTheEncodingOfRandomValues) {
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1000}, std::size_t{5} << 20}) {
      std::mt19937_64 a(21), b(21);
      const EncodedValues e = random_encoded(n, t, a, -20.0, 3.0);
      const std::vector<double> v = random_values(n, t, b, -20.0, 3.0);
      EXPECT_EQ(a(), b()) << "one draw each";
      ASSERT_EQ(e.size(), n);
      ASSERT_EQ(e.bytes(), n * dtype_size(t));
      EXPECT_EQ(e.dtype(), t);
      const std::vector<std::byte> bytes = encode(v, t);
      EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), e.data())) << to_string(t) << " n=" << n;
      std::vector<double> back(n);
      e.decode_to(0, n, back.data());
      EXPECT_EQ(back, v) << to_string(t) << " n=" << n;
      if (n > 0) {
        EXPECT_EQ(e[n / 2], v[n / 2]);
        EXPECT_EQ(e[n - 1], v[n - 1]);
      }
    }
  }
}

// encode's bf16 rounding is integer arithmetic (faster than the CUDA header's host routine): it
// gives __float2bfloat16_rn's bits for every kind of float, ties, subnormals, overflow to
// infinity and NaN included.
TEST(HostData, Bf16EncodingMatchesCudasRoundToNearestEven) {
  std::vector<float> floats = {0.0f, -0.0f, 1.0f, -1.5f, 3.0e38f, -3.4028235e38f, 1e-40f, -1e-45f,
                               std::bit_cast<float>(0x3f808000u), std::bit_cast<float>(0x3f818000u),
                               std::bit_cast<float>(0x7f7fffffu), std::bit_cast<float>(0x7f800000u),
                               std::bit_cast<float>(0xff800000u), std::bit_cast<float>(0x7fc00001u),
                               std::bit_cast<float>(0xffbfffffu)};
  std::mt19937 rng(5);
  for (int i = 0; i < 1 << 20; ++i) floats.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  std::vector<double> values(floats.begin(), floats.end());
  const std::vector<std::byte> bytes = encode(values, DType::bf16);
  for (std::size_t i = 0; i < floats.size(); ++i) {
    uint16_t ours;
    std::memcpy(&ours, bytes.data() + 2 * i, 2);
    // A NaN's payload may change on the way through double; CUDA's conversion is used for NaN,
    // so both give a NaN.
    const auto cuda = std::bit_cast<uint16_t>(__float2bfloat16_rn(static_cast<float>(values[i])));
    ASSERT_EQ(ours, cuda) << "float bits 0x" << std::hex << std::bit_cast<uint32_t>(floats[i]);
  }
}

TEST(HostData, RandomValuesAreNotAllEqual) {
  std::mt19937_64 rng(2);
  const auto v = random_values(100, DType::bf16, rng);
  EXPECT_NE(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
}

TEST(ReferenceCheck, FailsOnNanAndOnErrorsBeyondTolerance) {
  const std::vector<double> ref = {1.0, 2.0, 3.0};
  EXPECT_TRUE(compare_to_reference({1.0, 2.0, 3.0}, ref, {}, DType::f32).ok);
  const CheckResult nan = compare_to_reference({1.0, NAN, 3.0}, ref, {}, DType::f32);
  EXPECT_FALSE(nan.ok);
  EXPECT_EQ(nan.bad_index, 1);
  const CheckResult off = compare_to_reference({1.0, 2.0, 3.01}, ref, {}, DType::f32);
  EXPECT_FALSE(off.ok);
  EXPECT_THAT(off.message, HasSubstr("element 2"));
  EXPECT_TRUE(compare_to_reference({1.0, 2.0, 3.001}, ref, {}, DType::bf16).ok);
}

TEST(ShapeSpec, NamesTheFieldAndValueOutOfRange) {
  try {
    spec_int({{"B", -1}}, "B", std::nullopt, 0, 100);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'B'=-1"));
  }
  EXPECT_THROW(spec_int({{"B", "x"}}, "B", std::nullopt, 0, 100), InvalidArgument);
  EXPECT_THROW(spec_int(nlohmann::json::object(), "B", std::nullopt, 0, 100), InvalidArgument);
  EXPECT_EQ(spec_int(nlohmann::json::object(), "B", 5, 0, 100), 5);
}

TEST(ShapeSpec, CheckedMultiplyRefusesOverflow) {
  EXPECT_THROW(checked_mul(int64_t{1} << 40, int64_t{1} << 40, "B * M"), InvalidArgument);
  EXPECT_EQ(checked_mul(3, 4, "x"), 12);
}

}  // namespace
}  // namespace aotune
