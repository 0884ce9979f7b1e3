// jagged_sum and jagged_mean as registered tunable kernels.
#pragma once

#include "kernels/common/tunable_kernel.h"

namespace aotune {

const TunableKernel& jagged_sum_kernel();
const TunableKernel& jagged_mean_kernel();

}  // namespace aotune
