// Comparing an output with its float64 reference on the device, so checking a 1 GB output costs
// milliseconds, not a download and a host loop. Same rule as compare_to_reference().
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/common/dtype.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune {

// `ref` and `scale` are device arrays of n doubles; `out` is n elements of `dtype`. Synchronises.
CheckResult compare_on_device(const void* out, const double* ref, const double* scale, std::size_t n,
                              DType dtype, cudaStream_t stream);

}  // namespace aotune
