// A results database reduced to what fitting needs: a feature matrix and a slowdown matrix
// (time / per-shape best time) over the shapes that have at least one passing config.
//
// Cells the tuner did not measure (a quick search skips configs it judges unpromising) are not
// known to be slow by any particular amount, and counting them as infinitely slow would make the
// fit prefer a config measured everywhere even when it is 100x slower than one measured almost
// everywhere. They get an imputed slowdown instead: the worst measured on that shape, at least 2x.
// Configs that are illegal for a shape or failed there (a wrong result, a crash) are never picked.
//
// A database gets a better guess afterwards (impute_unmeasured): the mean log-slowdown of that
// config on the nearest shapes where it was measured (a per-config nearest-neighbour model in
// log-feature space), never below the shape's measured best. Worst-case imputation made every
// skipped cell look >= 2x slow, so the fit preferred configs the quick search happened to time and
// the held-out scores were dominated by guesses (a 36x "slowdown" that was never measured).
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
// The least slowdown an unmeasured cell is assumed to have.
inline constexpr double kMinUnmeasuredSlowdown = 2.0;

enum class CellKind : uint8_t {
  measured,    // passed its check and was timed
  unmeasured,  // legal but not timed (skipped by the search): imputed slowdown
  broken,      // legal but failed or crashed: never picked
  illegal,     // supports() refused it: never picked, skipped at run time
};

struct TrainingSet {
  std::string kernel;
  std::vector<std::string> feature_names;
  std::vector<std::string> config_ids;  // the kernel's whole config space, in its order
  std::vector<std::string> shape_keys;
  // Bytes each shape moves (the database's bytes_moved), for reports by size; empty when the set
  // was not built from a database (synthetic test sets).
  std::vector<double> bytes_moved;
  std::vector<double> features;   // shapes x features, row-major
  std::vector<CellKind> kind;     // shapes x configs
  std::vector<double> slowdown;   // shapes x configs: measured or imputed; infinite if never picked
  std::vector<int64_t> log_cost;  // shapes x configs: round(1e6 * ln slowdown), -1 if never picked
  uint32_t default_config = 0;    // the kernel's safe default, index in config_ids
  std::size_t dropped_shapes = 0;  // database shapes left out: no config passed

  std::size_t num_shapes() const { return shape_keys.size(); }
  std::size_t num_features() const { return feature_names.size(); }
  std::size_t num_configs() const { return config_ids.size(); }
  std::size_t cell(std::size_t shape, std::size_t config) const {
    return shape * num_configs() + config;
  }
  const double* features_of(std::size_t shape) const { return &features[shape * num_features()]; }
  double slowdown_at(std::size_t shape, std::size_t config) const {
    return slowdown[cell(shape, config)];
  }
  int64_t cost_at(std::size_t shape, std::size_t config) const {
    return log_cost[cell(shape, config)];
  }
  CellKind kind_at(std::size_t shape, std::size_t config) const {
    return kind[cell(shape, config)];
  }
  // May be picked for this shape: measured or unmeasured (not broken, not illegal).
  bool ok(std::size_t shape, std::size_t config) const {
    return log_cost[cell(shape, config)] >= 0;
  }
  bool is_legal(std::size_t shape, std::size_t config) const {
    return kind[cell(shape, config)] != CellKind::illegal;
  }
};

// Slowdowns are compared as integers in millionths of a natural log, so sums are exact and the fit
// does not depend on the order of additions or on the last bit of a libm (byte-identical emits).
int64_t log_cost_of(double slowdown);

// Adds one shape: `times_us[c]` is read for measured cells only. Returns false (and adds
// nothing, counting it in dropped_shapes) when no config was measured.
bool add_shape(TrainingSet& ts, const std::string& key, const std::vector<double>& features,
               const std::vector<double>& times_us, const std::vector<CellKind>& kinds);

// Shorthand for hand-made sets: a time >= 0 is measured; < 0 is broken where `legal`, else illegal.
bool add_shape(TrainingSet& ts, const std::string& key, const std::vector<double>& features,
               const std::vector<double>& times_us, const std::vector<bool>& legal);

enum class Imputation : uint8_t {
  worst_measured,  // what add_shape does: the worst measured slowdown on the shape, >= 2x
  neighbours,      // per-config nearest neighbours in log-feature space (see impute_unmeasured)
};

struct ImputeOptions {
  Imputation method = Imputation::neighbours;
  std::size_t neighbours = 4;  // shapes averaged per unmeasured cell
};

// Replaces the slowdown of every unmeasured cell: with `neighbours`, the mean ln slowdown of the
// same config over the `neighbours` nearest shapes where it was measured (distance: Euclidean over
// features mapped by sign(x) log2(1 + |x|) and scaled to unit standard deviation; ties by shape
// index), at least 1 (never faster than the shape's measured best). A config measured nowhere
// keeps the worst-case value. Deterministic.
void impute_unmeasured(TrainingSet& ts, const ImputeOptions& options);

// From a database. The default config comes from kernel_defaults (0 for an unknown kernel).
// Throws InvalidArgument when shapes disagree on feature names.
TrainingSet training_set_from_database(const tuner::ResultsDatabase& db,
                                       const ImputeOptions& impute = {});

// All shape indices 0..n-1.
std::vector<std::size_t> all_rows(const TrainingSet& ts);

}  // namespace aotune::heuristics
