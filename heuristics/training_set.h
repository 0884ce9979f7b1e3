// A results database reduced to what fitting needs: a feature matrix and a slowdown matrix
// (time / per-shape best time) over the shapes that have at least one passing config.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace aotune::tuner {
struct ResultsDatabase;
}

namespace aotune::heuristics {

inline constexpr double kInfiniteSlowdown = std::numeric_limits<double>::infinity();

struct TrainingSet {
  std::string kernel;
  std::vector<std::string> feature_names;
  std::vector<std::string> config_ids;   // the kernel's whole config space, in its order
  std::vector<std::string> shape_keys;
  std::vector<double> features;          // shapes x features, row-major
  std::vector<double> slowdown;          // shapes x configs; kInfiniteSlowdown when not "ok"
  std::vector<int64_t> log_cost;         // shapes x configs: round(1e6 * ln slowdown), -1 when not ok
  std::vector<uint8_t> legal;            // shapes x configs: 0 where supports() refused the config
  uint32_t default_config = 0;           // the kernel's safe default, index in config_ids
  std::size_t dropped_shapes = 0;        // database shapes left out: no config passed

  std::size_t num_shapes() const { return shape_keys.size(); }
  std::size_t num_features() const { return feature_names.size(); }
  std::size_t num_configs() const { return config_ids.size(); }
  const double* features_of(std::size_t shape) const { return &features[shape * num_features()]; }
  double slowdown_at(std::size_t shape, std::size_t config) const { return slowdown[shape * num_configs() + config]; }
  int64_t cost_at(std::size_t shape, std::size_t config) const { return log_cost[shape * num_configs() + config]; }
  bool ok(std::size_t shape, std::size_t config) const { return log_cost[shape * num_configs() + config] >= 0; }
  bool is_legal(std::size_t shape, std::size_t config) const { return legal[shape * num_configs() + config] != 0; }
};

// Slowdowns are compared as integers in millionths of a natural log, so sums are exact and the fit
// does not depend on the order of additions or on the last bit of a libm (byte-identical emits).
int64_t log_cost_of(double slowdown);

// Adds one shape: `times_us[c]` < 0 marks a config that did not pass (failed, skipped, crashed,
// illegal); `legal[c]` false marks one that supports() refused. Returns false (and adds nothing)
// when no config passed.
bool add_shape(TrainingSet& ts, const std::string& key, const std::vector<double>& features,
               const std::vector<double>& times_us, const std::vector<bool>& legal);

// From a database. The default config comes from kernel_defaults (0 for an unknown kernel).
// Throws InvalidArgument when shapes disagree on feature names.
TrainingSet training_set_from_database(const tuner::ResultsDatabase& db);

// All shape indices 0..n-1.
std::vector<std::size_t> all_rows(const TrainingSet& ts);

}  // namespace aotune::heuristics
