// Scratch memory for configs that need it, cached per (device, stream) and grown on demand. A
// buffer is reused only by work queued on the same stream, so concurrent streams never share it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace aotune::dispatch {

// At least `bytes` of device memory on `device` for work on `stream`; null when bytes is 0.
// Growing waits for the stream first, since its queued work may still use the old buffer.
void* workspace_for(int device, cudaStream_t stream, std::size_t bytes);

}  // namespace aotune::dispatch
