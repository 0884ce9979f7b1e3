// jagged_dense_add kernels instantiated for f32 storage.
#include "kernels/jagged_dense_add/jagged_dense_add_kernels.cuh"
#include "kernels/jagged_dense_add/jagged_dense_add_launch.h"

namespace aotune::jagged_dense_add::detail {

void launch_f32(const Config& c, const Problem& p, cudaStream_t stream) {
  launch_typed<float>(c, p, stream);
}

}  // namespace aotune::jagged_dense_add::detail
