// Device properties a launcher needs per call, read once per device and cached.
#pragma once

namespace aotune {

// Streaming multiprocessors of the calling thread's current device (cudaGetDevice), asked of the
// driver once per device ordinal; thread-safe.
int current_device_sm_count();

}  // namespace aotune
