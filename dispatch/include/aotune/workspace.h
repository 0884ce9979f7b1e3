// Scratch memory the dispatch library keeps between calls (per device and stream).
#pragma once

namespace aotune::dispatch {

// Frees every cached scratch buffer (cudaFree waits for the device's queued work). Gives the memory
// back; a later call that needs scratch allocates it again.
void release_workspaces();

}  // namespace aotune::dispatch
