// Reading shape specs (JSON objects such as {"B":1024,"M":256,"len":512,"dist":"uniform"}) with
// errors that name the field and the value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/common/dtype.h"

namespace aotune {

// An integer field in [lo, hi]; `fallback` when absent (absent and no fallback is an error).
int64_t spec_int(const nlohmann::json& spec, const char* key, std::optional<int64_t> fallback,
                 int64_t lo, int64_t hi);
std::string spec_string(const nlohmann::json& spec, const char* key, std::optional<std::string> fallback);
DType spec_dtype(const nlohmann::json& spec);        // "dtype", default f32
IndexType spec_index_type(const nlohmann::json& spec);  // "index", default i64
uint64_t spec_seed(const nlohmann::json& spec);      // "seed", default 1

// Multiplies sizes, throwing InvalidArgument (naming `what`) instead of overflowing int64.
int64_t checked_mul(int64_t a, int64_t b, const char* what);

}  // namespace aotune
