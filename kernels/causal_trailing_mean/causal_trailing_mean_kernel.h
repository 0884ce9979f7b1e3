// causal_trailing_mean as a registered tunable kernel.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/tunable_kernel.h"

namespace aotune {

const TunableKernel& causal_trailing_mean_kernel();

// The input x a shape spec describes, row after row (B * D rows of T), as the workload uploads it:
// seeded random values in the spec's dtype, with its quiet and zero rows (causal_trailing_mean_inputs.h). Throws InvalidArgument on a
// bad spec, naming the field.
std::vector<double> trailing_input_values(const nlohmann::json& spec);

}  // namespace aotune
