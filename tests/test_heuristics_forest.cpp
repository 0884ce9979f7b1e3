// The extremely randomised forest scored next to the tree (heuristics/forest.h): it recovers a
// known best config, is reproducible, never routes a training shape to a config that cannot run
// there, and its held-out picks never come from a forest that saw the shape.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "heuristics/fit.h"
#include "heuristics/forest.h"
#include "kernels/common/errors.h"
#include "tests/heuristics_test_support.h"

namespace aotune::heuristics {
namespace {

using test::add_timed_shape;
using test::empty_training_set;


ForestOptions all_configs(std::size_t trees = 8) {
  ForestOptions o;
  o.trees = trees;
  o.configs = ForestConfigs::all;
  return o;
}

Forest fit_all(const TrainingSet& ts, const ForestOptions& o) {
  return fit_forest(ts, all_rows(ts), forest_config_columns(ts, all_rows(ts), o.configs, {}), o);
}

TEST(Forest, RecoversAKnownPiecewiseConstantBestConfig) {
  const TrainingSet ts = test::piecewise_constant_set();
  const Forest forest = fit_all(ts, all_configs());
  ASSERT_EQ(forest.num_trees(), 8u);
  for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
    const uint32_t want = ts.features_of(row)[1] < 64 ? 0 : 1;
    EXPECT_EQ(route_forest(forest, ts, row).config, want) << ts.shape_keys[row];
  }
  // Shapes it never saw, well inside each piece.
  for (const double b : {3.0, 50.0, 20000.0}) {
    const double small[] = {b, 4.0}, large[] = {b, 2000.0};
    EXPECT_EQ(forest.configs[forest_ranking(forest, small)[0]], 0u);
    EXPECT_EQ(forest.configs[forest_ranking(forest, large)[0]], 1u);
  }
  // Held out: every M value occurs with four B values, so each fold's forest has seen it.
  const HeldOut held = heldout_forest_choices(ts, {}, all_configs());
  for (std::size_t row = 0; row < ts.num_shapes(); ++row)
    EXPECT_EQ(held.choices[row].config, ts.features_of(row)[1] < 64 ? 0u : 1u) << ts.shape_keys[row];
}

bool same_forest(const Forest& a, const Forest& b) {
  if (a.nodes.size() != b.nodes.size() || a.roots != b.roots || a.leaf_values != b.leaf_values ||
      a.configs != b.configs)
    return false;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const TreeNode &x = a.nodes[i], &y = b.nodes[i];
    if (x.feature != y.feature || x.left != y.left || x.right != y.right ||
        std::memcmp(&x.threshold, &y.threshold, sizeof(double)) != 0)
      return false;
  }
  return true;
}

// A set with some texture, so trees are deep and the draws matter.
TrainingSet random_set(uint64_t seed, std::size_t shapes, std::size_t configs) {
  TrainingSet ts = empty_training_set({"a", "b", "c"}, configs);
  std::mt19937_64 rng(seed);
  for (std::size_t s = 0; s < shapes; ++s) {
    const std::vector<double> x = {static_cast<double>(rng() % 4096), static_cast<double>(rng() % 64),
                                   static_cast<double>(rng() % 7)};
    std::vector<double> t(configs);
    for (std::size_t c = 0; c < configs; ++c)
      t[c] = 1.0 + static_cast<double>((static_cast<uint64_t>(x[0]) >> (c % 12)) % 5) + 0.1 * static_cast<double>(rng() % 10);
    add_timed_shape(ts, fmt::format("s{}", s), x, t);
  }
  return ts;
}

TEST(Forest, IsIdenticalAcrossRunsAndDependsOnItsSeed) {
  const TrainingSet ts = random_set(11, 120, 16);
  ForestOptions o = all_configs(8);
  const Forest a = fit_all(ts, o), b = fit_all(ts, o);
  EXPECT_TRUE(same_forest(a, b));
  EXPECT_GT(a.nodes.size(), 8u * 15);  // not stumps: the comparison covers real trees
  o.seed = 1;
  EXPECT_FALSE(same_forest(a, fit_all(ts, o)));
  // Each tree draws from its own stream: a forest of 4 is the first 4 trees of a forest of 8.
  const Forest four = fit_all(ts, all_configs(4));
  ASSERT_EQ(four.num_trees(), 4u);
  EXPECT_TRUE(std::equal(four.leaf_values.begin(), four.leaf_values.end(), a.leaf_values.begin()));
  // Held-out choices repeat too.
  const HeldOut h1 = heldout_forest_choices(ts, {}, all_configs()), h2 = heldout_forest_choices(ts, {}, all_configs());
  for (std::size_t row = 0; row < ts.num_shapes(); ++row) EXPECT_EQ(h1.choices[row].config, h2.choices[row].config);
}

TEST(Forest, NeverRoutesATrainingShapeToAnIllegalOrFailedConfig) {
  // Pairs of shapes with identical features, so no split can part them. On the first of each
  // pair c0 is best and c1 10x off; on the second c0 failed (even pairs) or is illegal (odd
  // pairs) and c1 is best. Clipped, c0 and c1 average the same over a pair (ties go to c0): only
  // the mark on failed configs and the legal walk keep the second shape off c0. Where c0 failed,
  // the mark moves its pair's first shape too (as the tree's leaf lists drop a config that failed
  // on one of the leaf's shapes).
  TrainingSet ts = empty_training_set({"x"}, 3);
  for (int p = 0; p < 12; ++p) {
    const double x = std::exp2(p);
    add_shape(ts, fmt::format("good{}", p), {x}, {1.0, 10.0, 30.0}, std::vector<bool>{true, true, true});
    add_shape(ts, fmt::format("bad{}", p), {x}, {-1.0, 1.0, 30.0}, std::vector<bool>{p % 2 == 0, true, true});
  }
  ASSERT_EQ(ts.kind_at(1, 0), CellKind::broken);
  ASSERT_EQ(ts.kind_at(3, 0), CellKind::illegal);
  for (const std::size_t min_leaf : {1, 2, 4}) {
    ForestOptions o = all_configs(8);
    o.min_leaf = min_leaf;
    const Forest forest = fit_all(ts, o);
    for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
      const Choice c = route_forest(forest, ts, row);
      EXPECT_TRUE(ts.ok(row, c.config)) << ts.shape_keys[row] << " got c" << c.config;
      if (row % 2 == 1) {
        EXPECT_EQ(c.config, 1u) << ts.shape_keys[row];
      }
    }
  }
  // Held out, where failures cannot be known, it still never runs an illegal config.
  const HeldOut held = heldout_forest_choices(ts, {}, all_configs());
  for (std::size_t row = 0; row < ts.num_shapes(); ++row) EXPECT_TRUE(ts.is_legal(row, held.choices[row].config));
}

TEST(Forest, LeafCostsAre16BitMeansOfTheClippedLnSlowdown) {
  // One leaf over two shapes: slowdowns (1, 2, 100, failed) and (1, 3, 100, 1), so the costs are
  // the means of ln 1, ln 2 | ln 3, the clip (ln 100 > 1.5) and the failed mark, in units of
  // kLeafCostUnit millionths, rounded half up.
  TrainingSet ts = empty_training_set({"x"}, 4);
  add_shape(ts, "a", {1.0}, {1.0, 2.0, 100.0, -1.0}, std::vector<bool>{true, true, true, true});
  add_shape(ts, "b", {1.0}, {1.0, 3.0, 100.0, 1.0}, std::vector<bool>{true, true, true, true});
  ASSERT_EQ(ts.kind_at(0, 3), CellKind::broken);
  const Forest forest = fit_all(ts, all_configs(1));
  ASSERT_EQ(forest.nodes.size(), 1u);
  const auto mean_units = [](double ln_a, double ln_b) {
    const int64_t sum = log_cost_of(std::exp(ln_a)) + log_cost_of(std::exp(ln_b));
    return static_cast<uint16_t>((sum + kLeafCostUnit) / (2 * kLeafCostUnit));
  };
  EXPECT_EQ(forest.leaf_values,
            (std::vector<uint16_t>{0, mean_units(std::log(2.0), std::log(3.0)), 30'000, kLeafCostFailed}));
  EXPECT_EQ(forest.leaf_values[1], 17'918);  // ln 6 / 2 = 0.895880 = 17917.6 units of 5e-5
  // The mark outweighs every cost of every other tree; the walk ranks the failed config last.
  EXPECT_EQ(leaf_cost(kLeafCostFailed), kFailedLeafPenalty);
  EXPECT_GT(kFailedLeafPenalty, int64_t{65'534} * 100'000);
  const double x[] = {1.0};
  EXPECT_EQ(forest_ranking(forest, x), (std::vector<uint16_t>{0, 1, 2, 3}));
  // A clip past what 16 bits hold is refused by name.
  ForestOptions wide = all_configs(1);
  wide.clip = 3.5;
  try {
    (void)fit_all(ts, wide);
    FAIL() << "a clip of 3.5 was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("forest clip 3.5 is not in (0, 3]"), std::string::npos) << e.what();
  }
}

TEST(Forest, HeldOutChoicesNeverComeFromAForestThatSawTheShape) {
  // c0 is best on every shape but one, whose feature alone is large and where only c2 is fast:
  // no other shape teaches c2, so only a forest trained on that shape picks it.
  TrainingSet ts = empty_training_set({"x", "y"}, 3);
  for (int i = 0; i < 30; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {static_cast<double>(i % 6), static_cast<double>(i)}, {1.0, 2.0, 3.0});
  add_timed_shape(ts, "lonely", {1000.0, 15.0}, {5.0, 5.0, 1.0});
  const std::size_t lonely = ts.num_shapes() - 1;
  const Forest trained = fit_all(ts, all_configs());
  EXPECT_EQ(route_forest(trained, ts, lonely).config, 2u);
  for (const uint64_t salt : {0, 1, 2}) {
    CrossValidationOptions cv;
    cv.fold_salt = salt;
    const HeldOut held = heldout_forest_choices(ts, cv, all_configs());
    EXPECT_EQ(held.fold_of, assign_folds(ts, all_rows(ts), cv.folds, salt));  // heldout_choices' folds
    EXPECT_NE(held.choices[lonely].config, 2u) << "salt " << salt;
    for (std::size_t row = 0; row < lonely; ++row) EXPECT_EQ(held.choices[row].config, 0u);
  }
}

TEST(Forest, SubsetColumnsComeFromTheTrainingFoldsOnly) {
  // As above, with the config subset fitted per fold: the lonely shape's c2 is kept only when the
  // lonely shape is among the rows the subset is fitted on.
  TrainingSet ts = empty_training_set({"x"}, 3);
  for (int i = 0; i < 30; ++i) add_timed_shape(ts, fmt::format("s{}", i), {static_cast<double>(i)}, {1.0, 2.0, 3.0});
  add_timed_shape(ts, "lonely", {1000.0}, {5.0, 5.0, 1.0});
  const std::vector<std::size_t> rows = all_rows(ts);
  EXPECT_EQ(forest_config_columns(ts, rows, ForestConfigs::subset, {}), (std::vector<std::size_t>{0, 2}));
  const std::vector<std::size_t> without(rows.begin(), rows.end() - 1);
  EXPECT_EQ(forest_config_columns(ts, without, ForestConfigs::subset, {}), (std::vector<std::size_t>{0}));
  const HeldOut held = heldout_forest_choices(ts, {}, ForestOptions{});
  EXPECT_EQ(held.choices.back().config, 0u);
  EXPECT_THROW(heldout_forest_choices(ts, {}, ForestOptions{}, std::vector<std::size_t>{8, 8}), std::exception);
}

TEST(Forest, LockstepWalkSumsTheLeavesOneTreeAtATimeWouldReach) {
  // 11 trees: one full group of lanes and a partial one. Noise targets so the trees run deep and
  // unevenly; features drawn over decades, some NaN (goes right, as find_leaf).
  std::mt19937_64 rng(7);
  TrainingSet ts = empty_training_set({"a", "b", "c"}, 5);
  const auto draw = [&] { return std::exp2(static_cast<double>(rng() % 40) / 2.0); };
  for (int i = 0; i < 300; ++i) {
    std::vector<double> times(5);
    for (double& t : times) t = 1.0 + static_cast<double>(rng() % 1000) / 250.0;
    add_timed_shape(ts, fmt::format("s{}", i), {draw(), draw(), draw()}, times);
  }
  ForestOptions o = all_configs(11);
  o.max_depth = 9;
  const Forest forest = fit_all(ts, o);
  ASSERT_EQ(forest.num_trees(), 11u);
  const Heuristic h = forest_heuristic(forest, ts, all_rows(ts));
  const HeuristicView view = h.view();
  for (int q = 0; q < 500; ++q) {
    double x[3] = {draw(), draw(), q % 7 == 0 ? std::nan("") : draw()};
    std::vector<int64_t> want(5, 0), got(5, -1);
    for (const int32_t root : forest.roots) {
      const TreeNode* tree = &forest.nodes[static_cast<std::size_t>(root)];
      for (std::size_t c = 0; c < 5; ++c)
        want[c] += leaf_cost(forest.leaf_values[static_cast<std::size_t>(tree[find_leaf(tree, x)].left) + c]);
    }
    forest_costs(view, x, got.data());
    ASSERT_EQ(got, want) << "query " << q;
  }
}

TEST(Forest, ChooseConfigTakesTheRankingLazilyWithTiesToTheLowerPosition) {
  // One tree, one leaf: costs 5, 3, 3, 5 rank positions 1, 2, 0, 3.
  const TreeNode nodes[] = {{-1, 0, 4, 0.0}};
  const int32_t roots[] = {0};
  const uint16_t values[] = {5, 3, 3, 5};
  const uint32_t config_index[] = {10, 11, 12, 13};
  const uint16_t fallback[] = {3};
  HeuristicView v;
  v.nodes = nodes;
  v.num_nodes = 1;
  v.fallback = fallback;
  v.num_fallback = 1;
  v.config_index = config_index;
  v.num_configs = 4;
  v.roots = roots;
  v.num_trees = 1;
  v.leaf_values = values;
  const double x[] = {0.0};
  int64_t cost[4];
  forest_costs(v, x, cost);
  uint16_t order[4];
  rank_costs(cost, 4, order);
  EXPECT_EQ(std::vector<uint16_t>(order, order + 4), (std::vector<uint16_t>{1, 2, 0, 3}));
  for (const auto& [legal, config, rank] : std::vector<std::tuple<std::vector<uint32_t>, uint32_t, int32_t>>{
           {{10, 11, 12, 13}, 11, 0}, {{10, 12, 13}, 12, 1}, {{10, 13}, 10, 2}, {{13}, 13, 3}}) {
    const Choice c = choose_config(v, x, 0, 20, [&](uint32_t i) { return std::ranges::count(legal, i) > 0; });
    EXPECT_EQ(c.config, config);
    EXPECT_EQ(c.rank, rank);
    EXPECT_EQ(c.source, ChoiceSource::leaf);
  }
}

TEST(Forest, AllConfigsFallsBackToTheSubsetPastWhatTheRunTimeRanks) {
  const std::size_t n = static_cast<std::size_t>(kMaxForestConfigs) + 1;
  TrainingSet ts = empty_training_set({"x"}, n);
  for (int i = 0; i < 20; ++i) {
    std::vector<double> times(n, 4.0);
    times[static_cast<std::size_t>(i % 3)] = 1.0;
    add_timed_shape(ts, fmt::format("s{}", i), {static_cast<double>(i)}, times);
  }
  const std::vector<std::size_t> rows = all_rows(ts);
  EXPECT_EQ(forest_config_columns(ts, rows, ForestConfigs::all, {}),
            forest_config_columns(ts, rows, ForestConfigs::subset, {}));
  EXPECT_LE(forest_config_columns(ts, rows, ForestConfigs::all, {}).size(), 8u);
  TrainingSet small = empty_training_set({"x"}, 3);
  add_timed_shape(small, "s", {1.0}, {1.0, 2.0, 3.0});
  EXPECT_EQ(forest_config_columns(small, all_rows(small), ForestConfigs::all, {}).size(), 3u);
}

TEST(Forest, FitReportAddsTheForestOnlyWhenAsked) {
  const TrainingSet ts = test::piecewise_constant_set();
  FitOptions options;
  options.repeats = 2;
  options.forest.trees = 0;
  const nlohmann::ordered_json plain = fit_report_json(fit_heuristic(ts, options), ts, "sm90");
  EXPECT_FALSE(plain.contains("heldout_forest"));
  EXPECT_FALSE(plain.contains("heldout_forest_repeated"));
  EXPECT_EQ(plain["model"], "tree");
  options.forest = all_configs(4);
  options.model = ModelChoice::tree;
  const nlohmann::ordered_json with = fit_report_json(fit_heuristic(ts, options), ts, "sm90");
  // With the tree kept, its report is unchanged; the forest's objects come last.
  nlohmann::ordered_json stripped = with;
  stripped.erase("heldout_forest");
  stripped.erase("heldout_forest_repeated");
  EXPECT_EQ(stripped.dump(), plain.dump());
  ASSERT_TRUE(with.contains("heldout_forest"));
  EXPECT_DOUBLE_EQ(with["heldout_forest"]["geomean_slowdown"].get<double>(), 1.0);
  EXPECT_EQ(with["heldout_forest"]["trees"].get<int>(), 4);
  EXPECT_EQ(with["heldout_forest"]["configs"], "all");
  EXPECT_EQ(with["heldout_forest_repeated"]["repeats"].get<int>(), 2);
}

}  // namespace
}  // namespace aotune::heuristics
