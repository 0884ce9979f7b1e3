// `aot-runner devices`, `run` and `bench` as a user runs them: their behaviour without a GPU (exit 3
// with a message that says what to do), argument errors (exit 2 before any GPU is looked for), the
// fallback chains, and bench end to end on the simulated device and on the committed database.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cuda_raii.h"
#include "tests/tuner_cli_support.h"

namespace aotune {
namespace {

using tuner_test::CliResult;
using tuner_test::run_cli;
using tuner_test::TempDir;
namespace fs = std::filesystem;

std::string source(const std::string& rel) { return std::string(AOTUNE_SOURCE_DIR) + "/" + rel; }

bool has_gpu() {
  static const bool gpu = cuda_device_available();
  return gpu;
}

TEST(CliDevices, WithoutAGpuExitsWithTheNoGpuCodeAndStillPrintsAnEmptyJsonList) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present; see DevicesListsEveryGpuWithItsFallbackChain";
  TempDir tmp;
  const CliResult text = run_cli({"devices"}, tmp.path());
  EXPECT_EQ(text.exit_code, 3) << text.err;
  EXPECT_NE(text.err.find("no usable CUDA device"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("--arch"), std::string::npos) << "the message says what to do next";
  const CliResult json = run_cli({"devices", "--json"}, tmp.path());
  EXPECT_EQ(json.exit_code, 3);
  const auto j = nlohmann::json::parse(json.out);  // logs went to stderr: stdout parses
  EXPECT_TRUE(j["devices"].empty());
  EXPECT_TRUE(j["error"].is_string());
}

TEST(CliDevices, DevicesListsEveryGpuWithItsFallbackChain) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device";
  TempDir tmp;
  const CliResult r = run_cli({"devices", "--json"}, tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["devices"].empty());
  for (const auto& d : j["devices"]) {
    EXPECT_GT(d["sm_count"].get<int>(), 0);
    EXPECT_EQ(d["kernels"][0]["fallback_chain"][0], d["arch"]);
  }
}

TEST(CliDevices, AHypotheticalNewerGpuFallsBackToSm90AndAnOlderOneGetsTheDefault) {
  TempDir tmp;
  const CliResult r = run_cli({"devices", "--arch", "sm120,sm75", "--json"}, tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["devices"].size(), 2u);
  const auto& newer = j["devices"][0]["kernels"][0];
  EXPECT_EQ(newer["fallback_chain"].front(), "sm120");
  EXPECT_EQ(newer["fallback_chain"].back(), "sm90");
  EXPECT_EQ(newer["uses"], "sm90");
  const auto& older = j["devices"][1]["kernels"][0];
  EXPECT_TRUE(older["uses"].is_null()) << older;
  const CliResult bad = run_cli({"devices", "--arch", "hopper"}, tmp.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("'hopper' is not an architecture name"), std::string::npos) << bad.err;
}

TEST(CliRun, BadArgumentsAreUsageErrorsEvenWithoutAGpu) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases = {
      {"run", "--kernel", "jagged_max", "--shape", "B=4,M=4,len=4"},
      {"run", "--kernel", "jagged_sum", "--shape", "B=4,M"},
      {"run", "--kernel", "jagged_sum", "--shape", "B=4,len=4"},  // M missing
      {"run", "--kernel", "jagged_sum", "--shape", "B=4,M=4,len=4", "--config", "no.such.config"},
      {"run", "--kernel", "jagged_sum", "--shape", "B=4,M=4,len=4", "--min-reps", "0"},
  };
  for (const auto& args : cases) {
    const CliResult r = run_cli(args, tmp.path());
    EXPECT_EQ(r.exit_code, 2) << args[4] << ": " << r.err;
    EXPECT_FALSE(r.err.empty());
  }
}

TEST(CliRun, WithoutAGpuExitsWithTheNoGpuCodeAndPointsAtExplain) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  TempDir tmp;
  const CliResult r = run_cli(
      {"run", "--kernel", "jagged_sum", "--shape", "B=1024,M=256,len=512,dist=powerlaw", "--json"},
      tmp.path());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("aot-runner explain --kernel jagged_sum"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing on stdout when nothing ran: " << r.out;
}

TEST(CliRun, OnAGpuChecksTimesAndReportsThePerCallTimeBackToBack) {
  if (!has_gpu()) GTEST_SKIP() << "no GPU";
  TempDir tmp;
  const CliResult r = run_cli({"run", "--kernel", "jagged_sum", "--shape", "B=32,M=64,len=16", "--calls", "20", "--json"},
                              tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["check"]["ok"].get<bool>());
  EXPECT_GT(j["timing"]["median_us"].get<double>(), 0.0);
  const auto& b = j["back_to_back"];
  EXPECT_EQ(b["calls"], 20);
  EXPECT_EQ(b["batches"], 11);
  EXPECT_GT(b["per_call_us"].get<double>(), 0.0);
  EXPECT_LE(b["p10_us"].get<double>(), b["per_call_us"].get<double>());
}

// A small jagged_sum grid unlike the tuning grid.
nlohmann::ordered_json small_bench_grid() {
  return {{"kernel", "jagged_sum"},
          {"generators",
           {{{"B", {3, 200, 5000}}, {"M", {24, 300}}, {"len", {10}}, {"dtype", "f16"}, {"seed", 9}}}}};
}

TEST(CliBench, OnTheSimulatedDeviceItMeasuresTheGridAndScoresTheHeuristic) {
  TempDir tmp;
  tuner_test::write_text(tmp / "grid.json", small_bench_grid().dump(2));
  const std::vector<std::string> args = {"bench",    "--grid",  (tmp / "grid.json").string(),
                                         "--device", "sim",     "--out-dir",
                                         (tmp / "bench").string(), "--csv",
                                         (tmp / "bench.csv").string(), "--json"};
  const CliResult r = run_cli(args, tmp.path(), {{"AOTUNE_FSYNC", "0"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["shapes"], 6);
  EXPECT_TRUE(j["simulated"].get<bool>());
  EXPECT_EQ(j["heuristic_arch"], "sm90");
  for (const auto& row : j["rows"]) {
    // Every legal config was measured, so the oracle is the floor of every slowdown.
    EXPECT_EQ(row["heuristic_cell"], "measured");
    EXPECT_GE(row["heuristic_slowdown"].get<double>(), 1.0);
    EXPECT_GE(row["default_slowdown"].get<double>(), 1.0);
  }
  EXPECT_GE(j["default_config"]["geomean_slowdown"].get<double>(),
            j["best_single_config"]["geomean_slowdown"].get<double>());
  const std::string csv = tuner_test::read_text(tmp / "bench.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7) << csv;  // header + 6 shapes
  EXPECT_NE(csv.find("shape.B"), std::string::npos);

  // A second run reuses the measurements: same report.
  const CliResult again = run_cli(args, tmp.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out), j);
  EXPECT_NE(again.err.find("nothing to do"), std::string::npos) << again.err;

  if (std::system("python3 -c 'import csv' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 missing: plot_bench.py not tried";
  }
  const std::string plot = "python3 " + source("scripts/plot_bench.py") + " " +
                           (tmp / "bench.csv").string() + " -o " + (tmp / "bench.svg").string() +
                           " >/dev/null";
  ASSERT_EQ(std::system(plot.c_str()), 0);
  const std::string svg = tuner_test::read_text(tmp / "bench.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("SIMULATED"), std::string::npos);
}

// A pick whose cell failed its check (the seed-2 causal shape of PERF.md Session 49) makes the
// heuristic's summary inf; the report names the row, the database's reason and the shape's best,
// and scores the heuristic over the shapes where its pick ran as well.
TEST(CliBench, APickThatFailedItsCheckIsNamedWithItsReasonAndTheRestStillScored) {
  TempDir tmp;
  tuner_test::write_text(tmp / "grid.json", small_bench_grid().dump(2));
  auto bench = [&](const std::string& out, const std::map<std::string, std::string>& env,
                   bool json) {
    std::vector<std::string> args = {"bench", "--grid",    (tmp / "grid.json").string(), "--device",
                                     "sim",   "--out-dir", (tmp / out).string()};
    if (json) args.push_back("--json");
    return run_cli(args, tmp.path(), env);
  };
  const CliResult first = bench("a", {{"AOTUNE_FSYNC", "0"}}, true);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto j = nlohmann::json::parse(first.out);
  EXPECT_EQ(j["heuristic"]["misses"], 0);
  EXPECT_EQ(j["heuristic_where_it_ran"]["shapes"], 6);
  const std::string picked = j["rows"][0]["heuristic_config"].get<std::string>();

  const CliResult failed = bench("b", {{"AOTUNE_FSYNC", "0"}, {"AOTUNE_SIM_FAIL", picked}}, true);
  ASSERT_EQ(failed.exit_code, 0) << failed.err;
  const auto f = nlohmann::json::parse(failed.out);
  const int misses = f["heuristic"]["misses"].get<int>();
  ASSERT_GE(misses, 1);
  EXPECT_TRUE(f["heuristic"]["geomean_slowdown"].is_null());
  EXPECT_EQ(f["heuristic_where_it_ran"]["shapes"], 6 - misses);
  EXPECT_GE(f["heuristic_where_it_ran"]["geomean_slowdown"].get<double>(), 1.0);
  const auto& row = f["rows"][0];
  EXPECT_EQ(row["heuristic_config"], picked);
  EXPECT_EQ(row["heuristic_cell"], "broken");
  EXPECT_NE(row["heuristic_reason"].get<std::string>().find("AOTUNE_SIM_FAIL"), std::string::npos)
      << row;

  const CliResult text = bench("b", {}, false);  // measured already: the report alone
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("! index 0: the heuristic's " + picked + " is a failed cell there"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("AOTUNE_SIM_FAIL"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("shapes it ran on"), std::string::npos) << text.out;
}

// bench measures under the near-tie band given (recorded in its database's protocol); a bad value
// is a usage error naming it, and with --db neither option applies.
TEST(CliBench, NearTieOptionsReachTheMeasurementAndBadOnesAreUsageErrors) {
  TempDir tmp;
  tuner_test::write_text(tmp / "grid.json", small_bench_grid().dump(2));
  const std::string grid = (tmp / "grid.json").string();
  const CliResult r = run_cli({"bench", "--grid", grid, "--device", "sim", "--out-dir",
                               (tmp / "bench").string(), "--near-tie", "0.1", "--tie-candidates",
                               "6", "--json"},
                              tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["shapes"], 6);
  const auto db =
      nlohmann::json::parse(tuner_test::read_text(tmp / "bench/sm90/jagged_sum.json"));
  EXPECT_EQ(db["protocol"]["near_tie"], 0.1);
  EXPECT_EQ(db["protocol"]["max_tie_candidates"], 6);

  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
           {"--near-tie", "2"}, {"--tie-candidates", "0"}}) {
    const CliResult bad = run_cli({"bench", "--grid", grid, "--device", "sim", "--out-dir",
                                   (tmp / "bad").string(), option, value},
                                  tmp.path());
    EXPECT_EQ(bad.exit_code, 2) << option << ": " << bad.err;
    EXPECT_NE(bad.err.find(option + " " + value), std::string::npos) << bad.err;
  }
  EXPECT_FALSE(fs::exists(tmp / "bad"));
  const CliResult with_db = run_cli({"bench", "--grid", source("configs/grids/jagged_sum.json"),
                                     "--db", source("configs/sm90/jagged_sum.json"), "--near-tie",
                                     "0.1"},
                                    tmp.path());
  EXPECT_EQ(with_db.exit_code, 2) << with_db.err;
  EXPECT_NE(with_db.err.find("--near-tie"), std::string::npos) << with_db.err;
}

TEST(CliBench, TheCommittedDatabaseScoresTheHeuristicWithoutAGpu) {
  TempDir tmp;
  const CliResult r = run_cli({"bench", "--grid", source("configs/grids/jagged_sum.json"), "--db",
                               source("configs/sm90/jagged_sum.json"), "--json"},
                              tmp.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["simulated"].get<bool>());
  EXPECT_GT(j["shapes"].get<int>(), 100);
  // On the shapes it was fitted on, the tree must beat one config for every shape.
  EXPECT_LT(j["heuristic"]["geomean_slowdown"].get<double>(),
            j["best_single_config"]["geomean_slowdown"].get<double>());
}

TEST(CliBench, ADatabaseTunedOverAnotherConfigSpaceIsAUsageErrorNamingTheFirstDifference) {
  TempDir tmp;
  // The committed database with its first two configs' names swapped: as if tuned by a build whose
  // config space lists them the other way round. Its cells can no longer be read by this build's
  // config indices, which is all the heuristic's pick is.
  nlohmann::json db;
  {
    std::ifstream in(source("configs/sm90/jagged_dense_add.json"));
    in >> db;
  }
  std::swap(db["configs"][0], db["configs"][1]);
  const std::string first = db["configs"][0]["id"].get<std::string>();
  const std::string second = db["configs"][1]["id"].get<std::string>();
  const std::string path = (tmp / "reordered.json").string();
  std::ofstream(path) << db.dump();
  const CliResult r = run_cli({"bench", "--grid", source("configs/grids/jagged_dense_add.json"), "--db", path},
                              tmp.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("config 0: " + first + " in the database, " + second + " here"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("aot-runner tune -k jagged_dense_add --force"), std::string::npos) << r.err;
}

TEST(CliBench, ADatabaseLackingGridShapesOrABadGridIsAUsageError) {
  TempDir tmp;
  const CliResult lacking =
      run_cli({"bench", "--grid", source("configs/grids-bench/jagged_sum.json"), "--db",
               source("configs/sm90/jagged_sum.json")},
              tmp.path());
  EXPECT_EQ(lacking.exit_code, 2) << lacking.err;
  EXPECT_NE(lacking.err.find("drop --db to measure them"), std::string::npos) << lacking.err;
  const CliResult missing = run_cli({"bench", "--grid", (tmp / "none.json").string()}, tmp.path());
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(CliBench, EveryBenchGridExpandsToAFewDozenShapesNotInTheTuningGrid) {
  TempDir tmp;
  for (const char* kernel : {"jagged_sum", "jagged_mean", "jagged_dense_add", "causal_trailing_mean"}) {
    auto keys = [&](const std::string& dir) {
      const CliResult r = run_cli(
          {"tune", "--list-shapes", "--json", "-k", kernel, "--grid-dir", source(dir)}, tmp.path());
      EXPECT_EQ(r.exit_code, 0) << kernel << ": " << r.err;
      std::set<std::string> out;
      for (const auto& s : nlohmann::json::parse(r.out)) out.insert(s["key"].get<std::string>());
      return out;
    };
    const std::set<std::string> bench = keys("configs/grids-bench");
    const std::set<std::string> tuned = keys("configs/grids");
    EXPECT_GE(bench.size(), 20u) << kernel;
    EXPECT_LE(bench.size(), 80u) << kernel;
    for (const std::string& k : bench) EXPECT_EQ(tuned.count(k), 0u) << kernel << " " << k;
  }
}

}  // namespace
}  // namespace aotune
