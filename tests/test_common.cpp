// CPU tests of the shared pieces: dtypes, host encoding, the reference comparison, shape specs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

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
