// Heuristic features of causal_trailing_mean: the sizes a caller knows plus a few derived ones.
// Only rows = B*D matters to the kernels (rows are independent), so B and D are not separate.
// Outside the kernel source hash (cmake/SourceHash.cmake): a change here is a
// `aot-runner refresh-features`, not a re-tune.
#include <algorithm>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"

namespace aotune::causal_trailing_mean {

Features features(DType dtype, int64_t B, int64_t D, int64_t T, int64_t cf) {
  const double s = static_cast<double>(dtype_size(dtype));
  const double rows = static_cast<double>(B) * static_cast<double>(D);
  const double t = static_cast<double>(T);
  return {
      {"elem_bytes", s},
      {"rows", rows},
      {"T", t},
      {"cf", static_cast<double>(cf)},
      {"window", static_cast<double>(std::min(cf, T))},  // cf beyond T acts like T
      {"elems", rows * t},
      {"total_bytes", 2.0 * rows * t * s},
      // One row's bytes: how many 16-byte vectors a row holds decides how a warp or block tiles it
      // (partial tiles, segments per row), which T alone splits differently for 2- and 4-byte
      // types. Held-out over 10 fold draws (session 11): geomean 1.0457 -> 1.0403, mean max 1.41 -> 1.32.
      {"row_bytes", t * s},
  };
}

}  // namespace aotune::causal_trailing_mean
