// Checks that a heuristic can be used with a kernel as built: the same features in the same order,
// configs that exist in the kernel's space, and tables whose indices stay in range.
#pragma once

#include "aotune/heuristic_store.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune::dispatch {

// Features a heuristic may read: dispatch copies them into a fixed array on the stack.
inline constexpr std::size_t kMaxFeatures = 32;

// Resolves h.configs from h.config_ids, then checks everything. Throws InvalidArgument naming the
// first defect.
void resolve_and_check(KernelHeuristic& h, const TunableKernel& kernel);

}  // namespace aotune::dispatch
