// The shapes jagged_dense_add's tests run on. Outside the kernel's source hash
// (source_hash/kernel_source_hashes.h), like the input generator kernels/common/host_data.*: test
// shapes never change a timing, so a new one needs no re-tune. Sizes and row lengths, which do,
// are the registry adapter's (jagged_dense_add_kernel.cpp).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace aotune::jagged_dense_add {

// The shapes every config is checked on against the float64 reference (the EveryConfig tests),
// each in f32, bf16 and f16 with int32 and int64 offsets, each with its own seed.
std::vector<nlohmann::json> test_shapes();

}  // namespace aotune::jagged_dense_add
