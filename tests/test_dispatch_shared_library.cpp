// libaotune.so, loaded at run time as a Python (ctypes) or Rust user would: its C symbols resolve
// and report errors through status codes, with no GPU needed for invalid input.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "aotune/aotune_c.h"

namespace {

TEST(SharedLibrary, ExportsTheCAbi) {
  void* lib = dlopen(AOTUNE_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  using Mean = aotune_status (*)(const void*, void*, int64_t, int64_t, int64_t, int64_t,
                                 aotune_dtype, void*);
  using LastError = const char* (*)();
  const auto mean = reinterpret_cast<Mean>(dlsym(lib, "aotune_causal_trailing_mean"));
  const auto last_error = reinterpret_cast<LastError>(dlsym(lib, "aotune_last_error"));
  ASSERT_NE(mean, nullptr);
  ASSERT_NE(last_error, nullptr);
  for (const char* name : {"aotune_jagged_sum", "aotune_jagged_mean", "aotune_jagged_dense_add",
                           "aotune_status_string", "aotune_reload_heuristics"}) {
    EXPECT_NE(dlsym(lib, name), nullptr) << name;
  }
  int dummy = 0;
  EXPECT_EQ(mean(&dummy, &dummy + 1, 1, 1, 8, 0, AOTUNE_DTYPE_F32, nullptr),
            AOTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(last_error()).find("cf must be >= 1"), std::string::npos) << last_error();
  dlclose(lib);
}

}  // namespace
