// Config choice at run time, on the host: the current architecture's tree, the ranked fallback when
// the leaf's first config cannot run the problem, the default when nothing is tuned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "dispatch/src/kernel_heuristic_check.h"
#include "dispatch/src/kernel_selection.h"
#include "dispatch/src/selection_log.h"
#include "heuristics/kernel_defaults.h"
#include "heuristics/kernel_features.h"
#include "heuristics/row_bound.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tests/process_support.h"

namespace aotune::dispatch {
namespace {

// A jagged_sum heuristic for sm90 over 4 configs, its tables left to the caller: they split on M,
// whose feature index is *m.
KernelHeuristic sum_heuristic(int32_t* m) {
  KernelHeuristic h;
  h.kernel = "jagged_sum";
  h.arch = 90;
  h.source = "test";
  h.features = heuristics::current_feature_names(find_kernel("jagged_sum"));
  h.config_ids = {"group_row.t128.v4.s1", "group_row.t128.v1.s1", "block_row.t256.v8", "block_row.t256.v1"};
  h.fallback = {3, 1, 0, 2};
  *m = static_cast<int32_t>(std::find(h.features.begin(), h.features.end(), "M") - h.features.begin());
  return h;
}

// jagged_sum on sm90: M < 64 -> group_row.t128.v4.s1 then .v1; else block_row.t256.v8 then .v1.
HeuristicStore sm90_store() {
  int32_t m = 0;
  KernelHeuristic h = sum_heuristic(&m);
  h.nodes = {{m, 1, 2, 64.0}, {-1, 0, 2, 0.0}, {-1, 2, 2, 0.0}};
  h.leaf_configs = {0, 1, 2, 3};
  resolve_and_check(h, find_kernel("jagged_sum"));
  return HeuristicStore({h});
}

// A host-only problem: pointers are never dereferenced, only checked for alignment.
jagged_reduce::Problem sum_problem(int64_t M, std::uintptr_t values_address = 4096) {
  jagged_reduce::Problem p;
  p.op = jagged_reduce::Op::sum;
  p.B = 100;
  p.M = M;
  p.nnz = 1000;
  p.dtype = DType::bf16;  // vec=8 loads are 16 bytes
  p.values = reinterpret_cast<const void*>(values_address);
  p.offsets = reinterpret_cast<const void*>(std::uintptr_t{8192});
  p.out = reinterpret_cast<void*>(std::uintptr_t{16384});
  return p;
}

// The message of the InvalidArgument `f` throws ("" and a test failure when it throws none).
template <typename F>
std::string invalid_argument_message(F f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidArgument thrown";
  return "";
}

std::string id_of(const Selection& s) {
  return jagged_reduce::config_id(jagged_reduce::config_space()[s.config]);
}

TEST(DispatchSelect, UsesTheTreeOfTheDevicesArchitecture) {
  const HeuristicStore store = sm90_store();
  const Selection small = select_jagged_reduce(store, sum_problem(32), 20, 90);
  EXPECT_EQ(id_of(small), "group_row.t128.v4.s1");
  EXPECT_EQ(small.source, heuristics::ChoiceSource::leaf);
  EXPECT_EQ(small.arch_used, 90);
  EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(256), 20, 90)), "block_row.t256.v8");
}

// jagged_mean without feature counts does jagged_sum's work, so jagged_sum's heuristic chooses for
// it; with feature counts, jagged_mean's own. Here the two heuristics disagree on every shape.
TEST(DispatchSelect, AJaggedMeanWithoutFeatureCountsTakesJaggedSumsHeuristic) {
  int32_t m = 0;
  KernelHeuristic sum = sum_heuristic(&m);
  sum.nodes = {{-1, 0, 1, 0.0}};  // one leaf: block_row.t256.v1
  sum.leaf_configs = {3};
  resolve_and_check(sum, find_kernel("jagged_sum"));
  KernelHeuristic mean = sum_heuristic(&m);
  mean.kernel = "jagged_mean";
  mean.features = heuristics::current_feature_names(find_kernel("jagged_mean"));
  mean.nodes = {{-1, 0, 1, 0.0}};  // one leaf: group_row.t128.v1.s1
  mean.leaf_configs = {1};
  resolve_and_check(mean, find_kernel("jagged_mean"));
  const HeuristicStore store({sum, mean});
  jagged_reduce::Problem p = sum_problem(256);
  p.op = jagged_reduce::Op::mean;
  EXPECT_EQ(id_of(select_jagged_reduce(store, p, 20, 90)), "block_row.t256.v1");  // no feature counts
  p.feature_counts = reinterpret_cast<const void*>(std::uintptr_t{32768});
  EXPECT_EQ(id_of(select_jagged_reduce(store, p, 20, 90)), "group_row.t128.v1.s1");
  EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(256), 20, 90)), "block_row.t256.v1");
  EXPECT_STREQ(jagged_reduce_heuristic(jagged_reduce::Op::mean, false), "jagged_sum");
  EXPECT_STREQ(jagged_reduce_heuristic(jagged_reduce::Op::mean, true), "jagged_mean");
  EXPECT_STREQ(jagged_reduce_heuristic(jagged_reduce::Op::sum, false), "jagged_sum");
}

TEST(DispatchSelect, ANewerDeviceUsesTheNearestOlderTunedArchitecture) {
  const HeuristicStore store = sm90_store();
  EXPECT_EQ(select_jagged_reduce(store, sum_problem(32), 20, 120).arch_used, 90);
  EXPECT_EQ(select_jagged_reduce(store, sum_problem(32), 20, 130).arch_used, 90);
}

TEST(DispatchSelect, TakesTheNextLegalConfigWhenTheLeafsFirstCannotRun) {
  const HeuristicStore store = sm90_store();
  // values 4 bytes off an 8-byte boundary: vec=4 bf16 loads are illegal.
  const Selection s = select_jagged_reduce(store, sum_problem(32, 4100), 20, 90);
  EXPECT_EQ(id_of(s), "group_row.t128.v1.s1");
  EXPECT_EQ(s.source, heuristics::ChoiceSource::leaf);
  // M=100 is not a multiple of 8: block_row.t256.v8 is illegal on the right side too.
  EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(100), 20, 90)), "block_row.t256.v1");
}

// With AOTUNE_LOG_SELECTIONS on, the calls' own path logs each distinct selection once, naming
// the calling device and the heuristic that chose; off, it logs nothing.
TEST(DispatchSelect, LogsEachDistinctSelectionOnceWhenAsked) {
  const HeuristicStore store = sm90_store();
  std::vector<std::string> lines;
  SelectionLog log("1", [&](const std::string& l) { lines.push_back(l); });
  install_selection_log_for_testing(&log);
  select_jagged_reduce(store, sum_problem(32), 20, 90);
  select_jagged_reduce(store, sum_problem(32), 20, 90);
  select_jagged_reduce(store, sum_problem(256), 20, 90);
  select_jagged_reduce(store, sum_problem(32), 20, 120);
  SelectionLog off(nullptr, [&](const std::string& l) { lines.push_back("off: " + l); });
  install_selection_log_for_testing(&off);
  select_jagged_reduce(store, sum_problem(64), 20, 90);
  install_selection_log_for_testing(nullptr);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0].rfind("aotune: jagged_sum on sm90 chose group_row.t128.v4.s1 (sm90 heuristic, "
                           "test, leaf rank 0) for ",
                           0),
            0U)
      << lines[0];
  EXPECT_NE(lines[0].find(" M=32 "), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("aotune: jagged_sum on sm90 chose block_row.t256.v8 (sm90 heuristic", 0),
            0U)
      << lines[1];
  EXPECT_EQ(
      lines[2].rfind("aotune: jagged_sum on sm120 chose group_row.t128.v4.s1 (sm90 heuristic", 0),
      0U)
      << lines[2];
}

// What the process's log does under AOTUNE_LOG_SELECTIONS, seen from outside: the parent test runs
// this binary's disabled child test in a fresh process (the environment is read once per process).
TEST(DispatchSelect, DISABLED_ProcessLogChild) {
  const HeuristicStore store = sm90_store();
  select_jagged_reduce(store, sum_problem(32), 20, 90);
  select_jagged_reduce(store, sum_problem(32), 20, 90);
}

TEST(DispatchSelect, TheEnvironmentTurnsTheSelectionLogOn) {
  const std::string child =
      "'" + std::filesystem::read_symlink("/proc/self/exe").string() +
      "' --gtest_also_run_disabled_tests "
      "--gtest_filter=DispatchSelect.DISABLED_ProcessLogChild 2>&1 >/dev/null";  // stderr only
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  int code = -1;
  const std::string on = test::command_output("AOTUNE_LOG_SELECTIONS=1 " + child, &code);
  EXPECT_EQ(code, 0) << on;
  EXPECT_EQ(count(on,
                  "aotune: jagged_sum on sm90 chose group_row.t128.v4.s1 (sm90 heuristic, test, "
                  "leaf rank 0)"),
            1U)
      << on;
  const std::string unset = test::command_output("env -u AOTUNE_LOG_SELECTIONS " + child, &code);
  EXPECT_EQ(code, 0) << unset;
  EXPECT_EQ(count(unset, " chose "), 0U) << unset;
  const std::string bad = test::command_output("AOTUNE_LOG_SELECTIONS=verbose " + child, &code);
  EXPECT_EQ(code, 0) << bad;
  EXPECT_EQ(count(bad, " chose "), 0U) << bad;
  EXPECT_EQ(count(bad, "AOTUNE_LOG_SELECTIONS='verbose' is not one of"), 1U) << bad;
}

// A jagged_sum forest of two trees over the same 4 configs as sm90_store(): tree 0 splits on
// M < 64 (left: group_row.t128.v4.s1 cheapest, then .v1; right: block_row.t256.v8, then .v1),
// tree 1 is one leaf adding `bias` to every config's cost.
KernelHeuristic sum_forest(std::vector<uint16_t> bias) {
  int32_t m = 0;
  KernelHeuristic h = sum_heuristic(&m);
  h.nodes = {{m, 1, 2, 64.0}, {-1, 0, 4, 0.0}, {-1, 4, 4, 0.0}, {-1, 8, 4, 0.0}};
  h.roots = {0, 3};
  h.leaf_values = {0, 10, 40, 50, 40, 50, 0, 10};
  h.leaf_values.insert(h.leaf_values.end(), bias.begin(), bias.end());
  resolve_and_check(h, find_kernel("jagged_sum"));
  return h;
}

// The per-thread memo of a forest's costs (memoized_forest_costs) gives every call what a fresh
// walk gives: features that change call to call, the same features with pointers that make the
// cheapest config illegal (legality is never memoized), and a store rebuilt with other costs.
TEST(DispatchSelect, TheForestMemoChoosesAsAFreshWalkWould) {
  const HeuristicStore store({sum_forest({0, 0, 0, 0})});
  ASSERT_GT(store.find("jagged_sum", 90)->uid, 0u);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(32), 20, 90)), "group_row.t128.v4.s1");
    EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(32), 20, 90)), "group_row.t128.v4.s1");
    EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(256), 20, 90)), "block_row.t256.v8");
    // The same features as the call before, values 4 bytes off an 8-byte boundary: v8 is illegal.
    EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(256, 4100), 20, 90)), "block_row.t256.v1");
  }
  // Another store whose second tree makes group_row.t128.v1.s1 the cheapest everywhere: its
  // heuristic has a new uid, so the costs the first store left in the memo are not read back.
  for (int i = 0; i < 2; ++i) {
    const HeuristicStore other({sum_forest({100, 0, 100, 100})});
    EXPECT_NE(other.find("jagged_sum", 90)->uid, store.find("jagged_sum", 90)->uid);
    EXPECT_EQ(id_of(select_jagged_reduce(other, sum_problem(32), 20, 90)), "group_row.t128.v1.s1");
    EXPECT_EQ(id_of(select_jagged_reduce(other, sum_problem(256), 20, 90)), "group_row.t128.v1.s1");
  }
  EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(256), 20, 90)), "block_row.t256.v8");
}

// The memo keeps a heuristic's last four distinct shapes: shapes called in turn, fewer than the
// ways and more (each replacing the oldest), choose as fresh walks do every time.
TEST(DispatchSelect, TheForestMemoChoosesAsAFreshWalkWouldForShapesCalledInTurn) {
  const HeuristicStore store({sum_forest({0, 0, 0, 0})});
  for (const std::vector<int64_t>& widths :
       {std::vector<int64_t>{32, 256, 16}, std::vector<int64_t>{16, 32, 48, 128, 256, 512}}) {
    for (int round = 0; round < 3; ++round)
      for (const int64_t m : widths)
        EXPECT_EQ(id_of(select_jagged_reduce(store, sum_problem(m), 20, 90)),
                  m < 64 ? "group_row.t128.v4.s1" : "block_row.t256.v8")
            << "M=" << m << ", round " << round;
  }
}

// The peer benchmark's one_huge row (B=2048 M=256 bf16, one row of 200000 among rows of ~1560):
// the committed tree once sent it to block_row.t512 (5.4 ms; nnz_split 0.57 ms).
TEST(DispatchSelect, PassesOverRowPerBlockConfigsPastTheOneBlockRowBound) {
  const HeuristicStore store = sm90_store();  // every leaf, fallback and default holds a row in one block
  jagged_reduce::Problem p = sum_problem(256);
  p.B = 2048;
  p.nnz = 3376000;
  const Selection huge = select_jagged_reduce(store, p, 200000, 90);
  EXPECT_TRUE(id_of(huge).starts_with("nnz_split.")) << id_of(huge);
  EXPECT_EQ(huge.source, heuristics::ChoiceSource::any_legal);
  // The same rows without the huge one: the tree's choice stands.
  EXPECT_EQ(id_of(select_jagged_reduce(store, p, 3125, 90)), "block_row.t256.v8");
  // No heuristic (an older device): the safe default is passed over too.
  EXPECT_TRUE(id_of(select_jagged_reduce(store, p, 200000, 80)).starts_with("nnz_split."));
}

// Session 19, fit draw 6: held-out B=64 M=16 len<=8192 f32 (rows up to 512 KB, 16.8 MB in all)
// went to group_row.t128.v1.s2, 73x its best: 512 bytes in flight per row (16 lanes x 4 bytes x
// 2 slots x 4 loads), where the one-rate bound of 100 GB/s let every row config through.
TEST(RowBound, GroupConfigsAreBoundByTheBytesTheyKeepInFlightPerRow) {
  EXPECT_EQ(heuristics::config_id_field("group_row.t128.v2.s16", 's'), 16);
  EXPECT_EQ(heuristics::config_id_field("group_row.t128.v2.s16", 'v'), 2);
  EXPECT_EQ(heuristics::config_id_field("flat_row.t128.s32", 's'), 32);
  EXPECT_EQ(heuristics::config_id_field("block_row.t128.va", 'v'), 0);  // auto
  EXPECT_DOUBLE_EQ(heuristics::row_rate_bytes_per_us("jagged_sum", "group_row.t128.v1.s2", 16, 4),
                   heuristics::kInFlightPerUs * 512);
  EXPECT_DOUBLE_EQ(heuristics::row_rate_bytes_per_us("jagged_sum", "flat_row.t128.s32", 1, 4),
                   heuristics::kInFlightPerUs * 32 * 64);
  EXPECT_DOUBLE_EQ(heuristics::row_rate_bytes_per_us("jagged_mean", "group_row.t128.v4.s1", 2048, 4),
                   heuristics::kOneBlockBytesPerUs);  // capped
  EXPECT_DOUBLE_EQ(heuristics::row_rate_bytes_per_us("jagged_sum", "block_row.t512.va", 16, 4),
                   heuristics::kOneBlockBytesPerUs);
  EXPECT_EQ(heuristics::row_rate_bytes_per_us("jagged_sum", "nnz_split.t256.v1.c16384", 16, 4), 0.0);
  EXPECT_EQ(heuristics::row_rate_bytes_per_us("jagged_sum", "flat_scan.t128", 1, 4), 0.0);

  const Features f = jagged_reduce::features(DType::f32, 64, 16, 64 * 4096, 8192);
  EXPECT_TRUE(heuristics::longest_row_past_bound("jagged_sum", f));  // the cheap check lets it in
  EXPECT_TRUE(heuristics::config_past_row_bound("jagged_sum", "group_row.t128.v1.s2", f));
  EXPECT_TRUE(heuristics::config_past_row_bound("jagged_sum", "flat_row.t128.s4", f));
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", "block_row.t512.va", f));  // 5 us a row
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", "nnz_split.t256.v1.c16384", f));
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_dense_add", "group_row.t128.v1.s2", f));
  // Short rows (len <= 64): no row config is past it.
  const Features short_rows = jagged_reduce::features(DType::f32, 16384, 16, 16384 * 32, 64);
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", "group_row.t128.v1.s2", short_rows));
}

// Session 53, the test set's worst pick: jagged_mean B=15 M=2 one_huge f16 (one 124112-element
// row of 496 KB among 15) went to block_row.t128.va at 107 us, 11.3x flat_split.t256.s16's 9.5 us:
// 128 threads x 4 bytes x 4 loads = 2 KB in flight on the row, where the flat 100 GB/s block_row
// rate let it through. block_row is now bound by its bytes in flight as the group configs are.
TEST(RowBound, BlockRowIsBoundByItsThreadsAndTheRowsWidth) {
  EXPECT_EQ(heuristics::widest_block_row_vec(2, 2), 2);
  EXPECT_EQ(heuristics::widest_block_row_vec(16, 2), 8);
  EXPECT_EQ(heuristics::widest_block_row_vec(16, 4), 4);
  EXPECT_EQ(heuristics::widest_block_row_vec(7, 4), 1);
  // M=2 f16 under "va": vec 2, one lane, 128 rows of lanes x 4 loads x 4 bytes.
  EXPECT_DOUBLE_EQ(heuristics::block_row_bytes_in_flight("block_row.t128.va", 2, 2), 2048);
  EXPECT_DOUBLE_EQ(heuristics::row_rate_bytes_per_us("jagged_mean", "block_row.t128.va", 2, 2),
                   heuristics::kInFlightPerUs * 2048);
  // An explicit vector: M=256 bf16 v2 fills 128 lanes, one row of them.
  EXPECT_DOUBLE_EQ(heuristics::block_row_bytes_in_flight("block_row.t128.v2", 256, 2), 4 * 256 * 2);
  // M past the threads' lanes: the column tiles each keep their lanes' loads in flight.
  EXPECT_DOUBLE_EQ(heuristics::block_row_bytes_in_flight("block_row.t128.v1", 1000, 4), 4 * 1000 * 4);
  // No block_row rate is below the slowest rate the cheap check assumes.
  for (const double m : {1.0, 2.0, 3.0, 7.0, 16.0, 1000.0}) {
    for (const double bytes : {2.0, 4.0}) {
      for (const char* id : {"block_row.t128.va", "block_row.t128.v1", "block_row.t512.v8"}) {
        EXPECT_GE(heuristics::row_rate_bytes_per_us("jagged_sum", id, m, bytes),
                  heuristics::slowest_row_rate_bytes_per_us(m, bytes))
            << id << " M=" << m << " bytes=" << bytes;
      }
    }
  }
  const Features worst = jagged_reduce::features(DType::f16, 15, 2, 145191, 124112);
  EXPECT_TRUE(heuristics::config_past_row_bound("jagged_mean", "block_row.t128.va", worst));  // 62 us a row
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_mean", "flat_split.t256.s16", worst));
  // The same B and M with rows of at most 3142: block_row.t512.va is that shape's best (6.4 us).
  const Features uniform = jagged_reduce::features(DType::f16, 15, 2, 24737, 3142);
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_mean", "block_row.t512.va", uniform));
}

// Session 55, test set seed 101's worst jagged_sum pick: B=2 M=299 one_huge f16, one row of 115
// values of 598 bytes (69 KB) and one of 3. Every block_row config took 36 us (1.9 GB/s: M=299 is
// odd, so one lane row of 299 scalar lanes, 4 loads each, 2.4 KB in flight), nnz_split 11.6 us.
// At 8 per microsecond of bytes in flight the row looked like 3.6 us, under the 5.0 us the whole
// problem is held to; at 5 it is 5.8 us and block_row is passed over.
TEST(RowBound, PassesOverABlockRowWhoseFewLanesChainTheirRoundTrips) {
  EXPECT_DOUBLE_EQ(heuristics::block_row_bytes_in_flight("block_row.t512.va", 299, 2), 4 * 299 * 2);
  const Features f = jagged_reduce::features(DType::f16, 2, 299, 118, 115);
  for (const char* id : {"block_row.t512.va", "block_row.t256.va", "block_row.t128.v1"}) {
    EXPECT_TRUE(heuristics::config_past_row_bound("jagged_sum", id, f)) << id;
  }
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", "nnz_split.t256.v1.ca", f));
  // A row a fifth as long (13.8 KB, 1.2 us at that rate): block_row stays.
  const Features shorter = jagged_reduce::features(DType::f16, 2, 299, 26, 23);
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", "block_row.t512.va", shorter));
}

// Session 57, cross-validation's worst held-out jagged_mean pick with the max_vec feature: B=4691
// M=441 one_huge bf16 with 32 values rows (all in one row) took 1036 us in nnz_split.t256.v1.ca,
// 66x block_row.t128.v1's 15.7 us: nnz_split's empty rows get their zeros from the chunk holding
// their start, and here that is one block for about 2 million outputs.
TEST(RowBound, PassesOverNnzSplitWhereMostRowsAreEmpty) {
  EXPECT_TRUE(heuristics::mostly_empty_rows(32, 4691));
  EXPECT_TRUE(heuristics::mostly_empty_rows(0, 8));  // every row empty
  EXPECT_FALSE(heuristics::mostly_empty_rows(2048, 4096));  // nnz = B / 2: nnz_split is sometimes best
  EXPECT_FALSE(heuristics::mostly_empty_rows(32, 0));
  const Features f = jagged_reduce::features(DType::bf16, 4691, 441, 32, 32);
  EXPECT_TRUE(heuristics::longest_row_past_bound("jagged_mean", f));  // the cheap check lets it in
  for (const char* id : {"nnz_split.t256.v1.ca", "nnz_split.t256.v1.c16384"}) {
    EXPECT_TRUE(heuristics::config_past_row_bound("jagged_mean", id, f)) << id;
    EXPECT_TRUE(heuristics::config_past_row_bound("jagged_sum", id, f)) << id;
  }
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_mean", "block_row.t128.v1", f));  // its 28 KB row: 1.6 us
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_mean", "flat_split.t256.s16", f));
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_dense_add", "nnz_split.t256.v1.ca", f));
  // Half the rows hold values: nnz_split stays.
  const Features half = jagged_reduce::features(DType::bf16, 4096, 441, 2048, 32);
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_mean", "nnz_split.t256.v1.ca", half));
}

// explain names the rule that passed a config over from row_bound_rule(), so each rule must be
// told apart there, and "no" given exactly where config_past_row_bound() is false.
TEST(RowBound, NamesWhichRulePassedAConfigOver) {
  using heuristics::PassedOver;
  const heuristics::RowBoundFeatures empty_rows =
      heuristics::row_bound_features(jagged_reduce::features(DType::bf16, 4691, 441, 32, 32));
  EXPECT_EQ(heuristics::row_bound_rule("jagged_mean", "nnz_split.t256.v1.ca", empty_rows), PassedOver::mostly_empty_rows);
  EXPECT_EQ(heuristics::row_bound_rule("jagged_mean", "block_row.t128.v1", empty_rows), PassedOver::no);
  EXPECT_EQ(heuristics::row_bound_rule("jagged_dense_add", "nnz_split.t256.v1.ca", empty_rows), PassedOver::no);
  // The peer one_huge: block_row's 102 MB row is the slow-row rule's; nnz_split is spared.
  const heuristics::RowBoundFeatures huge =
      heuristics::row_bound_features(jagged_reduce::features(DType::bf16, 2048, 256, 3376000, 200000));
  EXPECT_EQ(heuristics::row_bound_rule("jagged_sum", "block_row.t512.va", huge), PassedOver::slow_row);
  EXPECT_EQ(heuristics::row_bound_rule("jagged_sum", "nnz_split.t256.v1.ca", huge), PassedOver::no);
  // Features without the sizes the rules read (another kernel's list): no rule.
  EXPECT_EQ(heuristics::row_bound_rule("jagged_sum", "block_row.t512.va", heuristics::RowBoundFeatures{}), PassedOver::no);
}

TEST(RowBound, HoldsWhereTheLongestRowInOneBlockOutlastsTheWholeProblem) {
  // The peer one_huge: 102 MB row (1 ms at 100 GB/s) against 1.73 GB in all (0.41 ms).
  const Features huge = jagged_reduce::features(DType::bf16, 2048, 256, 3376000, 200000);
  EXPECT_TRUE(heuristics::config_past_row_bound("jagged_sum", "block_row.t512.va", huge));
  // Uniform B=1024 M=256 len <= 1024 f32: 1 MB rows (10 us at 100 GB/s), 0.54 GB in all.
  const Features uniform = jagged_reduce::features(DType::f32, 1024, 256, 1024 * 512, 1024);
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", "block_row.t512.va", uniform));
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", "group_row.t128.v4.s1", uniform));  // 100 GB/s too
  // Small problems: the launch dominates both sides, for the slowest row config too.
  EXPECT_FALSE(heuristics::longest_row_past_bound(16.0 * 8, 4, std::log2(64e3), 8));
  EXPECT_TRUE(heuristics::longest_row_past_bound(200000.0 * 256, 2, std::log2(1.73e9), 256));
  EXPECT_TRUE(heuristics::reduces_each_row_in_one_block("jagged_mean", "group_row.t128.v4.s4"));
  EXPECT_FALSE(heuristics::reduces_each_row_in_one_block("jagged_sum", "nnz_split.t256.v2.ca"));
  EXPECT_FALSE(heuristics::reduces_each_row_in_one_block("jagged_dense_add", "block_row.t128.va"));
  // Every jagged_reduce config, by what its strategy does with a row: a new strategy has to be
  // classified here, or a huge row could be sent to a single warp.
  for (const jagged_reduce::Config& c : jagged_reduce::config_space()) {
    const bool one_block = c.strategy == jagged_reduce::Strategy::block_row ||
                           c.strategy == jagged_reduce::Strategy::group_row ||
                           c.strategy == jagged_reduce::Strategy::flat_row;
    const bool spread = c.strategy == jagged_reduce::Strategy::nnz_split ||
                        c.strategy == jagged_reduce::Strategy::flat_scan ||
                        c.strategy == jagged_reduce::Strategy::flat_split;
    ASSERT_TRUE(one_block != spread) << "unclassified strategy: " << jagged_reduce::config_id(c);
    EXPECT_EQ(heuristics::reduces_each_row_in_one_block("jagged_sum", jagged_reduce::config_id(c)), one_block)
        << jagged_reduce::config_id(c);
  }
  // By name, on the kernel's own feature list; other kernels never.
  const Features f = jagged_reduce::features(DType::bf16, 2048, 256, 3376000, 200000);
  EXPECT_TRUE(heuristics::longest_row_past_bound("jagged_sum", f));
  EXPECT_FALSE(heuristics::longest_row_past_bound("causal_trailing_mean", f));
}

TEST(DispatchSelect, AnOlderDeviceRunsTheSafeDefault) {
  const HeuristicStore store = sm90_store();
  const Selection s = select_jagged_reduce(store, sum_problem(32), 20, 80);
  EXPECT_EQ(id_of(s), heuristics::default_config_id("jagged_sum"));
  EXPECT_EQ(s.source, heuristics::ChoiceSource::default_config);
  EXPECT_EQ(s.arch_used, 0);
}

TEST(DispatchSelect, UntunedKernelsRunTheirDefaultConfigs) {
  const HeuristicStore empty;
  jagged_dense_add::Problem d;
  d.B = 10;
  d.N = 33;
  d.nnz = 100;
  d.x = reinterpret_cast<const void*>(std::uintptr_t{1} << 12);
  d.y = reinterpret_cast<const void*>(std::uintptr_t{1} << 20);
  d.offsets = reinterpret_cast<const void*>(std::uintptr_t{1} << 21);
  d.out = reinterpret_cast<void*>(std::uintptr_t{1} << 22);
  const Selection ds = select_jagged_dense_add(empty, d, 90);
  EXPECT_EQ(jagged_dense_add::config_id(jagged_dense_add::config_space()[ds.config]),
            heuristics::default_config_id("jagged_dense_add"));
  causal_trailing_mean::Problem c;
  c.B = 2;
  c.D = 3;
  c.T = 1000;
  c.cf = 7;
  c.x = reinterpret_cast<const void*>(std::uintptr_t{4096});
  c.out = reinterpret_cast<void*>(std::uintptr_t{1 << 20});
  const Selection cs = select_causal_trailing_mean(empty, c, 90);
  EXPECT_EQ(causal_trailing_mean::config_id(causal_trailing_mean::config_space()[cs.config]),
            heuristics::default_config_id("causal_trailing_mean"));
}

TEST(DefaultConfigs, AreLegalForEveryTestShapeOfTheirKernel) {
  for (const TunableKernel* k : all_kernels()) {
    const uint32_t d = default_config_index(*k);
    ASSERT_EQ(k->config_id(d), heuristics::default_config_id(k->name())) << k->name();
    for (const auto& shape : k->test_shapes()) {
      const ProblemInfo info = k->describe(shape);
      EXPECT_TRUE(info.legality[d].ok)
          << k->name() << " " << shape.dump() << ": " << info.legality[d].reason;
    }
  }
}

TEST(DispatchSelect, ValidatesBeforeChoosing) {
  const HeuristicStore store = sm90_store();
  jagged_reduce::Problem p = sum_problem(32);
  p.offsets = nullptr;
  EXPECT_THROW(select_jagged_reduce(store, p, 20, 90), InvalidArgument);
  EXPECT_THROW(select_jagged_reduce(store, sum_problem(32), 5000, 90),
               InvalidArgument);  // max_len > nnz
}

TEST(DispatchSelect, UnknownMaxLenMeansEqualRows) {
  EXPECT_EQ(feature_max_len("op", -1, 4, 10), 3);
  EXPECT_EQ(feature_max_len("op", -1, 0, 0), 0);
  EXPECT_EQ(feature_max_len("op", 7, 4, 10), 7);
  EXPECT_THROW(feature_max_len("op", -2, 4, 10), InvalidArgument);
}

TEST(DispatchSelect, MaxLenShorterThanTheMeanRowOrElementsWithoutRowsAreErrorsNamingTheValues) {
  // 10 elements in 4 rows: some row holds at least 3.
  EXPECT_EQ(feature_max_len("op", 3, 4, 10), 3);
  const std::string short_row = invalid_argument_message([] { feature_max_len("jagged_sum", 2, 4, 10); });
  EXPECT_NE(short_row.find("max_len=2"), std::string::npos) << short_row;
  EXPECT_NE(short_row.find("at least 3"), std::string::npos) << short_row;
  // B = 0 rows hold no elements; max_len = 0 fits empty rows only.
  const std::string no_rows = invalid_argument_message([] { feature_max_len("jagged_mean", -1, 0, 5); });
  EXPECT_NE(no_rows.find("nnz=5"), std::string::npos) << no_rows;
  EXPECT_NE(no_rows.find("B=0"), std::string::npos) << no_rows;
  EXPECT_EQ(feature_max_len("op", 0, 7, 0), 0);
  EXPECT_THROW(feature_max_len("op", 0, 7, 1), InvalidArgument);
  // The call paths check it too, before any selection (jagged_dense_add through its features).
  EXPECT_THROW(select_jagged_reduce(sm90_store(), sum_problem(32), 0, 90), InvalidArgument);
}

}  // namespace
}  // namespace aotune::dispatch
