// Every config of every registered kernel against the float64 reference, on each kernel's test
// shapes (empty rows, one huge row, odd sizes, misaligned pointers, every dtype and index type),
// with the output poisoned first. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "tests/gpu_test_support.h"

namespace aotune {
namespace {

class EveryConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryConfig, MatchesTheFloat64ReferenceOnEveryTestShape) {
  AOTUNE_REQUIRE_GPU();
  const TunableKernel& kernel = find_kernel(GetParam());
  // AOTUNE_GPU_TEST_STRIDE=k runs every k-th (shape, config) pair: a representative subset for
  // slow tools such as compute-sanitizer. Default 1: everything.
  const char* stride_env = std::getenv("AOTUNE_GPU_TEST_STRIDE");
  const std::size_t stride = stride_env ? std::max(1, std::atoi(stride_env)) : 1;
  // The legacy default stream: a launch that grows the workload's scratch zeroes it with cudaMemset
  // there first (kernels/common/workload_base.cpp), and a non-blocking stream's kernel would not be
  // ordered after that fill (see GpuShapeRunner::check in tuner/gpu_device.cpp).
  const cudaStream_t stream = cudaStreamLegacy;
  int checked = 0, failures = 0;
  std::size_t shape_index = 0;
  for (const nlohmann::json& shape : kernel.test_shapes()) {
    auto workload = kernel.make_workload(shape);
    int legal = 0;
    ++shape_index;
    for (std::size_t c = 0; c < kernel.num_configs(); ++c) {
      if (!workload->info().legality[c].ok) continue;
      ++legal;
      if ((c + shape_index) % stride != 0) continue;
      workload->poison_output(stream);
      workload->launch(c, stream);
      const CheckResult r = workload->check();
      ++checked;
      if (!r.ok && ++failures <= 20) {
        ADD_FAILURE() << kernel.name() << " config " << kernel.config_id(c) << " on " << shape.dump() << ": "
                      << r.message;
      }
    }
    EXPECT_GT(legal, 0) << "no legal config for " << shape.dump();
  }
  EXPECT_EQ(failures, 0);
  std::printf("[ checks ] %s: %d (config, shape) runs checked, %d failed\n", std::string(kernel.name()).c_str(),
              checked, failures);
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const TunableKernel* k : all_kernels()) names.emplace_back(k->name());
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, EveryConfig, ::testing::ValuesIn(kernel_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aotune
