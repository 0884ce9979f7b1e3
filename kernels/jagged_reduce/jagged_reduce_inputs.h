// The shapes jagged_sum's and jagged_mean's tests run on. Outside the kernel's source hash
// (source_hash/kernel_source_hashes.h), like the input generator kernels/common/host_data.*: test
// shapes never change a timing, so a new one needs no re-tune. Sizes, row lengths and feature
// counts, which do, are the registry adapter's (jagged_reduce_kernel.cpp).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace aotune::jagged_reduce {

// The shapes every config of both ops is checked on against the float64 reference (the
// EveryConfig tests), each in f32, bf16 and f16 with int32 and int64 offsets, each with its own seed.
std::vector<nlohmann::json> test_shapes();

}  // namespace aotune::jagged_reduce
