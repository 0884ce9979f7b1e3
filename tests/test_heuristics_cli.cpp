// `aot-runner fit`, `emit` and `explain`, run as a user would run them.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "heuristics/fit.h"
#include "heuristics/row_bound.h"
#include "kernels/common/cuda_raii.h"
#include "tests/heuristics_test_support.h"
#include "tests/process_support.h"
#include "tuner/atomic_file.h"
#include "tuner/results_database.h"

namespace aotune {
namespace {

// stdout of `aot-runner <args>` and its exit code.
std::string aot_runner(const std::string& args, int* exit_code, const std::string& env = "") {
  return test::command_output(env + " " + AOT_RUNNER_PATH + " " + args, exit_code);
}

// A jagged_sum database from the simulated device's cost model, saved in `dir`; returns its path.
std::string cost_model_jagged_sum_db(const test::TempDir& dir) {
  const std::string db = dir / "jagged_sum.json";
  tuner::save_database(
      db, test::cost_model_database("jagged_sum", test::small_grid("jagged_sum"), "sm90", true));
  return db;
}

// `aot-runner fit --kernel jagged_sum --arch sm90 --db DB --json EXTRA`, parsed (a nonzero exit
// fails the test, and its output then fails to parse).
nlohmann::json fit_report(const std::string& db, const std::string& extra = "") {
  int code = -1;
  const std::string out =
      aot_runner(fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --json {}", db, extra), &code);
  EXPECT_EQ(code, 0) << out;
  return nlohmann::json::parse(out);
}

TEST(CliFit, PrintsTheHeldOutReportAsJson) {
  test::TempDir dir;
  const auto j = fit_report(cost_model_jagged_sum_db(dir), "--max-configs 8");
  EXPECT_EQ(j["kernel"], "jagged_sum");
  EXPECT_EQ(j["arch"], "sm90");
  EXPECT_LE(j["num_configs"].get<int>(), 8);  // the cap given
  EXPECT_GE(j["tree_depth"].get<int>(), 0);
  for (const char* key : {"geomean_slowdown", "p95_slowdown", "max_slowdown"}) {
    EXPECT_GE(j["heldout"][key].get<double>(), 1.0) << key;
  }
  EXPECT_LE(j["heldout"]["geomean_slowdown"].get<double>(),
            j["best_single_config"]["geomean_slowdown"].get<double>());
  EXPECT_GE(j["default_config"]["geomean_slowdown"].get<double>(), 1.0);
}

// --testset scores the fitted model on another database's shapes, routed as at run time. Given
// the training database itself, that is the final model on its own shapes: `training` exactly.
TEST(CliFit, TestSetScoresTheFittedModelOnAnotherDatabasesShapes) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  const auto j = fit_report(db, "--testset " + db + " --worst 3");
  ASSERT_TRUE(j.contains("testset")) << j.dump(2);
  const auto& t = j["testset"];
  EXPECT_EQ(t["database"], db);
  EXPECT_EQ(t["shapes"], j["shapes"]);
  for (const char* key : {"geomean_slowdown", "p95_slowdown", "max_slowdown"}) {
    EXPECT_DOUBLE_EQ(t["heuristic"][key].get<double>(), j["training"][key].get<double>()) << key;
  }
  EXPECT_EQ(t["best_single_config"]["id"], j["best_single_config"]["id"]);
  EXPECT_DOUBLE_EQ(t["best_single_config"]["geomean_slowdown"].get<double>(),
                   j["best_single_config"]["geomean_slowdown"].get<double>());
  EXPECT_DOUBLE_EQ(t["default_config"]["geomean_slowdown"].get<double>(),
                   j["default_config"]["geomean_slowdown"].get<double>());
  ASSERT_EQ(t["worst"].size(), 3u);
  EXPECT_GE(t["worst"][0]["slowdown"].get<double>(), t["worst"][2]["slowdown"].get<double>());
  EXPECT_DOUBLE_EQ(t["worst"][0]["slowdown"].get<double>(),
                   t["heuristic"]["max_slowdown"].get<double>());
  int code = -1;
  const std::string text = aot_runner(
      fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --testset {}", db, db), &code);
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find(fmt::format("test set ({} shapes)", j["shapes"].get<std::size_t>())),
            std::string::npos)
      << text;
}

// --testset given twice scores the model on both ("testsets", in order; "testset" is the first),
// and --forest-seed draws another forest from the same shapes.
TEST(CliFit, SeveralTestSetsAndAnotherForestSeed) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  const std::string copy = dir / "copy.json";
  std::filesystem::copy_file(db, copy);
  const auto j = fit_report(db, fmt::format("--testset {} --testset {}", db, copy));
  ASSERT_EQ(j["testsets"].size(), 2u) << j.dump(2);
  EXPECT_EQ(j["testsets"][0]["database"], db);
  EXPECT_EQ(j["testsets"][1]["database"], copy);
  EXPECT_EQ(j["testset"], j["testsets"][0]);
  EXPECT_EQ(j["testsets"][0]["heuristic"], j["testsets"][1]["heuristic"]);  // the same shapes
  int code = -1;
  const std::string text = aot_runner(
      fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --testset {} --testset {}", db, db, copy), &code);
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find(copy), std::string::npos) << text;

  // Another seed: another forest (its held-out score on these shapes differs somewhere), the
  // default seed's report unchanged when given explicitly.
  const auto seed0 = fit_report(db, "--forest-seed 0");
  EXPECT_EQ(seed0["heldout_forest"], j["heldout_forest"]);
  const auto seed1 = fit_report(db, "--forest-seed 1");
  EXPECT_NE(seed1["heldout_forest"], j["heldout_forest"]);
}

// A test set of another kernel, or one measured on other kernel code, is refused before the fit.
TEST(CliFit, ATestSetOfAnotherKernelOrKernelSourceIsAUsageError) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  const std::string other = dir / "jagged_mean.json";
  tuner::save_database(other, test::cost_model_database(
                                  "jagged_mean", test::small_grid("jagged_mean"), "sm90", true));
  tuner::ResultsDatabase stale =
      test::cost_model_database("jagged_sum", test::small_grid("jagged_sum"), "sm90", true);
  stale.source_hash = std::string(64, 'f');
  const std::string stale_path = dir / "stale.json";
  tuner::save_database(stale_path, stale);
  for (const auto& [testset, needle] :
       {std::pair{other, std::string("holds kernel 'jagged_mean', not 'jagged_sum'")},
        std::pair{stale_path, std::string("with kernel source ffffffffffff")},
        std::pair{dir / "missing.json", std::string("--testset: no results database at")}}) {
    int code = -1;
    const std::string out = aot_runner(
        fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --testset {} 2>&1", db, testset),
        &code);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find(needle), std::string::npos) << out;
  }
}

// The committed test set (bench/testset) scores the same through `fit --testset` (the model fitted
// now from the committed database) as through `bench --db` (the compiled heuristic emitted from
// it): the two paths route alike. Skipped only while the test set is stale after a kernel change.
TEST(CliFit, TheCommittedTestSetScoresAsBenchDoes) {
  const std::string root = AOTUNE_SOURCE_DIR;
  const std::string testset = root + "/bench/testset/sm90/jagged_dense_add.json";
  const auto committed = tuner::load_database(root + "/configs/sm90/jagged_dense_add.json");
  const auto measured = tuner::load_database(testset);
  ASSERT_TRUE(committed && measured);
  if (committed->source_hash != measured->source_hash)
    GTEST_SKIP()
        << "bench/testset's jagged_dense_add is stale (other kernel source): re-measure it";
  int code = -1;
  const auto fit = nlohmann::json::parse(
      aot_runner(fmt::format("fit --kernel jagged_dense_add --arch sm90 --db "
                             "{}/configs/sm90/jagged_dense_add.json --testset {} --json",
                             root, testset),
                 &code));
  ASSERT_EQ(code, 0);
  const auto bench = nlohmann::json::parse(aot_runner(
      fmt::format("bench --grid {}/bench/testset/grids/jagged_dense_add.json --db {} --json", root,
                  testset),
      &code));
  ASSERT_EQ(code, 0);
  EXPECT_EQ(fit["testset"]["shapes"].get<std::size_t>(), bench["shapes"].get<std::size_t>());
  for (const char* key : {"geomean_slowdown", "p95_slowdown", "max_slowdown"}) {
    EXPECT_NEAR(fit["testset"]["heuristic"][key].get<double>(),
                bench["heuristic"][key].get<double>(), 1e-9)
        << key;
  }
}

TEST(CliFit, AMissingDatabaseIsAUsageErrorThatSaysWhatToRun) {
  int code = -1;
  const std::string out =
      aot_runner("fit --kernel jagged_sum --arch sm90 --db /nonexistent/x.json 2>&1", &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("aot-runner tune"), std::string::npos) << out;
}

// More folds than shapes is leave-one-out (assign_folds clamps them): valid, but one fit per shape,
// so fit says so instead of running silently.
TEST(CliFit, MoreFoldsThanShapesWarnsThatItIsLeaveOneOut) {
  test::TempDir dir;
  // Eight shapes: leave-one-out over the usual test grid's 48 takes minutes.
  const std::string db = dir / "jagged_sum.json";
  tuner::save_database(db, test::cost_model_database("jagged_sum",
                                                     nlohmann::ordered_json::array({{{"B", {4, 1024}},
                                                                                     {"M", {8, 256}},
                                                                                     {"len", {4, 128}}}}),
                                                     "sm90", true));
  int code = -1;
  const std::string out = aot_runner(
      fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --folds 100000 --forest-trees 0 2>&1 >/dev/null", db),
      &code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("--folds 100000 is more than the 8 shapes"), std::string::npos) << out;
  EXPECT_NE(out.find("leave-one-out"), std::string::npos) << out;
}

TEST(CliFit, RepeatsAddTheSpreadOverFoldDrawsAndZeroRepeatsIsAUsageError) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  int code = -1;
  const std::string out = aot_runner(
      fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --repeats 3 --json", db), &code);
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["heldout_repeated"]["repeats"].get<int>(), 3);
  EXPECT_LE(j["heldout_repeated"]["geomean_slowdown"]["min"].get<double>(),
            j["heldout"]["geomean_slowdown"].get<double>());
  const std::string bad = aot_runner(
      fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --repeats 0 2>&1", db), &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(bad.find("--repeats must be in [1, 1000], got 0"), std::string::npos) << bad;
}

// --forest-trees adds the forest's held-out scores (same fold draws) after the tree's, whose report
// does not move; out-of-range values are usage errors naming the value.
TEST(CliFit, ForestTreesAddTheForestsHeldOutScoresAndRejectBadCounts) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  const auto plain = fit_report(db, "--repeats 2 --forest-trees 0");
  EXPECT_FALSE(plain.contains("heldout_forest"));
  EXPECT_EQ(plain["model"], "tree");
  const auto j = fit_report(db, "--repeats 2 --forest-trees 4 --forest-configs all");
  // The tree's scores do not move; heldout is the shipped model's, the forest only where it holds
  // out 0.75 % better on draw 0 (kForestMargin).
  EXPECT_EQ(j["heldout_tree"], plain["heldout"]);
  EXPECT_EQ(j["heldout_tree_repeated"], plain["heldout_repeated"]);
  const bool forest = j["heldout_forest"]["geomean_slowdown"].get<double>() <=
                      j["heldout_tree"]["geomean_slowdown"].get<double>() * heuristics::kForestMargin;
  EXPECT_EQ(j["model"], forest ? "forest" : "tree");
  EXPECT_EQ(j["heldout"]["geomean_slowdown"], (forest ? j["heldout_forest"] : j["heldout_tree"])["geomean_slowdown"]);
  EXPECT_EQ(j["heldout_forest"]["trees"].get<int>(), 4);
  EXPECT_EQ(j["heldout_forest"]["configs"], "all");
  EXPECT_GE(j["heldout_forest"]["geomean_slowdown"].get<double>(), 1.0);
  EXPECT_EQ(j["heldout_forest_repeated"]["repeats"].get<int>(), 2);
  int code = -1;
  const std::string text =
      aot_runner(fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --forest-trees 2", db), &code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(text.find("held-out, forest x2 d12 (all)"), std::string::npos) << text;  // the default
  const std::string subset = aot_runner(
      fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --forest-trees 2 --forest-configs subset", db), &code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(subset.find("held-out, forest x2 d12 (subset)"), std::string::npos) << subset;
  for (const char* bad : {"-1", "257"}) {
    const std::string out = aot_runner(
        fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --forest-trees {} 2>&1", db, bad), &code);
    EXPECT_EQ(code, 2) << bad;
    EXPECT_NE(out.find(fmt::format("--forest-trees must be in [0, 256], got {}", bad)), std::string::npos) << out;
  }
  const std::string configs = aot_runner(
      fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --forest-trees 2 --forest-configs some 2>&1", db), &code);
  EXPECT_EQ(code, 2);
}

// --forest-clip sets the forest's training clip (recorded in heldout_forest.clip; the tree's report
// does not move); a clip out of (0.01, 20) is a usage error naming the option.
TEST(CliFit, ForestClipIsRecordedAndOutOfRangeValuesAreUsageErrors) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  const auto base = fit_report(db, "--forest-trees 2");
  EXPECT_EQ(base["heldout_forest"]["clip"].get<double>(), 1.5);  // ForestOptions' default
  const auto wide = fit_report(db, "--forest-trees 2 --forest-clip 3");
  EXPECT_EQ(wide["heldout_forest"]["clip"].get<double>(), 3.0);
  EXPECT_EQ(wide["heldout_tree"], base["heldout_tree"]);
  int code = -1;
  for (const char* bad : {"0", "-1", "21", "x"}) {
    const std::string out = aot_runner(
        fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --forest-clip {} 2>&1", db, bad),
        &code);
    EXPECT_EQ(code, 2) << bad;
    EXPECT_NE(out.find("--forest-clip"), std::string::npos) << out;
  }
}

// The held-out slowdowns by size class of bytes moved: every shape in exactly one class, each
// class's statistics those of its shapes' slowdowns (checked against the full per-shape list).
TEST(CliFit, ReportsTheHeldOutSlowdownBySizeClass) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  const auto j = fit_report(db, "--worst 100000");
  std::ifstream db_file(db);
  const auto db_json = nlohmann::json::parse(db_file);
  std::map<std::string, double> bytes;
  for (const auto& s : db_json["shapes"]) bytes[s["key"]] = s["bytes_moved"];
  std::map<std::string, std::vector<double>> by_class;
  for (const auto& w : j["heldout_worst"]) {
    const double b = bytes.at(w["shape"]);
    by_class[b < 1e6 ? "< 1 MB" : b < 256e6 ? "1 MB - 256 MB" : ">= 256 MB"].push_back(w["slowdown"]);
  }
  ASSERT_EQ(j["heldout_by_size"].size(), 3u);
  std::size_t total = 0;
  for (const auto& c : j["heldout_by_size"]) {
    const auto& v = by_class[c["bytes_moved"].get<std::string>()];
    EXPECT_EQ(c["shapes"].get<std::size_t>(), v.size()) << c.dump();
    total += v.size();
    if (v.empty()) continue;
    double logs = 0;
    for (double x : v) logs += std::log(x);
    EXPECT_NEAR(c["geomean_slowdown"].get<double>(), std::exp(logs / v.size()), 1e-3) << c.dump();
    EXPECT_NEAR(c["max_slowdown"].get<double>(), *std::max_element(v.begin(), v.end()), 1e-3) << c.dump();
  }
  EXPECT_EQ(total, j["shapes"].get<std::size_t>());
  EXPECT_GE(by_class.size(), 2u) << "the grid should span two size classes; otherwise the split is untested";
}

// --draw picks the fold draw that heldout describes: the mean over --repeats 3 from draw 0 is the
// mean of draws 0, 1 and 2 taken one at a time, and --draw 1 --repeats 2 covers draws 1 and 2.
TEST(CliFit, DrawSelectsTheFoldDrawOfTheHeldOutReport) {
  test::TempDir dir;
  const std::string db = cost_model_jagged_sum_db(dir);
  auto fit_json = [&](const std::string& extra) { return fit_report(db, extra); };
  double sum = 0, lo = 1e300, hi = 0;
  for (int d = 0; d < 3; ++d) {
    const auto j = fit_json(fmt::format("--draw {} --worst 3", d));
    EXPECT_EQ(j["heldout"]["draw"].get<int>(), d);
    EXPECT_EQ(j["heldout_worst"].size(), 3u);
    const double g = j["heldout"]["geomean_slowdown"].get<double>();
    sum += g;
    lo = std::min(lo, g);
    hi = std::max(hi, g);
  }
  EXPECT_LT(lo, hi) << "the draws should split this grid differently; otherwise --draw is untested";
  const auto rep = fit_json("--repeats 3")["heldout_repeated"]["geomean_slowdown"];
  EXPECT_NEAR(rep["mean"].get<double>(), sum / 3, 1e-9);
  EXPECT_DOUBLE_EQ(rep["min"].get<double>(), lo);
  EXPECT_DOUBLE_EQ(rep["max"].get<double>(), hi);
  const auto from1 = fit_json("--draw 1 --repeats 2");
  const auto d1 = fit_json("--draw 1"), d2 = fit_json("--draw 2");
  EXPECT_NEAR(from1["heldout_repeated"]["geomean_slowdown"]["mean"].get<double>(),
              (d1["heldout"]["geomean_slowdown"].get<double>() + d2["heldout"]["geomean_slowdown"].get<double>()) / 2,
              1e-9);
  // The fitted model does not depend on the draw.
  EXPECT_EQ(d1["configs"], d2["configs"]);
  EXPECT_EQ(d1["training"], d2["training"]);
  int code = -1;
  const std::string bad =
      aot_runner(fmt::format("fit --kernel jagged_sum --arch sm90 --db {} --worst 0 2>&1", db), &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(bad.find("--worst must be >= 1, got 0"), std::string::npos) << bad;
}

TEST(CliEmit, WritesHeadersAndJsonThenLeavesThemAlone) {
  test::TempDir dir;
  test::write_manifest(dir / "configs", {"sm90"});
  const std::string args = fmt::format("emit --configs {} --out {} --json {} --report-json",
                                       dir / "configs", dir / "gen", dir / "json");
  int code = -1;
  auto first = nlohmann::json::parse(aot_runner(args, &code));
  ASSERT_EQ(code, 0);
  ASSERT_EQ(first.size(), 3u);
  for (const auto& f : first) EXPECT_TRUE(f["changed"].get<bool>()) << f;
  auto second = nlohmann::json::parse(aot_runner(args, &code));
  for (const auto& f : second) EXPECT_FALSE(f["changed"].get<bool>()) << f;
  EXPECT_TRUE(tuner::read_file_if_exists(dir / "json/heuristic_sm90.json"));
}

TEST(CliEmit, RefusesSimulatedTuningForTheCommittedHeaders) {
  int code = -1;
  const std::string out = aot_runner(
      fmt::format(
          "emit --allow-simulated --configs /nonexistent --out {}/heuristics/generated 2>&1",
          AOTUNE_SOURCE_DIR),
      &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("--out DIR"), std::string::npos) << out;
}

TEST(CliExplain, ShowsTheFallbackChainTreePathAndConfigForAnArchitecture) {
  test::TempDir dir;
  test::write_manifest(dir / "configs", {"sm90"});
  tuner::save_database(
      dir / "configs/sm90/jagged_sum.json",
      test::cost_model_database("jagged_sum", test::small_grid("jagged_sum"), "sm90", true));
  int code = -1;
  aot_runner(fmt::format("-q emit --configs {} --out {} --json {}", dir / "configs", dir / "gen",
                         dir / "json"),
             &code);
  ASSERT_EQ(code, 0);
  const std::string env = "AOTUNE_HEURISTIC_DIR=" + (dir / "json");
  const std::string out = aot_runner(
      "explain --kernel jagged_sum --shape 'B=1024,M=256,len=64,dtype=bf16' --arch sm120 --json",
      &code, env);
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["arch_requested"], "sm120");
  EXPECT_EQ(j["arch_used"], "sm90");
  EXPECT_EQ(j["fallback_chain"], nlohmann::json({"sm120", "sm100", "sm90"}));
  EXPECT_TRUE(j["tree_path"].is_array());
  EXPECT_TRUE(j["tree_path"].back()["leaf"].get<bool>());
  EXPECT_FALSE(j["config"]["id"].get<std::string>().empty());
  EXPECT_EQ(j["config"]["source"], "leaf");
  // An older device falls back to the default config.
  const auto old = nlohmann::json::parse(aot_runner(
      "explain --kernel jagged_sum --shape 'B=1024,M=256,len=64' --arch sm80 --json 2>/dev/null",
      &code, env));
  EXPECT_TRUE(old["arch_used"].is_null());
  EXPECT_EQ(old["config"]["id"], "block_row.t512.v1");
  EXPECT_EQ(old["config"]["source"], "default_config");
}

// One call's exact sizes instead of a length distribution: the peer benchmark's one_huge row.
TEST(CliExplain, TakesAJaggedCallsExactSizes) {
  int code = -1;
  const std::string out = aot_runner(
      "explain --kernel jagged_sum --shape 'B=2048,M=256,nnz=3376000,max_len=200000,dtype=bf16' "
      "--arch sm90 --json",
      &code);
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["features"]["nnz"], 3376000.0);
  EXPECT_EQ(j["features"]["max_len"], 200000.0);
  EXPECT_EQ(j["shape"]["max_len"], 200000);
  // Past the one-block row bound, whatever the tree: no config that holds a row in one block.
  const std::string id = j["config"]["id"].get<std::string>();
  EXPECT_TRUE(id.starts_with("nnz_split.")) << id;
  // Rows up to 512 KB at M = 16 (B=64 len<=8192 f32, where a held-out fit once picked
  // group_row.t128.v1.s2 at 73x): whatever the tree, the pick is not past its own row bound, and
  // every candidate listed as passed over is.
  const auto narrow = nlohmann::json::parse(aot_runner(
      "explain --kernel jagged_sum --shape 'B=64,M=16,nnz=262144,max_len=8192' --arch sm90 --json", &code));
  ASSERT_EQ(code, 0);
  std::vector<std::pair<std::string, double>> features;
  for (const auto& [name, value] : narrow["features"].items()) features.emplace_back(name, value.get<double>());
  EXPECT_FALSE(heuristics::config_past_row_bound("jagged_sum", narrow["config"]["id"].get<std::string>(), features));
  for (const auto& c : narrow["leaf_candidates"]) {
    const std::string cid = c["id"].get<std::string>();
    EXPECT_EQ(c["reason"].get<std::string>().starts_with("passed over"),
              c["legal"].get<bool>() && heuristics::config_past_row_bound("jagged_sum", cid, features))
        << cid << ": " << c["reason"];
  }
  // Session 57: one values row among 4691 (66x for nnz_split in a held-out fit). Whatever the
  // forest ranks, the pick is not nnz_split, and a listed nnz_split candidate names the rule.
  const auto empty = nlohmann::json::parse(aot_runner(
      "explain --kernel jagged_mean --shape 'B=4691,M=441,nnz=32,max_len=32,dtype=bf16' --arch sm90 --json",
      &code));
  ASSERT_EQ(code, 0);
  EXPECT_FALSE(empty["config"]["id"].get<std::string>().starts_with("nnz_split.")) << empty["config"];
  int named = 0;
  for (const auto& c : empty["leaf_candidates"]) {
    if (c["id"].get<std::string>().starts_with("nnz_split.") && c["legal"].get<bool>()) {
      ++named;
      EXPECT_NE(c["reason"].get<std::string>().find("most rows are empty (nnz=32 < B/2, B=4691)"), std::string::npos)
          << c["reason"];
    }
  }
  EXPECT_GE(named, 1) << "the shipped forest ranks no legal nnz_split config for this shape any more: pick another";
  // max_len left out: the mean row length rounded up, as the dispatch library takes it.
  const auto even = nlohmann::json::parse(aot_runner(
      "explain --kernel jagged_mean --shape 'B=100,M=64,nnz=1001' --arch sm90 --json", &code));
  EXPECT_EQ(code, 0);
  EXPECT_EQ(even["features"]["max_len"], 11.0);
}

// A jagged_mean call without feature counts (fc=none) is explained with jagged_sum's heuristic,
// as the dispatch library chooses for it: the same config as jagged_sum's for the same sizes.
TEST(CliExplain, AJaggedMeanCallWithoutFeatureCountsUsesJaggedSumsHeuristic) {
  const std::string sizes = "B=4096,M=4,nnz=1049175,max_len=943718";
  int code = -1;
  const auto none = nlohmann::json::parse(
      aot_runner("explain --kernel jagged_mean --shape '" + sizes + ",fc=none' --arch sm90 --json", &code));
  ASSERT_EQ(code, 0);
  const auto sum = nlohmann::json::parse(
      aot_runner("explain --kernel jagged_sum --shape '" + sizes + "' --arch sm90 --json", &code));
  ASSERT_EQ(code, 0);
  const auto given = nlohmann::json::parse(
      aot_runner("explain --kernel jagged_mean --shape '" + sizes + "' --arch sm90 --json", &code));
  ASSERT_EQ(code, 0);
  EXPECT_EQ(none["kernel"], "jagged_mean");
  EXPECT_EQ(none["heuristic_kernel"], "jagged_sum");
  EXPECT_EQ(none["shape"]["fc"], "none");
  EXPECT_EQ(none["config"]["id"], sum["config"]["id"]);
  EXPECT_EQ(none["leaf_candidates"], sum["leaf_candidates"]);
  EXPECT_EQ(given["heuristic_kernel"], "jagged_mean");
  EXPECT_EQ(given["shape"]["fc"], "given");
  const std::string text =
      aot_runner("explain --kernel jagged_mean --shape '" + sizes + ",fc=none' --arch sm90", &code);
  EXPECT_NE(text.find("jagged_mean without feature counts does jagged_sum's work"), std::string::npos) << text;
  const std::string bad =
      aot_runner("explain --kernel jagged_mean --shape '" + sizes + ",fc=maybe' --arch sm90 2>&1", &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(bad.find("fc=maybe"), std::string::npos) << bad;
}

TEST(CliExplain, RejectsGridKeysAndBadSizesInTheCallForm) {
  int code = -1;
  std::string out = aot_runner(
      "explain --kernel jagged_sum --shape 'B=4,M=8,nnz=10,len=2' --arch sm90 2>&1", &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("'len'"), std::string::npos) << out;
  out = aot_runner("explain --kernel jagged_sum --shape 'B=4,M=8,nnz=10,max_len=11' --arch sm90 2>&1",
                   &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("max_len=11"), std::string::npos) << out;
  // 300000 elements cannot fit in 1024 rows of at most 100.
  out = aot_runner("explain --kernel jagged_sum --shape 'B=1024,M=256,nnz=300000,max_len=100' --arch sm90 2>&1",
                   &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("max_len=100 is shorter than the mean row"), std::string::npos) << out;
  out = aot_runner("explain --kernel causal_trailing_mean --shape 'B=4,nnz=10' --arch sm90 2>&1", &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("no such form"), std::string::npos) << out;
}

// Without nnz or len a jagged shape has no row lengths: the message names both forms.
TEST(CliExplain, NamesBothFormsWhenAJaggedShapeHasNoRowLengths) {
  for (const char* shape : {"jagged_sum --shape 'B=4,M=8'", "jagged_dense_add --shape 'B=4,N=16'"}) {
    int code = -1;
    const std::string out = aot_runner(fmt::format("explain --kernel {} --arch sm90 2>&1", shape), &code);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("gives no row lengths"), std::string::npos) << out;
    EXPECT_NE(out.find("nnz=<elements>"), std::string::npos) << out;
    EXPECT_NE(out.find("len=<mean row length>"), std::string::npos) << out;
  }
}

// The text lists the forest's candidates up to the pick and at least ten, then how many more
// --json has: a forest ranks every config (jagged_sum's ships one of 62 configs; a single tree's
// leaf, as jagged_dense_add ships, ranks only its kept configs).
TEST(CliExplain, TextListsTheCandidatesUpToThePickAndCountsTheRest) {
  const std::string shape = "--kernel jagged_sum --shape 'B=1024,M=256,len=512,dtype=f32' --arch sm90";
  int code = -1;
  const auto j = nlohmann::json::parse(aot_runner("explain " + shape + " --json", &code));
  ASSERT_EQ(code, 0);
  const std::size_t total = j["leaf_candidates"].size();
  const auto rank = j["config"]["rank"].get<std::size_t>();
  ASSERT_GT(total, 10u);
  const std::string text = aot_runner("explain " + shape, &code);
  ASSERT_EQ(code, 0) << text;
  std::size_t lines = 0;
  for (std::size_t at = text.find("  candidate "); at != std::string::npos; at = text.find("  candidate ", at + 1)) ++lines;
  const std::size_t shown = std::max<std::size_t>(10, rank + 1);
  EXPECT_EQ(lines, std::min(total, shown)) << text;
  if (shown < total) {
    EXPECT_NE(text.find(fmt::format("... {} more candidates (--json lists them all)", total - shown)), std::string::npos)
        << text;
  }
  EXPECT_NE(text.find("config " + j["config"]["id"].get<std::string>()), std::string::npos) << text;
}

TEST(CliExplain, WithoutAGpuRequiresArch) {
  if (cuda_device_available()) GTEST_SKIP() << "a GPU is present: explain takes its architecture";
  int code = -1;
  const std::string out =
      aot_runner("explain --kernel jagged_sum --shape 'B=4,M=8,len=2' 2>&1", &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("--arch"), std::string::npos) << out;
}

TEST(CliExplain, RejectsAMalformedShape) {
  int code = -1;
  const std::string out =
      aot_runner("explain --kernel jagged_sum --shape 'B=4,M' --arch sm90 2>&1", &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("key=value"), std::string::npos) << out;
}

// from_chars reads nan and inf; JSON would print them as null, so the error named no value.
TEST(CliExplain, NamesANonFiniteSizeAsGiven) {
  for (const char* value : {"nan", "inf", "-inf"}) {
    int code = -1;
    const std::string out = aot_runner(
        fmt::format("explain --kernel jagged_sum --shape 'B=4,M=8,len={}' --arch sm90 2>&1", value), &code);
    EXPECT_EQ(code, 2) << value;
    EXPECT_NE(out.find(fmt::format("'len' must be an integer, got \"{}\"", value)), std::string::npos) << out;
  }
}

// from_chars reports a number past its type by ec, with ptr past the digits and the value left at
// 0: B=99999999999999999999 once read as B=0 ("nnz=4 exceeds B*N=0").
TEST(CliExplain, NamesASizePastInt64AsGivenNotAsZero) {
  int code = -1;
  std::string out = aot_runner(
      "explain --kernel jagged_dense_add --shape 'B=99999999999999999999,N=3,nnz=4' --arch sm90 2>&1", &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("B must be an integer, got 1e+20"), std::string::npos) << out;
  out = aot_runner("explain --kernel jagged_sum --shape 'B=4,M=8,len=1e999' --arch sm90 2>&1", &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("'len' must be an integer, got \"1e999\""), std::string::npos) << out;
}

}  // namespace
}  // namespace aotune
