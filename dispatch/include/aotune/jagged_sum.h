// aotune::ops::jagged_sum: per-row sums of a jagged 2-D tensor, with the config picked per shape by
// the tuned heuristic of the current GPU's architecture.
//   values [nnz, M] row-major, offsets [B+1] (non-decreasing, offsets[0] = 0, offsets[B] = nnz)
//   -> out [B, M], out[b, :] = sum of values[offsets[b] .. offsets[b+1]), accumulated in fp32.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/dtype.h"
#include "kernels/common/errors.h"

// In aotune::ops because aotune::<kernel> is the kernel's own namespace (configs, launch).
namespace aotune::ops {

// max_len is the longest row, a feature of the heuristic: pass -1 when unknown (rows are then
// taken as equally long); a known one lies in [nnz / B rounded up, nnz]. Enqueues on `stream` and
// returns. Throws InvalidArgument for bad sizes (max_len outside that range included) or pointers
// before any CUDA call, CudaError when CUDA fails.
void jagged_sum(const void* values, const void* offsets, void* out, int64_t B, int64_t M,
                int64_t nnz, int64_t max_len, DType dtype, IndexType index_type,
                cudaStream_t stream = nullptr);

}  // namespace aotune::ops
