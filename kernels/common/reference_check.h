// Comparing a kernel's output with its float64 reference.
#pragma once

#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune {

// Element i passes when |out[i] - ref[i]| <= tol(dtype) * (|ref[i]| + scale); NaN never passes
// (the output is poisoned with NaN first, so an unwritten element fails). `scale` is the typical
// magnitude of the terms that were combined (for a sum, the mean |input| times the row length),
// so a result that cancels to near zero is not held to an impossible relative bound.
CheckResult compare_to_reference(const std::vector<double>& out, const std::vector<double>& ref,
                                 const std::vector<double>& scale, DType dtype);

}  // namespace aotune
