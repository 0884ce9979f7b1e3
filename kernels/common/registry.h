// The list of tunable kernels, in a stable order.
#pragma once

#include <string_view>
#include <vector>

#include "kernels/common/tunable_kernel.h"

namespace aotune {

const std::vector<const TunableKernel*>& all_kernels();
// Throws InvalidArgument listing the known names when `name` is not one of them.
const TunableKernel& find_kernel(std::string_view name);

}  // namespace aotune
