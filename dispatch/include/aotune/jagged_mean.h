// aotune::ops::jagged_mean: per-row means of a jagged 2-D tensor over each row's first
// feature_counts[b] columns, with the config picked per shape by the current GPU's tuned heuristic.
//   values [nnz, M], offsets [B+1], feature_counts [B] (each in [0, M]; null: M for every row)
//   -> out [B, M]: out[b, :fc] = row sum / row length; columns >= fc and empty rows are exactly 0.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/dtype.h"
#include "kernels/common/errors.h"

// In aotune::ops because aotune::<kernel> is the kernel's own namespace (configs, launch).
namespace aotune::ops {

// feature_counts uses index_type, like offsets. max_len as in jagged_sum.h (-1: unknown). Without
// feature counts (null) the call does jagged_sum's work, and jagged_sum's heuristic picks its
// config (fitted on those timings; jagged_mean's was fitted on masked columns).
// Throws InvalidArgument before any CUDA call for bad sizes or pointers, CudaError when CUDA fails.
void jagged_mean(const void* values, const void* offsets, const void* feature_counts, void* out,
                 int64_t B, int64_t M, int64_t nnz, int64_t max_len, DType dtype,
                 IndexType index_type, cudaStream_t stream = nullptr);

}  // namespace aotune::ops
