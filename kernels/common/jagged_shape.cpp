#include "kernels/common/jagged_shape.h"

#include <algorithm>
#include <limits>

#include "kernels/common/errors.h"
#include "kernels/common/shape_spec.h"

namespace aotune {

JaggedShape JaggedShape::parse(const nlohmann::json& spec, int64_t default_cap, int64_t elems_per_row) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  JaggedShape s;
  s.B = spec_int(spec, "B", std::nullopt, 0, kMax);
  s.mean_len = spec_int(spec, "len", std::nullopt, 0, kMax);
  s.dist = parse_length_dist(spec_string(spec, "dist", "uniform"));
  s.cap = spec_int(spec, "cap", default_cap, 0, std::numeric_limits<int64_t>::max());
  s.dtype = spec_dtype(spec);
  s.index = spec_index_type(spec);
  s.seed = spec_seed(spec);
  s.misalign = spec_int(spec, "misalign", 0, 0, 7);
  s.lengths = make_jagged_lengths(s.B, s.mean_len, s.dist, s.seed, s.cap);
  s.offsets = offsets_from_lengths_checked(s.lengths);
  s.nnz = s.offsets.back();
  s.max_len = s.lengths.empty() ? 0 : *std::max_element(s.lengths.begin(), s.lengths.end());
  const int64_t elems = checked_mul(s.nnz, std::max<int64_t>(elems_per_row, 1), "nnz * M");
  if (s.index == IndexType::i32 && elems > kMax) {
    throw InvalidArgument("nnz*M=" + std::to_string(elems) + " does not fit int32 offsets; use \"index\": \"i64\"");
  }
  return s;
}

std::vector<int64_t> offsets_from_lengths_checked(const std::vector<int64_t>& lengths) {
  std::vector<int64_t> off(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (__builtin_add_overflow(off[i], lengths[i], &off[i + 1])) {
      throw InvalidArgument("total jagged length overflows int64 at row " + std::to_string(i));
    }
  }
  return off;
}

void JaggedShape::normalise_into(nlohmann::json& spec) const {
  spec["B"] = B;
  spec["len"] = mean_len;
  spec["dist"] = std::string(to_string(dist));
  spec["cap"] = cap;
  spec["dtype"] = std::string(to_string(dtype));
  spec["index"] = std::string(to_string(index));
  spec["seed"] = seed;
  spec["misalign"] = misalign;
}

}  // namespace aotune
