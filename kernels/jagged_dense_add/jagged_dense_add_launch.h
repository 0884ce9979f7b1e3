// Internal: the per-dtype launch entry points, one per instance file so the build parallelises.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/jagged_dense_add/jagged_dense_add.h"

namespace aotune::jagged_dense_add::detail {

void launch_f32(const Config& c, const Problem& p, cudaStream_t stream);
void launch_bf16(const Config& c, const Problem& p, cudaStream_t stream);
void launch_f16(const Config& c, const Problem& p, cudaStream_t stream);

}  // namespace aotune::jagged_dense_add::detail
