// Device-side validation of jagged_dense_add inputs: the offsets, with no row longer than N.
#include "kernels/common/offsets_check.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"

namespace aotune::jagged_dense_add {

void validate_device_data(const Problem& p, cudaStream_t stream) {
  check_offsets_on_device(p.offsets, p.index, p.B, p.nnz, p.N, "N", stream);
}

}  // namespace aotune::jagged_dense_add
