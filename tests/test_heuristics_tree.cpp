// The cost-sensitive decision tree: recovering a known tree, cost- rather than count-driven splits,
// legal routing of training shapes, and the run-time fallback order.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "heuristics/decision_tree.h"
#include "heuristics/fit.h"
#include "tests/heuristics_test_support.h"

namespace aotune::heuristics {
namespace {

using test::add_timed_shape;
using test::empty_training_set;

TEST(TreeFit, RecoversAKnownOptimalTree) {
  const TrainingSet ts = test::piecewise_constant_set();
  const FitResult fit = fit_heuristic(ts, {});
  const Heuristic& h = fit.model;
  ASSERT_EQ(h.depth(), 1);
  const TreeNode& root = h.nodes[0];
  EXPECT_EQ(root.feature, 1);  // M
  EXPECT_GT(root.threshold, 32.0);
  EXPECT_LE(root.threshold, 64.0);
  EXPECT_DOUBLE_EQ(root.threshold, std::sqrt(32.0) * std::sqrt(64.0));  // midpoint in log2 space
  const TreeNode& left = h.nodes[static_cast<std::size_t>(root.left)];
  const TreeNode& right = h.nodes[static_cast<std::size_t>(root.right)];
  EXPECT_EQ(h.configs[h.leaf_configs[static_cast<std::size_t>(left.left)]], 0u);
  EXPECT_EQ(h.configs[h.leaf_configs[static_cast<std::size_t>(right.left)]], 1u);
  EXPECT_DOUBLE_EQ(fit.heldout.geomean, 1.0);
  EXPECT_DOUBLE_EQ(fit.heldout.max, 1.0);
  EXPECT_GT(fit.best_single.geomean, 1.3);
}

TEST(TreeFit, SplitsWhereTheSlowdownIsLargestNotWhereMostPicksChange) {
  // Feature "many": on 20 shapes (many >= 10) c1 is 1% faster than c0. Feature "rare": on one
  // shape (rare >= 1) c1 is 3x faster. One split is allowed: counting wrong picks would split on
  // "many" (20 shapes fixed), total log-slowdown splits on "rare" (ln 3 > 20 ln 1.01).
  TrainingSet ts = empty_training_set({"many", "rare"}, 2);
  for (int i = 0; i < 40; ++i) {
    const bool many = i >= 20;
    add_timed_shape(ts, fmt::format("s{}", i), {many ? 10.0 : 0.0, 0.0},
                    {many ? 1.01 : 1.0, many ? 1.0 : 1.5});
  }
  add_timed_shape(ts, "rare", {0.0, 1.0}, {3.0, 1.0});
  const auto rows = all_rows(ts);
  const Heuristic h = fit_tree(ts, rows, {0, 1},
                               {.max_depth = 1, .min_leaf = 1, .criterion = SplitCriterion::training});
  ASSERT_EQ(h.depth(), 1);
  EXPECT_EQ(h.nodes[0].feature, 1);
}

// 40 shapes on which c0 is best, plus `rare` shapes (feature "rare" = 1) on which c1 is 3x faster.
TrainingSet with_rare_shapes(int rare) {
  TrainingSet ts = empty_training_set({"common", "rare"}, 2);
  for (int i = 0; i < 40; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {double(i), 0.0}, {1.0, 1.5});
  for (int i = 0; i < rare; ++i)
    add_timed_shape(ts, fmt::format("rare{}", i), {double(i), 1.0}, {3.0, 1.0});
  return ts;
}

TEST(TreeFit, LeaveOneOutDoesNotSplitOffALoneShape) {
  // One rare shape: the training criterion isolates it (its leaf is perfect on it), but a new
  // shape in that leaf would get whatever the other shapes there prefer: nothing, so the
  // leave-one-out criterion sees no gain and keeps one leaf.
  const TrainingSet ts = with_rare_shapes(1);
  const auto rows = all_rows(ts);
  EXPECT_EQ(fit_tree(ts, rows, {0, 1},
                     {.max_depth = 4, .min_leaf = 1, .criterion = SplitCriterion::training})
                .depth(),
            1);
  EXPECT_EQ(fit_tree(ts, rows, {0, 1},
                     {.max_depth = 4, .min_leaf = 1, .criterion = SplitCriterion::leave_one_out})
                .depth(),
            0);
}

TEST(TreeFit, LeaveOneOutSplitsOffAGroupThatAgrees) {
  // Three rare shapes that agree on c1: each is predicted by the other two, so the split pays.
  const TrainingSet ts = with_rare_shapes(3);
  const auto rows = all_rows(ts);
  const Heuristic h = fit_tree(
      ts, rows, {0, 1}, {.max_depth = 4, .min_leaf = 1, .criterion = SplitCriterion::leave_one_out});
  ASSERT_EQ(h.depth(), 1);
  EXPECT_EQ(h.nodes[0].feature, 1);
  const TreeNode& right = h.nodes[static_cast<std::size_t>(h.nodes[0].right)];
  EXPECT_EQ(h.configs[h.leaf_configs[static_cast<std::size_t>(right.left)]], 1u);
}

TEST(TreeFit, NeverRoutesATrainingShapeToAnIllegalConfig) {
  // The fastest config is often illegal (as vec=4 is for M not a multiple of 4).
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> time(1.0, 2.0);
  TrainingSet ts = empty_training_set({"M", "B"}, 6);
  for (int i = 0; i < 300; ++i) {
    const double m = static_cast<double>(1 + rng() % 512),
                 b = static_cast<double>(1 + rng() % 4096);
    std::vector<double> t(6);
    std::vector<bool> legal(6, true);
    for (std::size_t c = 0; c < 6; ++c) t[c] = time(rng);
    if (static_cast<int>(m) % 4 != 0) {
      for (std::size_t c : {0u, 1u, 2u}) {
        legal[c] = false;
        t[c] = -1;
      }
    } else {
      t[0] *= 0.3;  // the illegal-elsewhere config is the fastest where it runs
    }
    add_shape(ts, fmt::format("s{}", i), {m, b}, t, legal);
  }
  const FitResult fit = fit_heuristic(ts, {});
  for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
    const Choice c = route(fit.model, ts, row);
    ASSERT_NE(c.source, ChoiceSource::none);
    EXPECT_TRUE(ts.is_legal(row, c.config))
        << "shape " << ts.shape_keys[row] << " routed to c" << c.config;
    EXPECT_TRUE(ts.ok(row, c.config));
  }
  EXPECT_EQ(fit.training.misses, 0u);
  EXPECT_EQ(fit.heldout.misses, 0u);
  EXPECT_TRUE(unsound_training_routes(fit.model, ts).empty());
}

TEST(TreeFit, RoutedHeadsNeverRouteATrainingShapeToAnIllegalOrBrokenConfig) {
  // As above, plus broken cells (legal, failed) on c1..c4; c5 always runs. Whatever the depth, a
  // routed head's first config runs where it is legal and its second where the first is not.
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> time(1.0, 2.0);
  TrainingSet ts = empty_training_set({"M", "B"}, 6);
  for (int i = 0; i < 300; ++i) {
    const double m = static_cast<double>(1 + rng() % 512),
                 b = static_cast<double>(1 + rng() % 4096);
    std::vector<double> t(6);
    std::vector<bool> legal(6, true);
    for (std::size_t c = 0; c < 6; ++c) t[c] = time(rng);
    if (static_cast<int>(m) % 4 != 0) {
      for (std::size_t c : {0u, 1u, 2u}) {
        legal[c] = false;
        t[c] = -1;
      }
    } else {
      t[0] *= 0.3;
    }
    for (std::size_t c = 1; c < 5; ++c)
      if (legal[c] && rng() % 25 == 0) t[c] = -1;  // broken here
    add_shape(ts, fmt::format("s{}", i), {m, b}, t, legal);
  }
  const auto rows = all_rows(ts);
  for (const int depth : {0, 2, 4}) {
    const Heuristic h = fit_tree(ts, rows, {0, 1, 2, 3, 4, 5},
                                 {.max_depth = depth, .min_leaf = 1, .routed_heads = true});
    EXPECT_TRUE(unsound_training_routes(h, ts).empty()) << "depth " << depth;
    std::size_t fast = 0;
    for (std::size_t row = 0; row < ts.num_shapes(); ++row) fast += route(h, ts, row).config == 0;
    EXPECT_GT(fast, 0u) << "depth " << depth << ": c0, 3x faster where legal, never leads";
  }
  // One leaf: the routed list costs the training shapes no more than the plain one.
  auto training_log_sum = [&](bool routed) {
    const Heuristic h = fit_tree(ts, rows, {0, 1, 2, 3, 4, 5},
                                 {.max_depth = 0, .min_leaf = 1, .routed_heads = routed});
    double sum = 0;
    for (std::size_t row = 0; row < ts.num_shapes(); ++row)
      sum += std::log(ts.slowdown_at(row, route(h, ts, row).config));
    return sum;
  };
  EXPECT_LT(training_log_sum(true), training_log_sum(false));
}

TEST(TreeFit, ReportsTrainingShapesRoutedToAConfigThatFailedThere) {
  TrainingSet ts = empty_training_set({"x"}, 2);
  add_shape(ts, "good", {1}, {1.0, 2.0}, {true, true});
  add_shape(ts, "broken", {2}, {-1.0, 2.0}, {true, true});  // c0 legal but gave a wrong result
  Heuristic h;  // a stale heuristic that always picks c0
  h.configs = {0};
  h.nodes = {{-1, 0, 1, 0.0}};
  h.leaf_configs = {0};
  h.fallback = {0};
  EXPECT_EQ(unsound_training_routes(h, ts), (std::vector<std::string>{"broken"}));
}

TEST(TreeFit, LeafListsOnlyConfigsThatPassedOnAllItsShapesWhenOneExists) {
  TrainingSet ts = empty_training_set({"x"}, 3);
  add_shape(ts, "a", {1}, {1.0, 1.2, 1.5}, {true, true, true});
  add_shape(ts, "b", {2}, {-1.0, 1.2, 1.0}, {false, true, true});
  const auto rows = all_rows(ts);
  const auto ranked = rank_configs(ts, rows, {0, 1, 2}, true);
  EXPECT_EQ(ranked, (std::vector<uint16_t>{1, 2}));  // c1 (1.2 and 1.2) before c2 (1.5 and 1.0)
  EXPECT_EQ(rank_configs(ts, rows, {0, 1, 2}, false), (std::vector<uint16_t>{1, 2, 0}));
}

TEST(TreeFit, RoutedHeadsLeadWithAConfigIllegalForSomeShapesAndListTheOneTheyTake) {
  // c0 is best wherever it is legal (not on "b"), c2 on "b", c1 never broken but slower.
  TrainingSet ts = empty_training_set({"x"}, 3);
  add_shape(ts, "a", {1}, {1.0, 1.2, 1.5}, {true, true, true});
  add_shape(ts, "b", {2}, {-1.0, 1.2, 1.0}, {false, true, true});
  add_shape(ts, "c", {3}, {1.0, 1.3, 1.4}, {true, true, true});
  add_shape(ts, "d", {4}, {2.0, -1.0, 2.0}, {true, true, true});  // c1 legal but broken here
  const auto rows = all_rows(ts);
  // c0 first, c2 for "b"; c1 is left out: it failed a legal run on "d".
  EXPECT_EQ(rank_configs(ts, rows, {0, 1, 2}, true, true), (std::vector<uint16_t>{0, 2}));
  // The whole tree: one leaf, and dispatch's walk of its list sends "b" to c2.
  const Heuristic h =
      fit_tree(ts, rows, {0, 1, 2}, {.max_depth = 0, .min_leaf = 1, .routed_heads = true});
  EXPECT_TRUE(unsound_training_routes(h, ts).empty());
  EXPECT_EQ(route(h, ts, 1).config, 2u);
  EXPECT_EQ(route(h, ts, 0).config, 0u);
}

TEST(TreeFit, RoutedHeadsSaveTheSplitThatPlainListsSpendOnLegality) {
  // c0 (the thread unit, say) is 10 % faster wherever legal, illegal for half the shapes, which
  // nothing in the features separates from the others. Plain lists must use c1 everywhere.
  TrainingSet ts = empty_training_set({"noise"}, 2);
  for (int i = 0; i < 20; ++i) {
    const bool legal = i % 2 == 0;
    add_shape(ts, fmt::format("s{}", i), {static_cast<double>(i % 7)}, {legal ? 1.0 : -1.0, 1.1},
              {legal, true});
  }
  const auto rows = all_rows(ts);
  const Heuristic plain = fit_tree(ts, rows, {0, 1}, {.max_depth = 0, .min_leaf = 1});
  const Heuristic routed =
      fit_tree(ts, rows, {0, 1}, {.max_depth = 0, .min_leaf = 1, .routed_heads = true});
  for (std::size_t r = 0; r < ts.num_shapes(); ++r) {
    EXPECT_EQ(route(plain, ts, r).config, 1u);
    EXPECT_EQ(route(routed, ts, r).config, r % 2 == 0 ? 0u : 1u);
  }
}

TEST(TreeFit, IsDeterministic) {
  const TrainingSet ts = test::piecewise_constant_set();
  const FitResult a = fit_heuristic(ts, {});
  const FitResult b = fit_heuristic(ts, {});
  EXPECT_EQ(a.model.configs, b.model.configs);
  EXPECT_EQ(a.model.leaf_configs, b.model.leaf_configs);
  ASSERT_EQ(a.model.nodes.size(), b.model.nodes.size());
  for (std::size_t i = 0; i < a.model.nodes.size(); ++i) {
    EXPECT_EQ(a.model.nodes[i].feature, b.model.nodes[i].feature);
    EXPECT_EQ(a.model.nodes[i].threshold, b.model.nodes[i].threshold);
  }
}

TEST(TreeFit, TruncationGivesTheShallowerTree) {
  const TrainingSet ts = test::piecewise_constant_set();
  const auto rows = all_rows(ts);
  const GrownTree grown = grow_tree(ts, rows, {0, 1, 2}, {.max_depth = 8, .min_leaf = 1});
  EXPECT_EQ(flatten(grown, 0).depth(), 0);
  EXPECT_EQ(flatten(grown, 1).depth(), 1);
  EXPECT_EQ(flatten(grown, 0).leaf_configs, grown.nodes[0].ranked);
}

TEST(SplitThreshold, IsTheGeometricMidpointForPositiveValues) {
  EXPECT_DOUBLE_EQ(split_threshold(32, 64), std::sqrt(32.0) * std::sqrt(64.0));
  EXPECT_DOUBLE_EQ(split_threshold(0, 4), 2.0);
  EXPECT_DOUBLE_EQ(split_threshold(-2, 2), 0.0);
  const double lo = 1.0, hi = std::nextafter(1.0, 2.0);
  EXPECT_GT(split_threshold(lo, hi), lo);
  EXPECT_LE(split_threshold(lo, hi), hi);
}

// A hand-made view: one split on feature 0 at 10; left leaf ranks table configs {0, 1}, right {1}.
struct TinyHeuristic {
  std::vector<TreeNode> nodes = {{0, 1, 2, 10.0}, {-1, 0, 2, 0.0}, {-1, 2, 1, 0.0}};
  std::vector<uint16_t> leaf = {0, 1, 1};
  std::vector<uint16_t> fallback = {1, 0, 2};
  std::vector<uint32_t> configs = {5, 7, 9};  // table position -> space index
  HeuristicView view() const {
    return {nodes.data(), 3, leaf.data(), fallback.data(), 3, configs.data(), 3};
  }
};

TEST(ChooseConfig, TakesTheLeafsFirstLegalThenFallbackThenDefaultThenAnyLegal) {
  const TinyHeuristic t;
  const double small[] = {3.0}, large[] = {30.0};
  auto all = [](uint32_t) { return true; };
  EXPECT_EQ(choose_config(t.view(), small, 0, 12, all).config, 5u);
  EXPECT_EQ(choose_config(t.view(), large, 0, 12, all).config, 7u);
  const Choice second = choose_config(t.view(), small, 0, 12, [](uint32_t c) { return c != 5; });
  EXPECT_EQ(second.config, 7u);
  EXPECT_EQ(second.source, ChoiceSource::leaf);
  EXPECT_EQ(second.rank, 1);
  const Choice fb =
      choose_config(t.view(), large, 0, 12, [](uint32_t c) { return c == 9 || c == 5; });
  EXPECT_EQ(fb.source, ChoiceSource::fallback);
  EXPECT_EQ(fb.config, 5u);  // fallback order is table 1 (7), then 0 (5)
  const Choice def =
      choose_config(t.view(), large, 3, 12, [](uint32_t c) { return c == 3 || c == 11; });
  EXPECT_EQ(def.source, ChoiceSource::default_config);
  EXPECT_EQ(def.config, 3u);
  const Choice any = choose_config(t.view(), large, 3, 12, [](uint32_t c) { return c == 11; });
  EXPECT_EQ(any.source, ChoiceSource::any_legal);
  EXPECT_EQ(any.config, 11u);
  EXPECT_EQ(choose_config(t.view(), large, 3, 12, [](uint32_t) { return false; }).source,
            ChoiceSource::none);
}

TEST(ChooseConfig, WithoutATreeRunsTheDefault) {
  const Choice c = choose_config(HeuristicView{}, nullptr, 4, 10, [](uint32_t) { return true; });
  EXPECT_EQ(c.source, ChoiceSource::default_config);
  EXPECT_EQ(c.config, 4u);
}

TEST(ChooseConfig, NanFeaturesGoRight) {
  const TinyHeuristic t;
  const double nan[] = {std::nan("")};
  EXPECT_EQ(find_leaf(t.nodes.data(), nan), 2);
}

}  // namespace
}  // namespace aotune::heuristics
