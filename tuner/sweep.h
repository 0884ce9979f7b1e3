// The work of one worker process: measure a list of grid shapes of one kernel on one device and
// rewrite its database after every shape. Runs inside a forked child (see tune_session.h); its
// return value is the child's exit code.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tuner/journal.h"
#include "tuner/measurement_device.h"
#include "tuner/results_database.h"
#include "tuner/search.h"
#include "tuner/shape_grid.h"

namespace aotune::tuner {

// Worker exit codes the supervisor understands (0 = every shape done; 2 = bad input; 3 = no GPU).
inline constexpr int kWorkerBudgetSpent = 10;  // stopped at the wall-clock budget: resumable
inline constexpr int kWorkerContextLost = 11;  // a sticky CUDA error: the journal names the cell

struct WorkerJob {
  const TunableKernel* kernel = nullptr;
  const ShapeGrid* grid = nullptr;
  std::vector<std::size_t> shapes;  // indices into grid->shapes, in grid order
  std::string db_path;              // rewritten after every shape
  std::string journal_path;
  ResultsDatabase start;  // header plus shapes already measured
  bool reload = false;    // restart: continue from db_path if it exists
  std::vector<CrashRecord> crashes;
  Effort effort = Effort::full;
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> deadline;        // stop here (the budget is spent)
  std::optional<Clock::time_point> share_deadline;  // this job's share: decides full -> quick
  std::string label;                                // for progress lines, e.g. "jagged_sum gpu0"
};

int run_worker(MeasurementDevice& device, const WorkerJob& job);

// The cells a shape starts with: illegal from legality, crashed from the crash list, else skipped.
// Returns false when the whole shape crashed a worker before (then every legal cell is crashed).
bool preset_cells(const GridShape& shape, const std::vector<CrashRecord>& crashes,
                  std::vector<Cell>& cells);

// Best configs of the measured shapes nearest to `shape` in log-feature space (quick-search seeds).
std::vector<std::size_t> neighbour_seeds(const ResultsDatabase& db, const GridShape& shape,
                                         std::size_t count);

}  // namespace aotune::tuner
