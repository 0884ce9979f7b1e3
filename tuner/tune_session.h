// `aot-runner tune`: the supervising parent of a sweep. It expands the grids, checks what the
// databases already hold, forks one worker process per GPU (the parent itself never initialises
// CUDA), restarts a worker that a config killed (recording that cell as crashed), merges the
// workers' pieces and reports. See sweep.h for the worker, DESIGN.md for the contracts.
#pragma once

#include <string>
#include <vector>

#include "kernels/common/errors.h"
#include "tuner/search.h"
#include "tuner/timing_protocol.h"

namespace aotune::tuner {

struct TuneOptions {
  std::vector<std::string> kernels;  // empty: every registered kernel
  std::string grid_dir = "configs/grids";
  std::string out_dir = "configs";
  bool simulate = false;      // --device sim
  std::string devices = "0";  // all | comma-separated ordinals
  std::string shard;          // i/N; empty: from the environment (shard.h)
  std::string arch;           // empty: the device's
  Effort effort = Effort::full;
  double budget_seconds = 0;  // 0: no limit
  bool resume = false;
  bool force = false;
  bool assert_cache_hit = false;
  bool list_shapes = false;
  bool json = false;
  int max_restarts = 20;              // per kernel and worker
  double cell_timeout_seconds = 600;  // a worker silent this long is killed (a hung kernel)
  double lock_timeout_seconds = 30;
  double sim_delay_ms = -1;  // < 0: AOTUNE_SIM_DELAY_MS or none
  TimingProtocol protocol;
};

// --assert-cache-hit found shapes without a current measurement (they are listed on stdout).
class CacheMissError : public Error {
 public:
  using Error::Error;
};

// Tunes, lists shapes or asserts a cache hit. A sweep stopped by the budget returns normally (the
// summary says so). Throws InvalidArgument for bad input, CacheMissError, NoGpu (device_setup.h)
// when a GPU sweep finds no usable device, and aotune::Error otherwise; every message says what to
// do.
void run_tune(const TuneOptions& options);

}  // namespace aotune::tuner
