#include "kernels/common/shape_spec.h"

#include <limits>

#include "kernels/common/errors.h"

namespace aotune {

int64_t spec_int(const nlohmann::json& spec, const char* key, std::optional<int64_t> fallback,
                 int64_t lo, int64_t hi) {
  if (!spec.is_object()) throw InvalidArgument("shape spec must be a JSON object, got " + spec.dump());
  const auto it = spec.find(key);
  if (it == spec.end()) {
    if (fallback) return *fallback;
    throw InvalidArgument(std::string("shape spec ") + spec.dump() + " lacks the field '" + key + "'");
  }
  if (!it->is_number_integer()) {
    throw InvalidArgument(std::string("shape field '") + key + "' must be an integer, got " + it->dump());
  }
  const int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) {
    throw InvalidArgument(std::string("shape field '") + key + "'=" + std::to_string(v) +
                          " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

std::string spec_string(const nlohmann::json& spec, const char* key,
                        std::optional<std::string> fallback) {
  const auto it = spec.find(key);
  if (it == spec.end()) {
    if (fallback) return *fallback;
    throw InvalidArgument(std::string("shape spec ") + spec.dump() + " lacks the field '" + key + "'");
  }
  if (!it->is_string()) {
    throw InvalidArgument(std::string("shape field '") + key + "' must be a string, got " + it->dump());
  }
  return it->get<std::string>();
}

DType spec_dtype(const nlohmann::json& spec) { return parse_dtype(spec_string(spec, "dtype", "f32")); }

IndexType spec_index_type(const nlohmann::json& spec) {
  return parse_index_type(spec_string(spec, "index", "i64"));
}

uint64_t spec_seed(const nlohmann::json& spec) {
  return static_cast<uint64_t>(spec_int(spec, "seed", 1, 0, std::numeric_limits<int64_t>::max()));
}

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) {
    throw InvalidArgument(std::string(what) + " overflows: " + std::to_string(a) + " * " +
                          std::to_string(b));
  }
  return r;
}

}  // namespace aotune
