// Float64 reference for jagged_dense_add.
#include <algorithm>

#include "kernels/jagged_dense_add/jagged_dense_add.h"

namespace aotune::jagged_dense_add {

std::vector<double> reference(const std::vector<double>& x, const std::vector<int64_t>& offsets,
                              const std::vector<double>& y, int64_t N) {
  std::vector<double> out = y;
  const int64_t B = static_cast<int64_t>(offsets.size()) - 1;
  for (int64_t b = 0; b < B; ++b) {
    // Rows longer than N are invalid input; clamp so the reference never writes past its own row.
    const int64_t end = std::min(offsets[b + 1], offsets[b] + N);
    for (int64_t e = offsets[b]; e < end; ++e) out[b * N + (e - offsets[b])] += x[e];
  }
  return out;
}

}  // namespace aotune::jagged_dense_add
