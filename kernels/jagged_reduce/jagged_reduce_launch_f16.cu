// jagged_reduce kernels instantiated for f16 storage.
#include "kernels/jagged_reduce/jagged_reduce_launch_impl.cuh"

namespace aotune::jagged_reduce {

void launch_f16(const Config& c, const Problem& p, void* workspace, cudaStream_t stream) {
  detail::launch_typed<__half>(c, p, workspace, stream);
}

}  // namespace aotune::jagged_reduce
