// causal_trailing_mean as a registered tunable kernel.
#pragma once

#include "kernels/common/tunable_kernel.h"

namespace aotune {

const TunableKernel& causal_trailing_mean_kernel();

}  // namespace aotune
