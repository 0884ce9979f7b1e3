// jagged_dense_add as a registered tunable kernel.
#pragma once

#include "kernels/common/tunable_kernel.h"

namespace aotune {

const TunableKernel& jagged_dense_add_kernel();

}  // namespace aotune
