// causal_trailing_mean launch: checks the config against the problem, then routes to the dtype's
// instance file.
#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_launch.h"
#include "kernels/common/errors.h"

namespace aotune::causal_trailing_mean {

void launch(const Config& c, const Problem& p, void* /*workspace*/, cudaStream_t stream) {
  if (const Legality legal = supports(c, p); !legal.ok) {
    throw InvalidArgument("causal_trailing_mean: config " + config_id(c) +
                          " cannot run this problem: " + legal.reason);
  }
  if (p.B == 0 || p.D == 0 || p.T == 0) return;  // nothing to write
  switch (p.dtype) {
    case DType::f32: return detail::launch_f32(c, p, stream);
    case DType::bf16: return detail::launch_bf16(c, p, stream);
    case DType::f16: return detail::launch_f16(c, p, stream);
  }
  throw InvalidArgument("causal_trailing_mean: unknown dtype " +
                        std::to_string(static_cast<int>(p.dtype)));
}

}  // namespace aotune::causal_trailing_mean
