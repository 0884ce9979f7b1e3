// The whole fit of one kernel on one architecture: config subset, tree with cross-validated
// hyper-parameters, and the scores that matter (held-out, against the best single config and the
// default config).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "heuristics/cross_validation.h"
#include "heuristics/forest.h"
#include "heuristics/heuristic.h"
#include "heuristics/slowdown_summary.h"
#include "heuristics/training_set.h"

namespace aotune::heuristics {

enum class ModelChoice : uint8_t { tree, best };

// A forest ships only when it holds out at least 0.75 % better than the tree in geomean: it costs
// selection time (3-4 us against tens of ns on a shape not seen before, PERF.md "Selection
// speed") and megabytes of tables, so a near tie keeps the tree. The margin sits between the
// cases the test sets (random shapes, every config timed) have judged: causal_trailing_mean's
// 32-tree forest held out 0.55 % better than its tree in session 60 and scored 0.3-0.4 % worse on
// both of its test sets (so 1 % in session 60, 0.5 % before); on the grid grown by 240 random
// draws (session 61) it holds out 0.88 % better and scores 1.1-1.9 % better on both. At 0.26 %
// (jagged_dense_add, session 61) forest and tree tie on the test sets; the jagged forests hold
// out 4 % better (PERF.md, Sessions 60 and 61).
inline constexpr double kForestMargin = 0.9925;

struct FitOptions {
  CrossValidationOptions cv;
  // Held-out scoring repeated over this many fold draws (salts first_draw .. first_draw+repeats-1).
  // One split's score swings by a few percent in geomean and by several x in max on a 200-shape
  // grid, so compare fitter variants over repeats. `heldout` (and its worst shapes) come from
  // first_draw, so any draw's catastrophic picks can be looked at; the model never depends on it.
  std::size_t repeats = 1;
  uint64_t first_draw = 0;
  // Also score a forest (forest.h) on the same fold draws; trees == 0: off (the tree only).
  ForestOptions forest{};
  // Which model FitResult::model is: always the tree, or the better of the two (the forest when
  // its held-out geomean on fold draw 0 is at most kForestMargin times the tree's).
  ModelChoice model = ModelChoice::best;
};

struct FitResult {
  Heuristic model;  // fitted on every shape: the tree (cross-validated hyper-parameters) or the forest
  HyperParams params;
  HeldOut heldout_detail;
  std::vector<double> heldout_slowdowns;  // per shape, from heuristics that never saw it
  SlowdownSummary heldout;                // THE metric
  // The held-out slowdowns of the shapes whose legal configs were all measured (no imputed cell
  // anywhere on the shape): the part of the score that does not depend on imputation.
  SlowdownSummary heldout_fully_measured;
  SlowdownSummary training;               // the final model on its own training shapes (optimistic)
  SlowdownSummary best_single;            // one config for every shape
  SlowdownSummary default_config;         // the safe default for every shape
  uint32_t best_single_config = 0;
  std::vector<SlowdownSummary> heldout_repeats;  // one per fold draw, first_draw first (= heldout)
  uint64_t draw = 0;                              // the fold draw of heldout and heldout_detail
  // Each model's held-out score on the same draws (first_draw first), whichever shipped; the
  // forest's only with FitOptions::forest on.
  SlowdownSummary heldout_tree;
  std::vector<SlowdownSummary> heldout_tree_repeats;
  SlowdownSummary heldout_forest;
  std::vector<SlowdownSummary> heldout_forest_repeats;
  ForestOptions forest{.trees = 0};
  bool shipped_forest = false;  // model is the forest (model.is_forest())
};

FitResult fit_heuristic(const TrainingSet& ts, const FitOptions& options);

// The report `aot-runner fit --json` prints: kernel, arch, num_configs, tree_depth, heldout,
// heldout_fully_measured (with its "shapes" count), best_single_config, default_config, plus
// training scores and the fit's details, among them the `worst` slowest held-out shapes; with a
// forest scored, heldout_forest (and heldout_forest_repeated over several draws) at the end.
nlohmann::ordered_json fit_report_json(const FitResult& fit, const TrainingSet& ts,
                                       const std::string& arch, std::size_t worst = 10);

// The fitted model scored on another database's shapes: an out-of-grid test set such as
// bench/testset, whose every config was timed. Each shape is routed as at run time (route(), the
// test database's legality standing in for supports()) and its slowdown looked up, next to the
// training set's best single config and the kernel's default on the same shapes. Cross-validation
// holds out shapes of the training grid; this holds out the space around it (on the jagged
// reductions it reads 6-11 % worse; docs/PERF.md, Session 52). `worst` lists that many of the
// slowest picks. Throws InvalidArgument when the two sets differ in kernel, configs or features.
nlohmann::ordered_json test_set_json(const FitResult& fit, const TrainingSet& train,
                                     const TrainingSet& test, std::size_t worst = 10);

}  // namespace aotune::heuristics
