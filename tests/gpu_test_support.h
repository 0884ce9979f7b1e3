// GPU tests call AOTUNE_REQUIRE_GPU() first: with no usable CUDA device they are skipped, not failed.
#pragma once

#include <gtest/gtest.h>

#include "kernels/common/cuda_raii.h"

#define AOTUNE_REQUIRE_GPU()                                                   \
  do {                                                                         \
    if (!::aotune::cuda_device_available()) GTEST_SKIP() << "no CUDA device";  \
  } while (0)

namespace aotune::test {

// Waits for the work queued on the default stream. DeviceBuffer::upload (a cudaMemcpy from pageable
// memory) returns once the bytes are staged, the copy to the device possibly still in flight, and
// cudaMemset on device memory returns at once; both run on the default stream, which the
// non-blocking streams (CudaStream) the tests launch on do not wait for. Call it after them, before
// such a launch: a graph-capture replay read its 0xff poison (NaN) at element 0 on an H100 without
// it (session 59).
inline void wait_for_default_stream() { ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess); }

}  // namespace aotune::test
