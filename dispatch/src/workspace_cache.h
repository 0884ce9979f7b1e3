// Scratch memory for configs that need it, cached per (device, stream) and grown on demand
// (dispatch/src/scratch_pool.h). A buffer is reused only by work queued on the same stream, so
// concurrent streams never share it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "dispatch/src/scratch_pool.h"

namespace aotune::dispatch {

// At least `bytes` of device memory on `device` for work on `stream` (null when bytes is 0),
// valid while the lease lives: keep it until the launch that uses it is enqueued. Growing waits
// for the stream first, since its queued work may still use the old buffer; calls through
// cudaStreamPerThread get a buffer per calling thread, since each thread's is another stream.
// While `stream` is capturing a CUDA graph the call gets a zeroed buffer of its own instead, kept
// until release_workspaces(), so graph replays and eager calls never share scratch.
ScratchLease workspace_for(int device, cudaStream_t stream, std::size_t bytes);

}  // namespace aotune::dispatch
