// Heuristic features of jagged_dense_add: the sizes a caller knows plus a few derived ratios.
// Outside the kernel source hash (cmake/SourceHash.cmake): a change here is a
// `aot-runner refresh-features`, not a re-tune.
#include "kernels/jagged_dense_add/jagged_dense_add.h"

namespace aotune::jagged_dense_add {

Features features(DType dtype, int64_t B, int64_t N, int64_t nnz, int64_t max_len) {
  const double s = static_cast<double>(dtype_size(dtype));
  const double b = static_cast<double>(B), n = static_cast<double>(N);
  const double mean_len = B > 0 ? static_cast<double>(nnz) / b : 0.0;
  // Widest legal vector for this N and dtype (pointer alignment aside): 16 bytes at most.
  int max_vec = 1;
  for (int v : {2, 4, 8}) {
    if (v * dtype_size(dtype) <= 16 && N % v == 0) max_vec = v;
  }
  return {
      {"B", b},
      {"N", n},
      {"nnz", static_cast<double>(nnz)},
      {"max_len", static_cast<double>(max_len)},
      {"elem_bytes", s},
      {"mean_len", mean_len},
      {"fill",
       B > 0 && N > 0 ? static_cast<double>(nnz) / (b * n) : 0.0},  // share of out that gets x
      {"skew", mean_len > 0 ? static_cast<double>(max_len) / mean_len : 1.0},
      {"row_bytes", n * s},
      {"max_vec", static_cast<double>(max_vec)},
      {"total_bytes", static_cast<double>(nnz) * s + 2.0 * b * n * s},
  };
}

}  // namespace aotune::jagged_dense_add
