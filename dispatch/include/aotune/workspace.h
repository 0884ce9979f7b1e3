// Scratch memory the dispatch library keeps between calls (per device and stream).
#pragma once

namespace aotune::dispatch {

// Frees every cached scratch buffer (cudaFree waits for the device's queued work). Gives the memory
// back; a later call that needs scratch allocates it again. This frees the scratch of calls
// captured into CUDA graphs too: destroy those graphs first, or do not call it while they live.
void release_workspaces();

}  // namespace aotune::dispatch
