// Synthetic inputs for the heuristics, codegen and dispatch tests: hand-made training sets with a
// known answer, and results databases built from the simulated device's cost model (no GPU, no
// tuner CLI), saved into temporary folders laid out like configs/.
#pragma once

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "heuristics/training_set.h"
#include "kernels/common/registry.h"
#include "tuner/results_database.h"
#include "tuner/shape_grid.h"
#include "tuner/simulated_device.h"
#include "tuner/timing_protocol.h"

namespace aotune::test {

// A training set over `features` and `configs` configs named c0, c1, ...
inline heuristics::TrainingSet empty_training_set(std::vector<std::string> features,
                                                  std::size_t configs) {
  heuristics::TrainingSet ts;
  ts.kernel = "synthetic";
  ts.feature_names = std::move(features);
  for (std::size_t c = 0; c < configs; ++c) ts.config_ids.push_back(fmt::format("c{}", c));
  return ts;
}

// One shape whose configs all passed and are legal.
inline void add_timed_shape(heuristics::TrainingSet& ts, const std::string& key,
                            const std::vector<double>& features,
                            const std::vector<double>& times_us) {
  heuristics::add_shape(ts, key, features, times_us, std::vector<bool>(times_us.size(), true));
}

// A known optimal tree: config c0 is best when M < 64, c1 otherwise; c2 is a 1.5x compromise. B
// is noise (and a small jitter keeps the slowdowns from tying).
inline heuristics::TrainingSet piecewise_constant_set() {
  heuristics::TrainingSet ts = empty_training_set({"B", "M"}, 3);
  std::mt19937_64 rng(3);
  for (const double m : {1.0, 2.0, 8.0, 16.0, 32.0, 64.0, 128.0, 512.0, 1024.0, 4096.0}) {
    for (const double b : {1.0, 7.0, 100.0, 3000.0}) {
      const double jitter = 1.0 + 0.01 * static_cast<double>(rng() % 5);
      const bool small = m < 64;
      add_timed_shape(ts, fmt::format("B={},M={}", b, m), {b, m},
                      {small ? 1.0 : 2.0 * jitter, small ? 2.5 * jitter : 1.0, 1.5});
    }
  }
  return ts;
}

// A folder removed when the test ends.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            fmt::format("aotune_test_{}_{}", ::getpid(), counter++);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string str() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A results database of `kernel` over the grid `generators`, timed by the simulated device's cost
// model. `real` marks it as measured on a (fake) real GPU so emit fits it; else it is simulated.
inline tuner::ResultsDatabase cost_model_database(const std::string& kernel_name,
                                                  const nlohmann::ordered_json& generators,
                                                  const std::string& arch, bool real) {
  const TunableKernel& kernel = find_kernel(kernel_name);
  const nlohmann::ordered_json doc = {{"kernel", kernel_name}, {"generators", generators}};
  const tuner::ShapeGrid grid = tuner::expand_shape_grid(doc, kernel, "test grid");
  tuner::ResultsDatabase db;
  db.kernel = kernel_name;
  db.arch = arch;
  db.device = tuner::simulated_device_info(arch);
  if (real) {
    db.device.name = "Test GPU";
    db.device.simulated = false;
  }
  db.source_hash = std::string(kernel.source_hash());
  db.protocol = tuner::to_json(tuner::TimingProtocol{}, "full");
  db.configs = tuner::config_entries(kernel);
  db.grid_shapes = static_cast<int64_t>(grid.shapes.size());
  db.grid_digest = grid.digest;
  for (const tuner::GridShape& g : grid.shapes) {
    tuner::ShapeResult s;
    s.index = g.index;
    s.key = g.key;
    s.spec = g.spec;
    s.features = g.info.features;
    s.bytes_moved = g.info.bytes_moved;
    s.search = "exhaustive";
    double best = 0;
    for (std::size_t c = 0; c < kernel.num_configs(); ++c) {
      if (!g.info.legality[c].ok) {
        s.cells.push_back(tuner::Cell::with(tuner::CellStatus::illegal, g.info.legality[c].reason));
        continue;
      }
      tuner::Timing t;
      t.median_us = t.p10_us = t.p90_us = tuner::round_us(tuner::simulated_time_us(kernel, c, g));
      t.reps = 5;
      s.cells.push_back(tuner::Cell::measured(t));
      if (!s.best || t.median_us < best) {
        s.best = c;
        best = t.median_us;
      }
    }
    db.shapes.push_back(std::move(s));
  }
  return db;
}

// Small grids for each kernel, a few dozen shapes each.
inline nlohmann::ordered_json small_grid(const std::string& kernel) {
  using j = nlohmann::ordered_json;
  if (kernel == "jagged_sum" || kernel == "jagged_mean") {
    return j::array({{{"B", {4, 64, 1024}},
                      {"M", {1, 8, 64, 256}},
                      {"len", {4, 128}},
                      {"dtype", {"f32", "bf16"}}}});
  }
  if (kernel == "jagged_dense_add") {
    return j::array(
        {{{"B", {4, 64, 1024}}, {"N", {64, 512}}, {"len", {4, 48}}, {"dtype", {"f32", "bf16"}}}});
  }
  return j::array({{{"B", {1, 8}},
                    {"D", {4, 64}},
                    {"T", {64, 2048}},
                    {"cf", {4, 256}},
                    {"dtype", {"f32", "bf16"}}}});
}

// A configs/ folder with manifest.json listing `archs` and every registered kernel.
inline void write_manifest(const std::string& configs_dir, const std::vector<std::string>& archs) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const TunableKernel* k : all_kernels()) kernels.push_back(k->name());
  std::filesystem::create_directories(configs_dir);
  std::ofstream(configs_dir + "/manifest.json")
      << nlohmann::json{{"architectures", archs}, {"kernels", kernels}}.dump(2);
}

}  // namespace aotune::test
