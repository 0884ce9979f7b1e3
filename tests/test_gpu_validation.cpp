// Device-side input checks: bad offsets and feature counts are reported with index and value.
// Skipped without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernels/common/errors.h"
#include "kernels/common/host_data.h"
#include "kernels/common/offsets_check.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "tests/gpu_test_support.h"

namespace aotune {
namespace {

using ::testing::HasSubstr;

std::string offsets_error(const std::vector<int64_t>& offsets, IndexType type, int64_t nnz, int64_t limit) {
  const auto bytes = encode_index(offsets, type);
  DeviceBuffer d(bytes.size());
  d.upload(bytes.data(), bytes.size());
  test::wait_for_default_stream();  // the upload lands before the check on a non-blocking stream
  CudaStream s;
  try {
    check_offsets_on_device(d.get(), type, static_cast<int64_t>(offsets.size()) - 1, nnz, limit, "N", s.get());
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceOffsetsCheck, NamesTheFirstDecreasingPair) {
  AOTUNE_REQUIRE_GPU();
  for (IndexType t : {IndexType::i32, IndexType::i64}) {
    EXPECT_THAT(offsets_error({0, 3, 5, 4, 9}, t, 9, -1), HasSubstr("offsets[2]=5 > offsets[3]=4"));
  }
}

TEST(DeviceOffsetsCheck, RejectsWrongStartWrongEndAndRowsLongerThanTheLimit) {
  AOTUNE_REQUIRE_GPU();
  EXPECT_THAT(offsets_error({1, 3, 5}, IndexType::i64, 5, -1), HasSubstr("must start at 0: offsets[0]=1"));
  EXPECT_THAT(offsets_error({0, 3, 5}, IndexType::i64, 6, -1), HasSubstr("must end at nnz=6: offsets[2]=5"));
  EXPECT_THAT(offsets_error({0, 3, 10}, IndexType::i32, 10, 4), HasSubstr("row 1 has length 7 > N=4"));
  EXPECT_EQ(offsets_error({0, 3, 3, 10}, IndexType::i64, 10, 7), "");
}

TEST(DeviceFeatureCountsCheck, NamesTheCountOutsideZeroToM) {
  AOTUNE_REQUIRE_GPU();
  const auto off = encode_index({0, 1, 2}, IndexType::i32);
  const auto fc = encode_index({2, 9}, IndexType::i32);
  DeviceBuffer d_off(off.size()), d_fc(fc.size());
  d_off.upload(off.data(), off.size());
  d_fc.upload(fc.data(), fc.size());
  test::wait_for_default_stream();
  jagged_reduce::Problem p;
  p.op = jagged_reduce::Op::mean;
  p.B = 2;
  p.M = 4;
  p.nnz = 2;
  p.index = IndexType::i32;
  p.offsets = d_off.get();
  p.feature_counts = d_fc.get();
  CudaStream s;
  try {
    jagged_reduce::validate_device_data(p, s.get());
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("feature_counts[1]=9"));
  }
}

}  // namespace
}  // namespace aotune
