// Heuristic features of jagged_sum / jagged_mean: the sizes a caller knows plus derived ones.
// Outside the kernel source hash (cmake/SourceHash.cmake): a change here is a
// `aot-runner refresh-features`, not a re-tune.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::jagged_reduce {

Features features(DType dtype, int64_t B, int64_t M, int64_t nnz, int64_t max_len) {
  const double avg = B > 0 ? static_cast<double>(nnz) / static_cast<double>(B) : 0.0;
  const double bytes = static_cast<double>(nnz + B) * static_cast<double>(M) * static_cast<double>(dtype_size(dtype));
  return {
      {"elem_bytes", static_cast<double>(dtype_size(dtype))},
      {"B", static_cast<double>(B)},
      {"M", static_cast<double>(M)},
      {"nnz", static_cast<double>(nnz)},
      {"max_len", static_cast<double>(max_len)},
      {"avg_len", avg},
      {"skew", avg > 0 ? static_cast<double>(max_len) / avg : 0.0},
      {"log2_bytes", std::log2(bytes + 1.0)},
      // The widest vector (in elements) M allows: the largest power of two dividing M, at most
      // 16 bytes' worth, as jagged_dense_add's max_vec. A vec-N config is legal (pointer alignment
      // aside) exactly where this is >= N, and how fast a row config runs follows its load width.
      // It replaced m_mod_8 (session 57), on which no threshold separates odd M from M = 2, 4, 6
      // mod 8: a leaf mixing them sent M = 4 mod 8 shapes to scalar configs (jagged_mean
      // B=22623 M=492 f16, 1.1 GB: group_row.v1 at 2.0x block_row.v2). PERF.md, Sessions 56-57.
      {"max_vec", static_cast<double>(std::min<int64_t>(16 / static_cast<int64_t>(dtype_size(dtype)),
                                                        M > 0 ? (M & -M) : 16))},
      // One block per row (block_row) finishes when its longest row does: max_len*M elements.
      {"max_row_elems", static_cast<double>(max_len) * static_cast<double>(M)},
      // Outputs written, and what nnz_split must zero and atomically accumulate into.
      {"outputs", static_cast<double>(B) * static_cast<double>(M)},
      // The longest row's share of all elements (skew / B): above about 1 / (SMs x blocks per SM)
      // one block per row leaves the GPU idle behind that row, and nnz_split wins. No existing
      // feature is monotone in it, so it is a new axis for the tree (measured on a copy of the
      // session-4 databases: it removes the 5-40x held-out picks of jagged_mean, docs/PERF.md).
      {"row_share", nnz > 0 ? static_cast<double>(max_len) / static_cast<double>(nnz) : 0.0},
  };
}

}  // namespace aotune::jagged_reduce
