// GPU tests call AOTUNE_REQUIRE_GPU() first: with no usable CUDA device they are skipped, not failed.
#pragma once

#include <gtest/gtest.h>

#include "kernels/common/cuda_raii.h"

#define AOTUNE_REQUIRE_GPU()                                                   \
  do {                                                                         \
    if (!::aotune::cuda_device_available()) GTEST_SKIP() << "no CUDA device";  \
  } while (0)
