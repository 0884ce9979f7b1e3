// Device-side validation of jagged offsets: one small kernel sets an error flag, so the offsets
// never travel to the host. Opt-in (it costs a launch and a sync): tests and aot-runner turn it on.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/common/dtype.h"

namespace aotune {

// Throws InvalidArgument naming the first bad entry when offsets[0] != 0, offsets[B] != nnz,
// offsets decrease, or a row is longer than `max_row_length` (pass a negative value for no limit;
// `row_limit_name` says which bound it is, e.g. "N" or "max_len"). Synchronises `stream`.
void check_offsets_on_device(const void* offsets, IndexType type, int64_t B, int64_t nnz,
                             int64_t max_row_length, const char* row_limit_name,
                             cudaStream_t stream);

}  // namespace aotune
