// Float64 reference for jagged_sum / jagged_mean.
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::jagged_reduce {

std::vector<double> reference(Op op, const std::vector<double>& values, const std::vector<int64_t>& offsets,
                              const std::vector<int64_t>& fc, int64_t M) {
  const int64_t B = static_cast<int64_t>(offsets.size()) - 1;
  std::vector<double> out(static_cast<std::size_t>(B * M), 0.0);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t len = offsets[b + 1] - offsets[b];
    const int64_t cols = fc.empty() ? M : fc[b];
    for (int64_t m = 0; m < cols; ++m) {
      double acc = 0;
      for (int64_t e = offsets[b]; e < offsets[b + 1]; ++e) acc += values[e * M + m];
      out[b * M + m] = op == Op::mean ? (len > 0 ? acc / static_cast<double>(len) : 0.0) : acc;
    }
  }
  return out;
}

}  // namespace aotune::jagged_reduce
