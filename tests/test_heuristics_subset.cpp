// Config-subset selection: greedy cover with swaps, worst-case cap, determinism.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <random>

#include "heuristics/config_subset.h"
#include "tests/heuristics_test_support.h"

namespace aotune::heuristics {
namespace {

using test::add_timed_shape;
using test::empty_training_set;

// Three groups of shapes, each with its own fastest config (c0, c1, c2); c3 is 10% slow
// everywhere; c4 is 3x slow everywhere.
TrainingSet three_groups() {
  TrainingSet ts = empty_training_set({"g"}, 5);
  for (int g = 0; g < 3; ++g) {
    for (int i = 0; i < 4; ++i) {
      std::vector<double> t(5, 2.0);
      t[static_cast<std::size_t>(g)] = 1.0;
      t[3] = 1.1;
      t[4] = 3.0;
      add_timed_shape(ts, fmt::format("g{}_{}", g, i), {double(g)}, t);
    }
  }
  return ts;
}

TEST(ConfigSubset, KeepsTheConfigThatIsBestForEachGroup) {
  const TrainingSet ts = three_groups();
  const auto rows = all_rows(ts);
  EXPECT_EQ(select_config_subset(ts, rows, {.max_configs = 3}),
            (std::vector<std::size_t>{0, 1, 2}));
}

TEST(ConfigSubset, WithOneConfigKeepsTheBestCompromise) {
  const TrainingSet ts = three_groups();
  const auto rows = all_rows(ts);
  EXPECT_EQ(select_config_subset(ts, rows, {.max_configs = 1}), (std::vector<std::size_t>{3}));
}

TEST(ConfigSubset, StopsWhenNoConfigHelps) {
  const TrainingSet ts = three_groups();
  const auto rows = all_rows(ts);
  // After c0, c1, c2 every shape runs at its best: c3 and c4 add nothing.
  EXPECT_EQ(select_config_subset(ts, rows, {.max_configs = 8}).size(), 3u);
}

TEST(ConfigSubset, CapsTheWorstCaseBeforeTheGeomean) {
  // c0: perfect on 9 shapes, 2x on one. c1: 1.2x everywhere. Geomean prefers c0
  // (2^(1/10) = 1.07 < 1.2); with a 1.25 cap the 2x shape makes c1 the pick.
  TrainingSet ts = empty_training_set({"x"}, 2);
  for (int i = 0; i < 10; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {double(i)}, {i == 0 ? 2.0 : 1.0, 1.2});
  const auto rows = all_rows(ts);
  EXPECT_EQ(select_config_subset(ts, rows, {.max_configs = 1, .worst_case_cap = 1.25}),
            (std::vector<std::size_t>{1}));
  EXPECT_EQ(select_config_subset(ts, rows, {.max_configs = 1, .worst_case_cap = 3.0}),
            (std::vector<std::size_t>{0}));
}

TEST(ConfigSubset, KeepsAConfigThatIsTheOnlyOneToPassOnSomeShape) {
  TrainingSet ts = empty_training_set({"x"}, 3);
  add_timed_shape(ts, "a", {1}, {1.0, 1.0, 5.0});
  add_timed_shape(ts, "b", {2}, {1.0, 1.0, 5.0});
  add_shape(ts, "c", {3}, {-1.0, -1.0, 9.0}, {false, true, true});  // c0 illegal, c1 failed
  const auto rows = all_rows(ts);
  const auto kept = select_config_subset(ts, rows, {.max_configs = 2});
  EXPECT_EQ(kept, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(score_subset(ts, rows, kept, {}).uncovered, 0u);
}

TEST(ConfigSubset, BreaksTiesByLowerConfigIndex) {
  TrainingSet ts = empty_training_set({"x"}, 4);
  for (int i = 0; i < 5; ++i)
    add_timed_shape(ts, fmt::format("s{}", i), {double(i)}, {2.0, 1.0, 1.0, 1.0});
  const auto rows = all_rows(ts);
  EXPECT_EQ(select_config_subset(ts, rows, {.max_configs = 1}), (std::vector<std::size_t>{1}));
}

TEST(ConfigSubset, SwapsBeatPlainGreedyWhenAPairCoversBetter) {
  // Greedy first takes c0 (best alone), but {c1, c2} together cover every shape perfectly;
  // the swap pass must find it.
  TrainingSet ts = empty_training_set({"x"}, 3);
  for (int i = 0; i < 6; ++i) {
    const bool left = i < 3;
    add_timed_shape(ts, fmt::format("s{}", i), {double(i)},
                    {1.05, left ? 1.0 : 2.0, left ? 2.0 : 1.0});
  }
  const auto rows = all_rows(ts);
  EXPECT_EQ(select_config_subset(ts, rows, {.max_configs = 2}), (std::vector<std::size_t>{1, 2}));
}

TEST(ConfigSubset, IsDeterministicOnRandomData) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> time(1.0, 3.0);
  TrainingSet ts = empty_training_set({"x"}, 20);
  for (int i = 0; i < 200; ++i) {
    std::vector<double> t(20);
    for (auto& v : t) v = time(rng);
    add_timed_shape(ts, fmt::format("s{}", i), {double(i)}, t);
  }
  const auto rows = all_rows(ts);
  const SubsetOptions eight{.max_configs = 8};
  const auto first = select_config_subset(ts, rows, eight);
  EXPECT_EQ(first.size(), 8u);
  EXPECT_EQ(select_config_subset(ts, rows, eight), first);
  // The kept subset is at least as good as the first 8 configs.
  const std::vector<std::size_t> naive = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_LE(score_subset(ts, rows, first, eight), score_subset(ts, rows, naive, eight));
  EXPECT_EQ(select_config_subset(ts, rows, {}).size(), 16u) << "the default cap";
}

}  // namespace
}  // namespace aotune::heuristics
