// aotune::ops::jagged_dense_add: a 1-D jagged tensor added onto the leading columns of a dense one,
// with the config picked per shape by the current GPU's tuned heuristic.
//   x [nnz], offsets [B+1], y [B, N] (N >= every row length) -> out [B, N]:
//   out[b, n] = y[b, n] + x[offsets[b] + n] for n < row length, y[b, n] beyond. out may equal y.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/dtype.h"
#include "kernels/common/errors.h"

// In aotune::ops because aotune::<kernel> is the kernel's own namespace (configs, launch).
namespace aotune::ops {

// max_len: the longest row if known (checked against N and the mean row nnz / B), -1 if not.
// Throws InvalidArgument before any CUDA call for bad sizes or pointers, CudaError when CUDA fails.
void jagged_dense_add(const void* x, const void* offsets, const void* y, void* out, int64_t B,
                      int64_t N, int64_t nnz, int64_t max_len, DType dtype, IndexType index_type,
                      cudaStream_t stream = nullptr);

}  // namespace aotune::ops
