// The config search on synthetic cost surfaces: what is measured, what wins, how ties break.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "kernels/common/registry.h"
#include "tuner/gpu_device.h"
#include "tuner/search.h"
#include "tuner/work_split.h"

namespace aotune::tuner {
namespace {

Timing timing(double us) { return {us, us, us, 10}; }

struct Surface {
  std::vector<double> cost;  // per config; < 0: the check fails
  std::vector<std::size_t> measured;
  std::vector<double> loser_bars;  // the loser_above_us each measurement was given
  std::vector<std::vector<std::size_t>> retimed;
  std::map<std::size_t, double> retime_cost;  // what an interleaved re-timing reports

  MeasureFn measure() {
    return [this](std::size_t c, double loser_above_us) {
      measured.push_back(c);
      loser_bars.push_back(loser_above_us);
      return cost[c] < 0 ? Cell::with(CellStatus::failed, "wrong result")
                         : Cell::measured(timing(cost[c]));
    };
  }
  RetimeFn retime() {
    return [this](const std::vector<std::size_t>& cs) {
      retimed.push_back(cs);
      std::vector<Timing> out;
      for (std::size_t c : cs)
        out.push_back(timing(retime_cost.count(c) ? retime_cost[c] : cost[c]));
      return out;
    };
  }
};

SearchPlan plan_with(SearchMode mode, std::size_t n, const std::vector<std::size_t>& illegal = {}) {
  SearchPlan p;
  p.mode = mode;
  p.cells.assign(n, Cell::with(CellStatus::skipped, ""));
  for (std::size_t i : illegal) p.cells[i] = Cell::with(CellStatus::illegal, "no");
  return p;
}

TEST(Search, ExhaustiveMeasuresEveryLegalConfigAndPicksTheFastest) {
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 50; ++round) {
    const std::size_t n = 2 + rng() % 40;
    Surface s;
    std::vector<std::size_t> illegal;
    for (std::size_t i = 0; i < n; ++i) {
      s.cost.push_back(rng() % 7 == 0 ? -1.0 : 1.0 + (rng() % 100000) / 10.0);
      if (rng() % 5 == 0) illegal.push_back(i);
    }
    const SearchOutcome out =
        run_search(plan_with(SearchMode::exhaustive, n, illegal), s.measure(), s.retime());
    std::optional<std::size_t> expected;
    for (std::size_t i = 0; i < n; ++i) {
      const bool legal = std::find(illegal.begin(), illegal.end(), i) == illegal.end();
      EXPECT_EQ(std::count(s.measured.begin(), s.measured.end(), i), legal ? 1 : 0) << i;
      EXPECT_EQ(out.cells[i].status, !legal          ? CellStatus::illegal
                                     : s.cost[i] < 0 ? CellStatus::failed
                                                     : CellStatus::ok);
      if (legal && s.cost[i] >= 0 && (!expected || s.cost[i] < s.cost[*expected])) expected = i;
    }
    EXPECT_EQ(out.best, expected);
  }
}

TEST(Search, NearTiesAreRetimedInterleavedAndTheRetimingDecides) {
  Surface s;
  s.cost = {10.0, 5.05, 9.0, 5.0, 5.08, 7.0};
  s.retime_cost = {{1, 4.9}, {3, 5.2}, {4, 5.3}};
  const SearchOutcome out =
      run_search(plan_with(SearchMode::exhaustive, 6), s.measure(), s.retime());
  ASSERT_EQ(s.retimed.size(), 1u);
  EXPECT_EQ(s.retimed[0], (std::vector<std::size_t>{1, 3, 4}));  // within 2% of 5.0, in index order
  EXPECT_EQ(out.best, 1u);
  EXPECT_DOUBLE_EQ(out.cells[1].timing.median_us, 4.9);  // cells hold the re-timed statistics
}

// Session 45's sweep: 5 us kernels whose median read 17-21 us with their p10 at 5 us, because
// the next shape's input upload ran beside most of their repetitions.
TEST(Search, UnsteadyCellsAreRetimedOnceAndKeepTheLowerMedian) {
  Surface s;
  s.cost = {5.0, 6.0, 30.0, 7.0, 8.0};
  s.retime_cost = {{1, 5.5}, {2, 40.0}};
  SearchPlan plan = plan_with(SearchMode::exhaustive, 5);
  plan.unsteady = 0.25;
  const MeasureFn measure = [&](std::size_t c, double) {
    s.measured.push_back(c);
    if (c == 1) return Cell::measured({19.0, 5.2, 25.0, 100});   // mostly slowed: unsteady
    if (c == 2) return Cell::measured({30.0, 20.0, 35.0, 100});  // 1.5x its p10: unsteady
    if (c == 3) return Cell::measured({7.0, 6.0, 20.0, 100});    // a slow tail only: steady
    if (c == 4) return Cell::measured({80.0, 8.0, 90.0, 2});     // a loser's two launches
    return Cell::measured(timing(s.cost[c]));
  };
  const SearchOutcome out = run_search(plan, measure, s.retime());
  ASSERT_EQ(s.retimed.size(), 1u);
  EXPECT_EQ(s.retimed[0], (std::vector<std::size_t>{1, 2}));  // in index order, once
  EXPECT_DOUBLE_EQ(out.cells[1].timing.median_us, 5.5);       // the re-timing was lower
  EXPECT_DOUBLE_EQ(out.cells[2].timing.median_us, 30.0);      // the first timing was lower
  EXPECT_DOUBLE_EQ(out.cells[3].timing.median_us, 7.0);
  EXPECT_DOUBLE_EQ(out.cells[4].timing.median_us, 80.0);
  EXPECT_EQ(out.best, 0u);
}

TEST(Search, UnsteadyRetimingTakesTheMostUnsteadyFirstUpToItsCapAndIsOffAtZero) {
  Surface s;
  s.cost = {10, 11, 10, 12, 10};                                       // what a re-timing reports
  const std::vector<double> medians = {13.0, 40.0, 20.0, 30.0, 10.0};  // p10 10 each
  const MeasureFn measure = [&](std::size_t c, double) {
    s.measured.push_back(c);
    return Cell::measured({medians[c], 10.0, 50.0, 100});
  };
  SearchPlan plan = plan_with(SearchMode::exhaustive, 5);
  plan.near_tie = 0;  // only the unsteady re-timing
  plan.unsteady = 0.25;
  plan.max_unsteady_retimes = 2;
  run_search(plan, measure, s.retime());
  ASSERT_EQ(s.retimed.size(), 1u);
  EXPECT_EQ(s.retimed[0], (std::vector<std::size_t>{1, 3}));  // 4x and 3x; 2x and 1.3x left
  s.retimed.clear();
  plan.unsteady = 0;
  run_search(plan, measure, s.retime());
  EXPECT_TRUE(s.retimed.empty());
}

TEST(Search, AFailedUnsteadyRetimingKeepsTheFirstTimings) {
  SearchPlan plan = plan_with(SearchMode::exhaustive, 2);
  plan.unsteady = 0.25;
  const MeasureFn measure = [](std::size_t c, double) {
    return Cell::measured({c == 0 ? 20.0 : 7.0, 5.0, 25.0, 100});
  };
  const RetimeFn fails = [](const std::vector<std::size_t>&) { return std::vector<Timing>{}; };
  const SearchOutcome out = run_search(plan, measure, fails);
  EXPECT_DOUBLE_EQ(out.cells[0].timing.median_us, 20.0);
  EXPECT_EQ(out.best, 1u);
}

TEST(Search, ExactTiesBreakTowardsTheLowerConfigIndex) {
  Surface s;
  s.cost = {3.0, 2.0, 2.0, 2.0};
  const SearchOutcome out =
      run_search(plan_with(SearchMode::exhaustive, 4), s.measure(), s.retime());
  EXPECT_EQ(out.best, 1u);
}

TEST(Search, ExhaustiveMeasuresTheSeedsFirstAndGivesEachLaterConfigTheLoserBar) {
  Surface s;
  s.cost = {40.0, -1.0, 9.0, 2.0, 7.0, 3.0};
  SearchPlan plan = plan_with(SearchMode::exhaustive, 6, {4});
  plan.seeds = {5, 4, 3};  // 4 is illegal: skipped
  plan.loser_factor = 3.0;
  const SearchOutcome out = run_search(plan, s.measure(), s.retime());
  EXPECT_EQ(s.measured, (std::vector<std::size_t>{5, 3, 0, 1, 2}));
  // No bar before anything passed; then 3x the fastest median so far (3.0, then 2.0).
  EXPECT_EQ(s.loser_bars, (std::vector<double>{0.0, 9.0, 6.0, 6.0, 6.0}));
  EXPECT_EQ(out.best, 3u);
  EXPECT_EQ(out.cells[4].status, CellStatus::illegal);
}

TEST(Search, NoLoserBarWhileTheFastestSoFarIsUnderTheMinimum) {
  Surface s;
  s.cost = {40.0, 9.0, 2.0, 3.0};
  SearchPlan plan = plan_with(SearchMode::exhaustive, 4);
  plan.seeds = {3};
  plan.loser_factor = 3.0;
  plan.loser_min_us = 2.5;  // 3.0 is enough for a bar, 2.0 is not
  run_search(plan, s.measure(), s.retime());
  EXPECT_EQ(s.measured, (std::vector<std::size_t>{3, 0, 1, 2}));
  EXPECT_EQ(s.loser_bars, (std::vector<double>{0.0, 9.0, 9.0, 9.0}));
  Surface after;
  after.cost = {40.0, 9.0, 2.0, 3.0};
  plan.seeds = {2};
  run_search(plan, after.measure(), after.retime());
  EXPECT_EQ(after.loser_bars, (std::vector<double>{0.0, 0.0, 0.0, 0.0}));
}

TEST(Search, WithoutALoserFactorNoMeasurementIsToldToStopEarly) {
  Surface s;
  s.cost = {4.0, 1.0, 30.0};
  run_search(plan_with(SearchMode::exhaustive, 3), s.measure(), s.retime());
  EXPECT_EQ(s.loser_bars, (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(Search, EffortNoneTakesTheFirstLegalConfigThatPasses) {
  Surface s;
  s.cost = {1.0, -1.0, 3.0, 0.5};
  const SearchOutcome out =
      run_search(plan_with(SearchMode::none, 4, {0}), s.measure(), s.retime());
  EXPECT_EQ(s.measured, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(out.best, 2u);
  EXPECT_EQ(out.cells[3].status, CellStatus::skipped);
  EXPECT_FALSE(out.cells[3].reason.empty());
}

// A kernel whose config space is a full product of three fields, plus a separate strategy with
// fields of its own (a second connected part of the one-field neighbour graph). Only its config
// space is used.
class ProductKernel final : public TunableKernel {
 public:
  ProductKernel() {
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c)
          configs_.push_back({{"strategy", "grid"}, {"a", a}, {"b", b}, {"c", c}, {"d", 0}});
    for (int d = 1; d < 5; ++d)
      configs_.push_back({{"strategy", "split"}, {"a", 0}, {"b", 0}, {"c", 0}, {"d", d}});
  }
  std::string_view name() const override { return "product"; }
  std::string_view summary() const override { return ""; }
  std::string_view source_hash() const override { return ""; }
  std::size_t num_configs() const override { return configs_.size(); }
  std::string config_id(std::size_t i) const override { return configs_[i].dump(); }
  nlohmann::json config_json(std::size_t i) const override { return configs_[i]; }
  ProblemInfo describe(const nlohmann::json&) const override { return {}; }
  std::unique_ptr<Workload> make_workload(const nlohmann::json&) const override { return nullptr; }
  std::vector<nlohmann::json> test_shapes() const override { return {}; }

 private:
  std::vector<nlohmann::json> configs_;
};

TEST(Search, QuickSearchFindsTheOptimumOfASeparableCostWithFewerMeasurements) {
  const ProductKernel kernel;
  const auto neighbours = one_field_neighbours(kernel);
  std::mt19937 rng(std::random_device{}());
  std::size_t total_measured = 0;
  for (int round = 0; round < 50; ++round) {
    // cost = sum over fields of a per-field penalty when the value is not the preferred one.
    std::map<std::string, std::pair<nlohmann::json, double>> preferred;
    for (std::size_t c = 0; c < kernel.num_configs(); ++c) {
      const auto j = kernel.config_json(c);
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!preferred.count(it.key()) || rng() % 3 == 0)
          preferred[it.key()] = {*it, 1.0 + (rng() % 1000) / 100.0};
      }
    }
    Surface s;
    for (std::size_t c = 0; c < kernel.num_configs(); ++c) {
      const auto j = kernel.config_json(c);
      double cost = 10.0;
      for (auto it = j.begin(); it != j.end(); ++it)
        cost += *it == preferred[it.key()].first ? 0.0 : preferred[it.key()].second;
      s.cost.push_back(cost);
    }
    SearchPlan plan = plan_with(SearchMode::quick, kernel.num_configs());
    plan.neighbours = &neighbours;
    plan.seeds = {static_cast<std::size_t>(rng() % kernel.num_configs())};
    const SearchOutcome out = run_search(plan, s.measure(), s.retime());
    ASSERT_TRUE(out.best.has_value());
    EXPECT_DOUBLE_EQ(s.cost[*out.best], *std::min_element(s.cost.begin(), s.cost.end()))
        << "round " << round;
    for (std::size_t c = 0; c < kernel.num_configs(); ++c) {
      const bool was_measured =
          std::find(s.measured.begin(), s.measured.end(), c) != s.measured.end();
      EXPECT_EQ(out.cells[c].status == CellStatus::skipped, !was_measured) << c;
    }
    total_measured += s.measured.size();
  }
  EXPECT_LT(total_measured, 50 * kernel.num_configs() * 3 / 4)
      << "quick measured nearly everything";
}

TEST(Search, QuickSearchOnARealConfigSpaceMeasuresOnlyLegalConfigsAndReturnsTheBestItSaw) {
  const TunableKernel& kernel = find_kernel("jagged_sum");
  const auto neighbours = one_field_neighbours(kernel);
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 30; ++round) {
    Surface s;
    std::vector<std::size_t> illegal;
    for (std::size_t c = 0; c < kernel.num_configs(); ++c) {
      s.cost.push_back(1.0 + (rng() % 10000) / 100.0);
      if (rng() % 4 == 0) illegal.push_back(c);
    }
    SearchPlan plan = plan_with(SearchMode::quick, kernel.num_configs(), illegal);
    plan.neighbours = &neighbours;
    const SearchOutcome out = run_search(plan, s.measure(), s.retime());
    for (std::size_t c : s.measured)
      EXPECT_EQ(std::find(illegal.begin(), illegal.end(), c), illegal.end());
    ASSERT_TRUE(out.best.has_value());
    for (std::size_t c : s.measured) EXPECT_LE(s.cost[*out.best], s.cost[c]);
  }
}

TEST(Search, OneFieldNeighboursDifferInExactlyOneField) {
  for (const TunableKernel* k : all_kernels()) {
    const auto n = one_field_neighbours(*k);
    for (std::size_t a = 0; a < n.size(); ++a) {
      EXPECT_FALSE(n[a].empty()) << k->name() << " config " << a << " has no neighbour";
      for (std::size_t b : n[a]) {
        EXPECT_NE(std::find(n[b].begin(), n[b].end(), a), n[b].end()) << "not symmetric";
      }
    }
  }
}

// A shape costs building its inputs on the host plus timing its configs, or the longer of the two
// where the next shape's inputs are built while this one is timed (--overlap): a 1 GB shape is
// host-bound (~0.55 s against ~0.2 s for 40 configs), a 1 KB one is bound by its configs' launches.
TEST(WorkSplit, EstimateAddsInputBuildingToTimingOrOverlapsThem) {
  TimingProtocol p;
  p.l2_flush_bytes = 120'000'000;
  ASSERT_FALSE(p.overlap_inputs) << "inputs are built before each shape by default";
  TimingProtocol overlapped = p;
  overlapped.overlap_inputs = true;
  ProblemInfo big;
  big.bytes_moved = 1e9;
  const double big40 = estimate_gpu_seconds(big, 40, overlapped);
  EXPECT_GT(big40, 0.5);
  EXPECT_LT(big40, 0.7);
  EXPECT_DOUBLE_EQ(estimate_gpu_seconds(big, 20, overlapped), big40) << "the host build hides it";
  const double serial40 = estimate_gpu_seconds(big, 40, p),
               serial20 = estimate_gpu_seconds(big, 20, p);
  EXPECT_GT(serial40, serial20) << "each config adds to the host build";
  EXPECT_GT(serial40, big40);
  EXPECT_LT(serial40, big40 + 0.5) << "40 configs of a 1 GB shape time in well under a second";
  ProblemInfo tiny;
  tiny.bytes_moved = 1e3;
  for (const TimingProtocol& q : {p, overlapped}) {
    const double tiny20 = estimate_gpu_seconds(tiny, 20, q),
                 tiny40 = estimate_gpu_seconds(tiny, 40, q);
    EXPECT_GT(tiny40, tiny20 * 1.8);
    EXPECT_LT(tiny40, big40) << "100 flushed repetitions of 40 configs, under a 1 GB shape's build";
  }
}

TEST(WorkSplit, BalancesEstimatedCostAndKeepsEveryItemOnce) {
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 30; ++round) {
    std::vector<double> costs(1 + rng() % 200);
    for (double& c : costs) c = 0.01 + (rng() % 10000) / 100.0;
    const std::size_t workers = 1 + rng() % 4;
    const auto split = split_by_cost(costs, workers);
    std::vector<int> seen(costs.size(), 0);
    double max_load = 0, total = 0, biggest = 0;
    for (const auto& items : split) {
      double load = 0;
      for (std::size_t i : items) {
        ++seen[i];
        load += costs[i];
      }
      EXPECT_TRUE(std::is_sorted(items.begin(), items.end()));
      max_load = std::max(max_load, load);
    }
    for (double c : costs) {
      total += c;
      biggest = std::max(biggest, c);
    }
    for (int v : seen) EXPECT_EQ(v, 1);
    EXPECT_LE(max_load, std::max(total / double(workers), biggest) * 4.0 / 3.0 + 1e-9);
  }
}

}  // namespace
}  // namespace aotune::tuner
