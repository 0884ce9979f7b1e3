// Runs one kernel's remaining shapes on one worker process per device and supervises them: a
// worker that dies (a signal, or a lost CUDA context) gets the cell it was running recorded as
// crashed and is restarted on its own database; a worker silent for too long is killed the same
// way. Restarts are bounded. With several workers, their pieces are merged into the database.
#pragma once

#include <chrono>
#include <optional>

#include "tuner/kernel_state.h"

namespace aotune::tuner {

struct PoolResult {
  int restarts = 0;
  bool budget_spent = false;
  int interrupted = 0;  // the signal an InterruptGuard caught (the workers were killed), or 0
};

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

// `deadline` stops the sweep; `share_deadline` is this kernel's share of the budget (full effort
// turns quick past it). Throws aotune::Error when a worker fails for good. A signal caught by the
// session's InterruptGuard kills the workers and returns, with their pieces merged as usual.
PoolResult run_worker_pool(const TuneOptions& o, const DeviceSetup& setup, KernelState& st,
                           Deadline deadline, Deadline share_deadline);

}  // namespace aotune::tuner
