#include "kernels/common/dtype.h"

#include "kernels/common/errors.h"

namespace aotune {

std::string_view to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
  }
  return "?";
}

std::string_view to_string(IndexType t) { return t == IndexType::i32 ? "i32" : "i64"; }

DType parse_dtype(std::string_view name) {
  if (name == "f32" || name == "float32" || name == "fp32") return DType::f32;
  if (name == "bf16" || name == "bfloat16") return DType::bf16;
  if (name == "f16" || name == "float16" || name == "fp16") return DType::f16;
  throw InvalidArgument("unknown dtype '" + std::string(name) + "' (expected f32, bf16 or f16)");
}

IndexType parse_index_type(std::string_view name) {
  if (name == "i32" || name == "int32") return IndexType::i32;
  if (name == "i64" || name == "int64") return IndexType::i64;
  throw InvalidArgument("unknown index type '" + std::string(name) + "' (expected i32 or i64)");
}

double dtype_tolerance(DType t) {
  // BENCH.md: fp32 ~1e-5, bf16 ~1e-2, fp16 ~2e-3 relative. A little head-room for fp32 sums of
  // thousands of terms whose order differs from the reference's.
  switch (t) {
    case DType::f32: return 2e-5;
    case DType::bf16: return 1e-2;
    case DType::f16: return 2e-3;
  }
  return 0;
}

}  // namespace aotune
