// The shape spec shared by the jagged kernels: B rows whose lengths follow a named distribution.
// Spec fields: B, len (mean row length), dist, cap (longest row allowed), dtype, index, seed,
// misalign (elements by which the values pointer is moved off its 256-byte alignment).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/dtype.h"
#include "kernels/common/jagged_lengths.h"

namespace aotune {

struct JaggedShape {
  int64_t B = 0;
  int64_t mean_len = 0;
  LengthDist dist = LengthDist::uniform;
  int64_t cap = 0;
  DType dtype = DType::f32;
  IndexType index = IndexType::i64;
  uint64_t seed = 1;
  int64_t misalign = 0;

  std::vector<int64_t> lengths;  // realised from the fields above
  std::vector<int64_t> offsets;  // B+1 entries
  int64_t nnz = 0;
  int64_t max_len = 0;

  // `elems_per_row` is the number of values per jagged element (M, or 1), used for overflow checks.
  static JaggedShape parse(const nlohmann::json& spec, int64_t default_cap, int64_t elems_per_row);
  // Writes the jagged fields back into `spec` with defaults filled in.
  void normalise_into(nlohmann::json& spec) const;
};

// Offsets [B+1] from lengths; throws InvalidArgument if the total overflows int64.
std::vector<int64_t> offsets_from_lengths_checked(const std::vector<int64_t>& lengths);

}  // namespace aotune
