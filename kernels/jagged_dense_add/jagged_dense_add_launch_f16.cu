// jagged_dense_add kernels instantiated for f16 storage.
#include "kernels/jagged_dense_add/jagged_dense_add_kernels.cuh"
#include "kernels/jagged_dense_add/jagged_dense_add_launch.h"

namespace aotune::jagged_dense_add::detail {

void launch_f16(const Config& c, const Problem& p, cudaStream_t stream) {
  launch_typed<__half>(c, p, stream);
}

}  // namespace aotune::jagged_dense_add::detail
