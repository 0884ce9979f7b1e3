// What `aot-runner bench` reports: over the shapes of a grid, measured in a results database, the
// slowdown against the per-shape best config (the oracle) of the heuristic's choice, of the best
// single config and of the kernel's default config. Host-only: a GPU only fills the database.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heuristics/slowdown_summary.h"
#include "kernels/common/tunable_kernel.h"
#include "tuner/results_database.h"
#include "tuner/shape_grid.h"

namespace aotune::cli {

struct BenchRow {
  int64_t index = 0;
  std::string key;
  nlohmann::json spec;
  double bytes_moved = 0;
  std::string oracle_config;
  double oracle_us = 0;
  std::string heuristic_config;
  std::string heuristic_cell;  // measured | unmeasured (slowdown imputed) | broken | illegal
  std::string heuristic_reason;  // broken or illegal: the database's reason (a failed check, say)
  double heuristic_slowdown = 1;
  double best_single_slowdown = 1;
  double default_slowdown = 1;
};

struct BenchReport {
  std::string kernel;
  std::string arch;            // of the database (the GPU measured)
  std::string heuristic_arch;  // whose heuristic chose (after the fallback chain), or "none"
  bool simulated = false;
  std::string database;
  std::string best_single_config;
  std::string default_config;
  std::vector<BenchRow> rows;                // grid order
  std::vector<std::string> no_passing_config;  // grid shapes where no config passed its check
  heuristics::SlowdownSummary heuristic, best_single, default_config_summary;
  // The heuristic over the rows where its config ran and passed (slowdown finite): the summary
  // above is inf as soon as one pick failed its check (a miss), which hides how the rest went.
  heuristics::SlowdownSummary heuristic_where_it_ran;
};

// The grid's shapes must all be in `db` (InvalidArgument naming the first missing one otherwise).
// The heuristic is the dispatch library's for a GPU of `arch` (compiled + $AOTUNE_HEURISTIC_DIR).
BenchReport evaluate_bench(const TunableKernel& kernel, const tuner::ShapeGrid& grid,
                           const tuner::ResultsDatabase& db, const std::string& db_path, int arch);

void print_bench_table(const BenchReport& r);
// One row per shape; the shape spec's fields as shape.<field> columns (scripts/plot_bench.py).
void write_bench_csv(const BenchReport& r, const std::string& path);
nlohmann::ordered_json to_json(const BenchReport& r);

}  // namespace aotune::cli
