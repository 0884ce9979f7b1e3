// causal_trailing_mean kernels instantiated for f32 storage.
#include "kernels/causal_trailing_mean/causal_trailing_mean_kernels.cuh"
#include "kernels/causal_trailing_mean/causal_trailing_mean_launch.h"

namespace aotune::causal_trailing_mean::detail {

void launch_f32(const Config& c, const Problem& p, cudaStream_t stream) { launch_typed<float>(c, p, stream); }

}  // namespace aotune::causal_trailing_mean::detail
