// jagged_dense_add launch: checks the config against the problem, then routes to the dtype's
// instance file.
#include "kernels/jagged_dense_add/jagged_dense_add_launch.h"

#include "kernels/common/errors.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"

namespace aotune::jagged_dense_add {

void launch(const Config& c, const Problem& p, void* /*workspace*/, cudaStream_t stream) {
  if (const Legality legal = supports(c, p); !legal.ok) {
    throw InvalidArgument("jagged_dense_add: config " + config_id(c) +
                          " cannot run this problem: " + legal.reason);
  }
  if (p.B == 0 || p.N == 0) return;  // nothing to write (and nnz == 0 by validate())
  switch (p.dtype) {
    case DType::f32:
      return detail::launch_f32(c, p, stream);
    case DType::bf16:
      return detail::launch_bf16(c, p, stream);
    case DType::f16:
      return detail::launch_f16(c, p, stream);
  }
  throw InvalidArgument("jagged_dense_add: unknown dtype " +
                        std::to_string(static_cast<int>(p.dtype)));
}

}  // namespace aotune::jagged_dense_add
