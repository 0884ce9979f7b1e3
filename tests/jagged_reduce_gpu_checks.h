// Checks the jagged_reduce GPU tests that launch configs directly share: outputs against the
// float64 reference, and the workspace left all zero (launch() promises it for the next call).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/cuda_raii.h"

namespace aotune {

// Outputs off the reference by more than fp32 accumulation allows: 1e-5 of `scale`, the sum of
// |x| over the row (divided by the length for mean), plus `out_rounding` of the reference itself
// (the storage type's rounding of the result: 0 for fp32 outputs, 2^-8 for bf16). The first three
// are reported as failures, labelled `what`, with their row (M outputs per row).
inline int count_off_reference(const std::vector<float>& out, const std::vector<double>& ref,
                               const std::vector<double>& scale, int64_t M, const std::string& what,
                               double out_rounding = 0.0) {
  int bad = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double tol = 1e-5 * (scale[i] + 1e-30) + out_rounding * std::abs(ref[i]);
    if (!(std::abs(out[i] - ref[i]) <= tol) && ++bad <= 3) {
      ADD_FAILURE() << what << " out[" << i << "] (row " << static_cast<int64_t>(i) / M << ") = " << out[i]
                    << ", reference " << ref[i];
    }
  }
  return bad;
}

// The 4-byte words of the first `bytes` of `scratch` that are not zero.
inline int64_t nonzero_words(const DeviceBuffer& scratch, std::size_t bytes) {
  std::vector<uint32_t> words(bytes / 4);
  scratch.download(words.data(), words.size() * 4);
  return std::count_if(words.begin(), words.end(), [](uint32_t w) { return w != 0; });
}

}  // namespace aotune
