// aotune::ops::causal_trailing_mean: the mean of the last cf elements along T (fewer at the start),
// with the config picked per shape by the current GPU's tuned heuristic.
//   x [B, D, T] contiguous, window cf >= 1 -> out [B, D, T] (must not overlap x):
//   out[b, d, t] = sum of x[b, d, max(0, t-cf+1) .. t] / min(t+1, cf)
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/dtype.h"
#include "kernels/common/errors.h"

// In aotune::ops because aotune::<kernel> is the kernel's own namespace (configs, launch).
namespace aotune::ops {

// Throws InvalidArgument before any CUDA call for bad sizes or pointers (cf < 1, null x with
// elements, overlap), CudaError when CUDA fails.
void causal_trailing_mean(const void* x, void* out, int64_t B, int64_t D, int64_t T, int64_t cf,
                          DType dtype, cudaStream_t stream = nullptr);

}  // namespace aotune::ops
