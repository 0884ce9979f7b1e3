// Checks every CUDA runtime call and turns a failure into a CudaError naming the call, file and line.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "kernels/common/errors.h"

namespace aotune::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* expr, const char* file,
                                          int line) {
  throw CudaError(std::string(expr) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

}  // namespace aotune::detail

#define AOTUNE_CUDA_CHECK(expr)                                                \
  do {                                                                         \
    const cudaError_t aotune_status_ = (expr);                                 \
    if (aotune_status_ != cudaSuccess) {                                       \
      ::aotune::detail::throw_cuda_error(aotune_status_, #expr, __FILE__, __LINE__); \
    }                                                                          \
  } while (0)

// After a kernel launch: catches bad launch configurations at once (not asynchronous faults).
#define AOTUNE_CUDA_CHECK_LAUNCH() AOTUNE_CUDA_CHECK(cudaGetLastError())
