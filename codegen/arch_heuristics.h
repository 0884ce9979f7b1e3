// What one generated heuristic file holds, independent of its form (C++ header or JSON): per
// kernel, the database it came from, the scores and the fitted tables, or why there are none.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "heuristics/fit.h"
#include "heuristics/heuristic.h"

namespace aotune::codegen {

struct DatabaseIdentity {
  std::string path;    // as the repository names it: configs/<arch>/<kernel>.json
  std::string sha256;  // of the file's bytes
  std::string device;  // device name
  std::string compute_capability;
  int sm_count = 0;
  bool simulated = false;
  std::string source_hash;  // kernel source hash the database was tuned against
  std::size_t shapes = 0;   // shapes with a passing config
};

// Scores rounded to 4 decimals, so the text does not depend on the last bits of a libm.
struct FitScores {
  heuristics::SlowdownSummary heldout;
  double best_single_geomean = 0;
  std::string best_single_id;
  double default_geomean = 0;
  std::string default_id;
  std::size_t folds = 0;
  int max_depth = 0;
  std::size_t min_leaf = 1;
  // Both models' held-out geomeans on the same folds, whichever shipped (heldout is the shipped
  // one's); tree_geomean only when a forest was scored.
  double tree_geomean = 0;
  double forest_geomean = 0;
};

struct KernelEntry {
  std::string kernel;
  std::string note;  // why the tables are empty (no database, simulated, ...); empty when tuned
  std::optional<DatabaseIdentity> database;
  std::optional<FitScores> scores;
  std::vector<std::string> features;
  std::vector<std::string> config_ids;      // per table position
  std::vector<nlohmann::json> config_json;  // per table position
  heuristics::Heuristic model;              // empty when untuned
  std::string default_config_id;

  bool tuned() const { return !model.empty(); }
};

struct ArchHeuristics {
  std::string arch;
  std::vector<KernelEntry> kernels;  // registry order
};

// The canonical command that regenerates a file, written into its banner.
std::string emit_command(const std::string& arch);

}  // namespace aotune::codegen
