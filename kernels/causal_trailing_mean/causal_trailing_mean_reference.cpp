// Float64 reference for causal_trailing_mean: a running window sum per row in long double (64-bit
// mantissa on x86), so its own rounding stays far below every tolerance even for long rows.
#include <algorithm>
#include <string>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/common/errors.h"

namespace aotune::causal_trailing_mean {

std::vector<double> reference(const std::vector<double>& x, int64_t rows, int64_t T, int64_t cf) {
  if (cf < 1) throw InvalidArgument("causal_trailing_mean reference: cf must be >= 1, got " + std::to_string(cf));
  if (rows < 0 || T < 0 || static_cast<long double>(rows) * T != static_cast<long double>(x.size())) {
    throw InvalidArgument("causal_trailing_mean reference: x has " + std::to_string(x.size()) +
                          " values, expected rows*T = " + std::to_string(rows) + "*" + std::to_string(T));
  }
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * T;
    double* outr = out.data() + r * T;
    long double sum = 0;
    for (int64_t t = 0; t < T; ++t) {
      sum += xr[t];
      if (t >= cf) sum -= xr[t - cf];
      outr[t] = static_cast<double>(sum / static_cast<long double>(std::min(t + 1, cf)));
    }
  }
  return out;
}

}  // namespace aotune::causal_trailing_mean
