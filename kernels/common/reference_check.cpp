#include "kernels/common/reference_check.h"

#include <cmath>
#include <sstream>

namespace aotune {

CheckResult compare_to_reference(const std::vector<double>& out, const std::vector<double>& ref,
                                 const std::vector<double>& scale, DType dtype) {
  CheckResult r;
  if (out.size() != ref.size()) {
    r.message = "output has " + std::to_string(out.size()) + " elements, reference " +
                std::to_string(ref.size());
    return r;
  }
  const double tol = dtype_tolerance(dtype);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double denom = std::abs(ref[i]) + (scale.empty() ? 0.0 : scale[i]) + 1e-30;
    const double err = std::isnan(out[i]) ? INFINITY : std::abs(out[i] - ref[i]) / denom;
    if (err > r.max_error || std::isnan(err)) r.max_error = err;
    if (!(err <= tol) && r.bad_index < 0) {
      r.bad_index = static_cast<long long>(i);
      std::ostringstream msg;
      msg.precision(9);
      msg << "element " << i << ": got " << out[i] << ", expected " << ref[i] << " (relative error "
          << err << " > " << tol << ")";
      r.message = msg.str();
    }
  }
  r.ok = r.bad_index < 0;
  return r;
}

}  // namespace aotune
