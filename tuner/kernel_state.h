// Where one kernel's sweep stands before any measuring: its grid slice, its database (validated,
// never overwritten when corrupt or foreign unless --force), pieces left by an interrupted
// multi-GPU run, the cells that crashed a worker, and the shapes still to measure.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tuner/device_setup.h"
#include "tuner/file_lock.h"
#include "tuner/journal.h"
#include "tuner/results_database.h"
#include "tuner/shape_grid.h"
#include "tuner/shard.h"

namespace aotune::tuner {

struct KernelState {
  const TunableKernel* kernel = nullptr;
  ShapeGrid grid;
  std::vector<std::size_t> mine;  // grid indices of this shard, ascending
  std::string db_path;
  std::unique_ptr<FileLock> lock;
  ResultsDatabase base;                // header plus every shape already measured
  std::vector<std::string> leftovers;  // worker files folded into `base`, deleted once it is saved
  std::vector<CrashRecord> crashes;
  std::vector<std::size_t> remaining;  // grid indices still to measure
  std::size_t measured_before = 0;
  std::vector<std::string> remeasure;  // keys of measured shapes below --effort, measured again
  bool up_to_date = false;  // complete and current: nothing to do
};

std::string crashes_path(const std::string& db_path);
std::string journal_path(const std::string& worker_db_path);

// The header a sweep of `kernel` on this setup writes (no shapes).
ResultsDatabase make_header(const TunableKernel& kernel, const DeviceSetup& setup,
                            const ShapeGrid& grid, const ShardSpec& shard, Effort effort);

// Shapes of `db` searched less than `effort` asks (meets_effort: a budget cut them to quick).
std::size_t below_effort(const ResultsDatabase& db, Effort effort);

// Locks the database and decides what to do; throws InvalidArgument saying which flag to pass.
KernelState prepare_kernel(const TuneOptions& o, const DeviceSetup& setup, const ShardSpec& shard,
                           const TunableKernel& kernel, ShapeGrid grid);

}  // namespace aotune::tuner
