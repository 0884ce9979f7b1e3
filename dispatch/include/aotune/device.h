// The architecture of the GPUs a process uses, read once per device (multi-GPU aware, thread-safe).
#pragma once

namespace aotune::dispatch {

// The current device's ordinal (cudaGetDevice). Throws CudaError without a usable GPU.
int current_device();
// major*10 + minor of device `ordinal` (90 for an H100 or H200), queried on first use and cached.
int device_arch(int ordinal);

}  // namespace aotune::dispatch
