// Element and index types the kernels accept, with their names as they appear in JSON and on the CLI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace aotune {

enum class DType : int { f32 = 0, bf16 = 1, f16 = 2 };
enum class IndexType : int { i32 = 0, i64 = 1 };

constexpr std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }
constexpr std::size_t index_size(IndexType t) { return t == IndexType::i32 ? 4 : 8; }

std::string_view to_string(DType t);
std::string_view to_string(IndexType t);

// Throw InvalidArgument naming the bad value and the accepted ones.
DType parse_dtype(std::string_view name);
IndexType parse_index_type(std::string_view name);

// Relative tolerance against the float64 reference for results stored in this type (fp32 accumulation).
double dtype_tolerance(DType t);

}  // namespace aotune
