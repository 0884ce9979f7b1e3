// The C ABI: invalid input gives an error status and a message naming the problem, with no GPU
// needed (host validation comes before any CUDA call).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "aotune/aotune_c.h"

namespace {

// A plausible device address: never dereferenced, the calls fail validation first.
const void* fake(std::uintptr_t address = 4096) { return reinterpret_cast<const void*>(address); }
void* fake_out() { return reinterpret_cast<void*>(std::uintptr_t{1} << 24); }

void expect_invalid(aotune_status status, const std::string& mention) {
  EXPECT_EQ(status, AOTUNE_ERROR_INVALID_ARGUMENT) << aotune_last_error();
  EXPECT_NE(std::string(aotune_last_error()).find(mention), std::string::npos)
      << aotune_last_error();
}

TEST(CApi, RejectsAZeroWindow) {
  expect_invalid(
      aotune_causal_trailing_mean(fake(), fake_out(), 2, 3, 100, 0, AOTUNE_DTYPE_F32, nullptr),
      "cf must be >= 1");
}

TEST(CApi, RejectsNullPointers) {
  expect_invalid(aotune_jagged_sum(fake(), nullptr, fake_out(), 4, 8, 10, -1, AOTUNE_DTYPE_F32,
                                   AOTUNE_INDEX_I64, nullptr),
                 "offsets is a null pointer");
  expect_invalid(
      aotune_causal_trailing_mean(nullptr, fake_out(), 2, 3, 100, 4, AOTUNE_DTYPE_F32, nullptr),
      "x is a null pointer");
  expect_invalid(aotune_jagged_dense_add(fake(), fake(8192), fake(1 << 20), nullptr, 4, 16, 10, -1,
                                         AOTUNE_DTYPE_BF16, AOTUNE_INDEX_I32, nullptr),
                 "out is a null pointer");
}

TEST(CApi, RejectsBadSizes) {
  expect_invalid(aotune_jagged_mean(fake(), fake(8192), nullptr, fake_out(), 4, 0, 10, -1,
                                    AOTUNE_DTYPE_F16, AOTUNE_INDEX_I64, nullptr),
                 "M must be >= 1");
  expect_invalid(aotune_jagged_sum(fake(), fake(8192), fake_out(), 4, 8, 10, 11, AOTUNE_DTYPE_F32,
                                   AOTUNE_INDEX_I64, nullptr),
                 "max_len=11");
  expect_invalid(aotune_jagged_dense_add(fake(), fake(8192), fake(1 << 20), fake_out(), 2, 4, 9, -1,
                                         AOTUNE_DTYPE_F32, AOTUNE_INDEX_I64, nullptr),
                 "exceeds B*N=8");
}

TEST(CApi, RejectsUnknownTypeCodes) {
  expect_invalid(
      aotune_jagged_sum(fake(), fake(8192), fake_out(), 4, 8, 10, -1, 7, AOTUNE_INDEX_I64, nullptr),
      "dtype code 7");
  expect_invalid(
      aotune_jagged_sum(fake(), fake(8192), fake_out(), 4, 8, 10, -1, AOTUNE_DTYPE_F32, 2, nullptr),
      "index type code 2");
}

TEST(CApi, ClearsTheLastErrorAfterASuccessfulCall) {
  aotune_causal_trailing_mean(fake(), fake_out(), 2, 3, 100, 0, AOTUNE_DTYPE_F32, nullptr);
  ASSERT_STRNE(aotune_last_error(), "");
  EXPECT_EQ(aotune_reload_heuristics(), AOTUNE_OK);
  EXPECT_STREQ(aotune_last_error(), "");
}

// With scratch cached or none (always none without a GPU) it succeeds and clears the last error.
TEST(CApi, ReleasingWorkspacesWithNoneHeldSucceeds) {
  aotune_causal_trailing_mean(fake(), fake_out(), 2, 3, 100, 0, AOTUNE_DTYPE_F32, nullptr);
  ASSERT_STRNE(aotune_last_error(), "");
  EXPECT_EQ(aotune_release_workspaces(), AOTUNE_OK);
  EXPECT_STREQ(aotune_last_error(), "");
  EXPECT_EQ(aotune_release_workspaces(), AOTUNE_OK);
}

TEST(CApi, NamesItsStatuses) {
  EXPECT_STREQ(aotune_status_string(AOTUNE_OK), "ok");
  EXPECT_STREQ(aotune_status_string(AOTUNE_ERROR_INVALID_ARGUMENT), "invalid argument");
  EXPECT_STREQ(aotune_status_string(AOTUNE_ERROR_CUDA), "CUDA error");
  EXPECT_STREQ(aotune_status_string(42), "unknown status");
}

TEST(CApi, HeaderIsPlainC) {
  // FFI generators and C programs read it: it must compile as C99 with fixed 32-bit codes.
  static_assert(sizeof(aotune_status) == 4 && sizeof(aotune_dtype) == 4 &&
                sizeof(aotune_index_type) == 4);
  const std::string dir = ::testing::TempDir();
  const std::string source = dir + "aotune_c_header_check.c";
  std::ofstream(source)
      << "#include \"aotune/aotune_c.h\"\nint main(void) { return aotune_last_error() == 0; }\n";
  const std::string command = std::string(AOTUNE_HOST_CXX) +
                              " -x c -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -I" +
                              AOTUNE_SOURCE_DIR + "/dispatch/include " + source + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
