// Scoring: held-out slowdowns come only from heuristics that never saw the shape; summaries,
// infinite slowdowns for configs that did not pass, folds and the fit report.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "heuristics/cross_validation.h"
#include "heuristics/fit.h"
#include "tests/heuristics_test_support.h"

namespace aotune::heuristics {
namespace {

using test::add_timed_shape;
using test::empty_training_set;

// Shape i has feature x = i and is the only shape on which config i is fast (1.0); every other
// config is 3x slower there. A tree can memorise the training shapes perfectly, but a shape
// left out has no trace in its training data: its own config is never kept.
TrainingSet memorisable(std::size_t n) {
  TrainingSet ts = empty_training_set({"x"}, n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> t(n, 3.0);
    t[i] = 1.0;
    add_timed_shape(ts, fmt::format("shape{}", i), {static_cast<double>(i)}, t);
  }
  return ts;
}

TEST(HeldOutScoring, UsesOnlyShapesTheHeuristicWasNotFittedOn) {
  const TrainingSet ts = memorisable(8);
  FitOptions options;
  options.cv.subset.max_configs = 8;
  // A deep tree fitted on every shape memorises them: training accuracy is perfect.
  const Heuristic deep =
      fit_on(ts, all_rows(ts), {.max_depth = 8, .min_leaf = 1}, options.cv.subset);
  for (std::size_t row = 0; row < ts.num_shapes(); ++row)
    EXPECT_EQ(route(deep, ts, row).config, row);
  const FitResult fit = fit_heuristic(ts, options);
  // Held out, each shape was predicted by a model that never saw it: exactly 3x everywhere.
  EXPECT_NEAR(fit.heldout.geomean, 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(fit.heldout.max, 3.0);
  for (std::size_t row = 0; row < ts.num_shapes(); ++row)
    EXPECT_NE(fit.heldout_detail.choices[row].config, row);
}

TEST(HeldOutScoring, NoFoldPredictsItsOwnShapes) {
  const TrainingSet ts = memorisable(20);
  CrossValidationOptions options;
  options.subset.max_configs = 20;
  const HeldOut h = heldout_choices(ts, options);
  EXPECT_EQ(h.per_fold.size(), 5u);
  for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
    // A model that had seen shape `row` would have kept config `row` and routed it there.
    EXPECT_NE(h.choices[row].config, row) << "shape " << row << " (fold " << h.fold_of[row] << ")";
  }
}

TEST(HeldOutScoring, AGeneralisingTreeScoresWellHeldOut) {
  // Two regimes by feature: learnable, so held-out is as good as training.
  TrainingSet ts = empty_training_set({"x"}, 2);
  for (int i = 0; i < 40; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {double(i)},
                    {i < 20 ? 1.0 : 2.0, i < 20 ? 2.0 : 1.0});
  const FitResult fit = fit_heuristic(ts, {});
  EXPECT_DOUBLE_EQ(fit.training.geomean, 1.0);
  EXPECT_DOUBLE_EQ(fit.heldout.geomean, 1.0);
}

// c0 is `gain` faster than c1 wherever it is legal, and illegal on every other shape; nothing in
// the feature tells which (see TreeFit.RoutedHeadsSaveTheSplitThatPlainListsSpendOnLegality).
TrainingSet half_legal(double gain) {
  TrainingSet ts = empty_training_set({"noise"}, 2);
  for (int i = 0; i < 60; ++i) {
    const bool legal = i % 2 == 0;
    add_shape(ts, fmt::format("s{}", i), {static_cast<double>(i % 7)}, {legal ? 1.0 : -1.0, gain},
              {legal, true});
  }
  return ts;
}

TEST(HeldOutScoring, CrossValidationChoosesRoutedHeadsOnlyWhenTheyWinByTheMargin) {
  const CrossValidationOptions options;
  const TrainingSet clear = half_legal(1.10);  // 10 % on half the shapes: ~5 % a shape
  EXPECT_TRUE(choose_hyper_params(clear, all_rows(clear), options).routed_heads);
  const TrainingSet hair = half_legal(1.004);  // 0.2 % a shape: under the 0.5 % margin
  EXPECT_FALSE(choose_hyper_params(hair, all_rows(hair), options).routed_heads);
}

// The choice sums its costs over several fold draws; those draws deal folds by shape key, so the
// choice is the same whatever order the rows come in, and a single draw is still available.
TEST(HeldOutScoring, TheHyperParameterChoiceOverSeveralDrawsIsIndependentOfRowOrder) {
  const TrainingSet ts = half_legal(1.10);
  std::vector<std::size_t> rows = all_rows(ts), reversed(rows.rbegin(), rows.rend());
  CrossValidationOptions options;
  ASSERT_EQ(options.inner_draws, 3u);
  const HyperParams forward = choose_hyper_params(ts, rows, options);
  EXPECT_EQ(choose_hyper_params(ts, reversed, options), forward);
  options.inner_draws = 1;
  EXPECT_EQ(choose_hyper_params(ts, reversed, options), choose_hyper_params(ts, rows, options));
  EXPECT_TRUE(choose_hyper_params(ts, rows, options).routed_heads) << "10 % on half the shapes wins either way";
}

// `regimes` stretches of feature x, 10 shapes each, each with its own fast config (1.0; every other
// config 2x slower there).
TrainingSet regimes(std::size_t count) {
  TrainingSet ts = empty_training_set({"x"}, count);
  for (std::size_t i = 0; i < count * 10; ++i) {
    std::vector<double> t(count, 2.0);
    t[i / 10] = 1.0;
    add_timed_shape(ts, fmt::format("r{}", i), {static_cast<double>(i)}, t);
  }
  return ts;
}

// The subset size is a hyper-parameter like depth: the smallest size that covers what the data
// needs, never more than the cap.
TEST(HeldOutScoring, CrossValidationChoosesTheSubsetSizeTheDataNeeds) {
  CrossValidationOptions options;  // sizes 8, 12 and the cap 16
  const TrainingSet four = regimes(4), twelve = regimes(12);
  EXPECT_EQ(choose_hyper_params(four, all_rows(four), options).max_configs, 8u);
  const HyperParams p = choose_hyper_params(twelve, all_rows(twelve), options);
  EXPECT_EQ(p.max_configs, 12u);
  EXPECT_EQ(fit_on(twelve, all_rows(twelve), p, options.subset).configs.size(), 12u);
  options.subset.max_configs = 10;  // a lower cap is tried itself, with the sizes under it
  EXPECT_EQ(choose_hyper_params(twelve, all_rows(twelve), options).max_configs, 10u);
}

TEST(Folds, AreBalancedDeterministicAndIndependentOfGridOrder) {
  TrainingSet a = empty_training_set({"x"}, 1), b = empty_training_set({"x"}, 1);
  for (int i = 0; i < 23; ++i) add_timed_shape(a, fmt::format("k{}", i), {0}, {1});
  for (int i = 22; i >= 0; --i) add_timed_shape(b, fmt::format("k{}", i), {0}, {1});
  const auto fa = assign_folds(a, all_rows(a), 5), fb = assign_folds(b, all_rows(b), 5);
  std::vector<int> sizes(5, 0);
  for (std::size_t i = 0; i < 23; ++i) {
    ++sizes[fa[i]];
    EXPECT_EQ(fa[i], fb[22 - i]) << a.shape_keys[i];
  }
  EXPECT_LE(
      *std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()),
      1);
  EXPECT_EQ(assign_folds(a, all_rows(a), 5), fa);
}

TEST(Folds, ASaltRedrawsThemBalancedAndSaltZeroIsTheCanonicalDraw) {
  TrainingSet ts = empty_training_set({"x"}, 1);
  for (int i = 0; i < 40; ++i) add_timed_shape(ts, fmt::format("k{}", i), {0}, {1});
  const auto canonical = assign_folds(ts, all_rows(ts), 5);
  EXPECT_EQ(assign_folds(ts, all_rows(ts), 5, 0), canonical);
  const auto redrawn = assign_folds(ts, all_rows(ts), 5, 1);
  EXPECT_NE(redrawn, canonical);
  EXPECT_EQ(assign_folds(ts, all_rows(ts), 5, 1), redrawn);  // deterministic per salt
  std::vector<int> sizes(5, 0);
  for (const std::size_t f : redrawn) ++sizes[f];
  for (const int n : sizes) EXPECT_EQ(n, 8);
}

TEST(SlowdownSummary, ComputesGeomeanNearestRankP95AndMax) {
  std::vector<double> s(100, 1.0);
  for (int i = 0; i < 10; ++i) s[static_cast<std::size_t>(i)] = 1.0 + 0.1 * (i + 1);  // 1.1 .. 2.0
  const SlowdownSummary sum = summarize_slowdowns(s);
  double log_sum = 0;
  for (const double v : s) log_sum += std::log(v);
  EXPECT_NEAR(sum.geomean, std::exp(log_sum / 100), 1e-12);
  EXPECT_DOUBLE_EQ(sum.p95, 1.5);  // 95th of 100 sorted values: 90 ones then 1.1 .. 2.0
  EXPECT_DOUBLE_EQ(sum.max, 2.0);
  EXPECT_EQ(sum.misses, 0u);
}

TEST(SlowdownSummary, CountsConfigsThatDidNotPassAsInfinitelySlow) {
  const SlowdownSummary sum = summarize_slowdowns({1.0, 1.2, kInfiniteSlowdown});
  EXPECT_EQ(sum.misses, 1u);
  EXPECT_TRUE(std::isinf(sum.geomean));
  const auto j = to_json(sum);
  EXPECT_TRUE(j["geomean_slowdown"].is_null());
  EXPECT_TRUE(j["max_slowdown"].is_null());
  EXPECT_EQ(j["misses"], 1);
}

TEST(TrainingSet, MarksCellsThatDidNotPassAndDropsShapesWithoutAnyPass) {
  TrainingSet ts = empty_training_set({"x"}, 2);
  EXPECT_TRUE(add_shape(ts, "a", {1}, {2.0, -1.0}, {true, false}));
  EXPECT_FALSE(add_shape(ts, "b", {1}, {-1.0, -1.0}, {true, true}));
  EXPECT_EQ(ts.num_shapes(), 1u);
  EXPECT_EQ(ts.dropped_shapes, 1u);
  EXPECT_DOUBLE_EQ(ts.slowdown_at(0, 0), 1.0);
  EXPECT_TRUE(std::isinf(ts.slowdown_at(0, 1)));
  EXPECT_FALSE(ts.ok(0, 1));
  EXPECT_FALSE(ts.is_legal(0, 1));
}

TEST(TrainingSet, ImputesUnmeasuredCellsAsTheWorstMeasuredSlowdownAtLeastTwofold) {
  TrainingSet ts = empty_training_set({"x"}, 4);
  using K = CellKind;
  add_shape(ts, "mild", {1}, {1.0, 1.5, 0, 0},
            {K::measured, K::measured, K::unmeasured, K::broken});
  add_shape(ts, "wild", {2}, {1.0, 10.0, 0, 0},
            {K::measured, K::measured, K::unmeasured, K::illegal});
  EXPECT_DOUBLE_EQ(ts.slowdown_at(0, 2), 2.0);   // worst measured is 1.5x: the 2x floor applies
  EXPECT_DOUBLE_EQ(ts.slowdown_at(1, 2), 10.0);  // as slow as the worst measured config
  EXPECT_TRUE(ts.ok(0, 2));                      // may be picked: it is legal and did not fail
  EXPECT_FALSE(ts.ok(0, 3));                     // failed: never picked
  EXPECT_TRUE(ts.is_legal(0, 3));
  EXPECT_FALSE(ts.is_legal(1, 3));
}

TEST(TrainingSet, NeighbourImputationUsesTheSameConfigOnTheNearestMeasuredShapes) {
  // c1 is unmeasured on x=2; measured 1.5x on x=1 (near) and 8x on x=1000 (far).
  TrainingSet ts = empty_training_set({"x"}, 2);
  using K = CellKind;
  add_shape(ts, "near", {1}, {1.0, 1.5}, {K::measured, K::measured});
  add_shape(ts, "gap", {2}, {1.0, 0}, {K::measured, K::unmeasured});
  add_shape(ts, "far", {1000}, {1.0, 8.0}, {K::measured, K::measured});
  EXPECT_DOUBLE_EQ(ts.slowdown_at(1, 1), 2.0);  // worst-case until imputed: the 2x floor
  TrainingSet worst = ts;
  impute_unmeasured(worst, {.method = Imputation::worst_measured});
  EXPECT_DOUBLE_EQ(worst.slowdown_at(1, 1), 2.0);
  TrainingSet one = ts;
  impute_unmeasured(one, {.method = Imputation::neighbours, .neighbours = 1});
  EXPECT_NEAR(one.slowdown_at(1, 1), 1.5, 1e-12);
  EXPECT_EQ(one.cost_at(1, 1), log_cost_of(one.slowdown_at(1, 1)));
  EXPECT_EQ(one.kind_at(1, 1), K::unmeasured);  // still counted as an unmeasured pick
  TrainingSet two = ts;
  impute_unmeasured(two, {.method = Imputation::neighbours, .neighbours = 2});
  EXPECT_NEAR(two.slowdown_at(1, 1), std::sqrt(1.5 * 8.0), 1e-12);  // geometric mean
  // Measured cells are untouched.
  EXPECT_DOUBLE_EQ(two.slowdown_at(0, 1), 1.5);
  EXPECT_DOUBLE_EQ(two.slowdown_at(2, 1), 8.0);
}

TEST(TrainingSet, NeighbourImputationIsNeverFasterThanTheMeasuredBest) {
  // On its neighbour c1 is the best (1x); imputed cells stay >= 1 so the oracle is unchanged.
  TrainingSet ts = empty_training_set({"x"}, 2);
  using K = CellKind;
  add_shape(ts, "a", {1}, {1.2, 1.0}, {K::measured, K::measured});
  add_shape(ts, "b", {2}, {1.0, 0}, {K::measured, K::unmeasured});
  impute_unmeasured(ts, {.method = Imputation::neighbours, .neighbours = 1});
  EXPECT_DOUBLE_EQ(ts.slowdown_at(1, 1), 1.0);
  EXPECT_GE(ts.cost_at(1, 1), 0);
}

TEST(FitReport, ScoresTheFullyMeasuredShapesSeparately) {
  TrainingSet ts = empty_training_set({"x"}, 2);
  using K = CellKind;
  for (int i = 0; i < 10; ++i) {
    const bool measured = i % 3 != 0;  // shapes 0, 3, 6, 9 have an unmeasured cell
    add_shape(ts, fmt::format("s{}", i), {double(i)}, {i < 5 ? 1.0 : 2.0, i < 5 ? 2.0 : 1.0},
              {K::measured, measured ? K::measured : K::unmeasured});
  }
  const FitResult fit = fit_heuristic(ts, {});
  EXPECT_EQ(fit.heldout.shapes, 10u);
  EXPECT_EQ(fit.heldout_fully_measured.shapes, 6u);
  const auto j = fit_report_json(fit, ts, "sm90");
  EXPECT_EQ(j["heldout_fully_measured"]["shapes"], 6);
  EXPECT_TRUE(j["heldout_fully_measured"].contains("geomean_slowdown"));
}

TEST(FitReport, CountsPicksOfUnmeasuredConfigs) {
  // c1 is measured only on half the shapes and is the best there; elsewhere it is unmeasured.
  TrainingSet ts = empty_training_set({"x"}, 2);
  using K = CellKind;
  for (int i = 0; i < 10; ++i) {
    const bool measured = i % 2 == 0;
    add_shape(ts, fmt::format("s{}", i), {double(i)}, {3.0, 1.0},
              {K::measured, measured ? K::measured : K::unmeasured});
  }
  const FitResult fit = fit_heuristic(ts, {});
  EXPECT_EQ(fit.best_single.unmeasured, 5u);  // c1: 1.0 measured, 2x imputed elsewhere
  EXPECT_EQ(fit.best_single_config, 1u);
  EXPECT_EQ(fit_report_json(fit, ts, "sm90")["best_single_config"]["unmeasured_picks"], 5);
}

TEST(FitReport, HasTheDocumentedFields) {
  TrainingSet ts = empty_training_set({"x"}, 3);
  for (int i = 0; i < 12; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {double(i)}, {1.0 + i % 2, 1.5, 2.0 - i % 2});
  const FitResult fit = fit_heuristic(ts, {});
  const auto j = fit_report_json(fit, ts, "sm90");
  for (const char* key : {"kernel", "arch", "num_configs", "tree_depth", "heldout",
                          "best_single_config", "default_config"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key : {"geomean_slowdown", "p95_slowdown", "max_slowdown"})
    EXPECT_TRUE(j["heldout"].contains(key)) << key;
  EXPECT_TRUE(j["best_single_config"].contains("geomean_slowdown"));
  EXPECT_TRUE(j["default_config"].contains("geomean_slowdown"));
  EXPECT_EQ(j["arch"], "sm90");
}

TEST(FitReport, ListsTheWorstHeldOutShapesSlowestFirst) {
  TrainingSet ts = empty_training_set({"x"}, 3);
  for (int i = 0; i < 12; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {double(i)}, {1.0 + i % 2, 1.5, 2.0 - i % 2});
  const FitResult fit = fit_heuristic(ts, {});
  const auto worst = fit_report_json(fit, ts, "sm90")["heldout_worst"];
  ASSERT_TRUE(worst.is_array());
  ASSERT_EQ(worst.size(), 10u);
  EXPECT_DOUBLE_EQ(worst[0]["slowdown"].get<double>(), fit.heldout.max);
  for (std::size_t i = 0; i < worst.size(); ++i) {
    for (const char* key : {"shape", "slowdown", "fold", "picked", "picked_from", "best"})
      EXPECT_TRUE(worst[i].contains(key)) << key;
    if (i > 0) {
      EXPECT_GE(worst[i - 1]["slowdown"].get<double>(), worst[i]["slowdown"].get<double>());
    }
  }
}

TEST(FitReport, RepeatedScoringKeepsDrawZeroAndReportsTheSpreadOverDraws) {
  // Noisy regimes: which shapes are held out together changes the score.
  TrainingSet ts = empty_training_set({"x"}, 3);
  for (int i = 0; i < 30; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {double(i % 7)},
                    {1.0 + (i * 7 % 5) * 0.3, 1.5, 2.0 - (i * 3 % 4) * 0.25});
  FitOptions options;
  const FitResult once = fit_heuristic(ts, options);
  options.repeats = 4;
  const FitResult fit = fit_heuristic(ts, options);
  ASSERT_EQ(fit.heldout_repeats.size(), 4u);
  EXPECT_DOUBLE_EQ(fit.heldout_repeats[0].geomean, once.heldout.geomean);
  EXPECT_DOUBLE_EQ(fit.heldout.geomean, once.heldout.geomean);  // the model and THE metric: draw 0
  EXPECT_EQ(fit.model.configs, once.model.configs);
  const auto report = fit_report_json(fit, ts, "sm90");
  ASSERT_TRUE(report.contains("heldout_repeated"));
  EXPECT_FALSE(fit_report_json(once, ts, "sm90").contains("heldout_repeated"));
  const auto& g = report["heldout_repeated"]["geomean_slowdown"];
  EXPECT_EQ(report["heldout_repeated"]["repeats"].get<std::size_t>(), 4u);
  EXPECT_LE(g["min"].get<double>(), g["mean"].get<double>());
  EXPECT_LE(g["mean"].get<double>(), g["max"].get<double>());
  double lo = 1e300, hi = 0;
  for (const auto& r : fit.heldout_repeats) lo = std::min(lo, r.geomean), hi = std::max(hi, r.geomean);
  EXPECT_DOUBLE_EQ(g["min"].get<double>(), lo);
  EXPECT_DOUBLE_EQ(g["max"].get<double>(), hi);
}

TEST(FitOnCostModel, BeatsTheBestSingleConfigOnHeldOutShapes) {
  // A realistic matrix: the simulated device's cost model over a jagged_sum grid.
  const tuner::ResultsDatabase db =
      test::cost_model_database("jagged_sum", test::small_grid("jagged_sum"), "sm90", true);
  const TrainingSet ts = training_set_from_database(db);
  ASSERT_GT(ts.num_shapes(), 20u);
  EXPECT_EQ(ts.config_ids[ts.default_config], "block_row.t512.v1");
  const FitResult fit = fit_heuristic(ts, {});
  EXPECT_LE(fit.model.configs.size(), SubsetOptions{}.max_configs);  // the default cap
  EXPECT_EQ(fit.heldout.misses, 0u);
  EXPECT_LE(fit.heldout.geomean, fit.best_single.geomean);
  EXPECT_LE(fit.training.geomean, fit.heldout.geomean + 1e-12);
}

}  // namespace
}  // namespace aotune::heuristics
