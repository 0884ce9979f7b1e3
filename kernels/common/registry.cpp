#include "kernels/common/registry.h"

#include <string>

#include "kernels/causal_trailing_mean/causal_trailing_mean_kernel.h"
#include "kernels/common/errors.h"
#include "kernels/jagged_dense_add/jagged_dense_add_kernel.h"
#include "kernels/jagged_reduce/jagged_reduce_kernel.h"

namespace aotune {

const std::vector<const TunableKernel*>& all_kernels() {
  // One line per kernel. Function-local statics: built on first use, never torn down early.
  static const std::vector<const TunableKernel*> kernels = {
      &jagged_sum_kernel(),
      &jagged_mean_kernel(),
      &jagged_dense_add_kernel(),
      &causal_trailing_mean_kernel(),
  };
  return kernels;
}

const TunableKernel& find_kernel(std::string_view name) {
  std::string known;
  for (const TunableKernel* k : all_kernels()) {
    if (k->name() == name) return *k;
    known += (known.empty() ? "" : ", ") + std::string(k->name());
  }
  throw InvalidArgument("unknown kernel '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace aotune
