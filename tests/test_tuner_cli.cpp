// `aot-runner tune` and `merge` from the outside: help, exit codes, shape listing, summaries.
#include <gtest/gtest.h>

#include "kernels/common/cuda_raii.h"
#include "tests/tuner_cli_support.h"

namespace aotune::tuner_test {
namespace {

TEST(TunerCli, HelpOfTuneAndMergeShowsAnExample) {
  TempDir dir;
  for (const char* cmd : {"tune", "merge"}) {
    const CliResult r = run_cli({cmd, "--help"}, dir.path());
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("Example"), std::string::npos) << cmd << ": " << r.out;
  }
}

TEST(TunerCli, WithoutAGpuTuneExitsWithTheNoGpuCodeAndPointsAtTheSimulatedDevice) {
  if (cuda_device_available()) GTEST_SKIP() << "a GPU is present: this would start a real sweep";
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(2));
  const CliResult r = run_cli({"tune", "-k", "jagged_sum", "--grid-dir", (dir / "grids").string(),
                               "--out-dir", (dir / "out").string()},
                              dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--device sim"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(TunerCli, ListShapesPrintsTheExpandedGridWithoutMeasuring) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(6));
  const CliResult r = run_cli({"tune", "--list-shapes", "--json", "-k", "jagged_sum", "--shard",
                               "1/2", "--grid-dir", (dir / "grids").string()},
                              dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto shapes = nlohmann::json::parse(r.out);
  ASSERT_EQ(shapes.size(), 3u);
  for (const auto& s : shapes) EXPECT_EQ(s["index"].get<int>() % 2, 1);
}

TEST(TunerCli, ContradictoryOrBadOptionsExitWithTheUsageCode) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(2));
  const std::vector<std::vector<std::string>> bad = {
      {"--resume", "--force"},   {"--shard", "2/2"},    {"--devices", "0,0"},
      {"--effort", "max"},       {"--arch", "volta"},   {"--kernel", "no_such_kernel"},
      {"--loser-factor", "0.5"}, {"--loser-reps", "1"}, {"--loser-min-us", "-1"},
      {"--unsteady", "-0.1"},    {"--unsteady", "nan"}};
  for (const auto& extra : bad) {
    const CliResult r = run_cli(sim_tune_args(dir.path(), "out", extra), dir.path());
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.err;
  }
  const CliResult missing = run_cli(
      {"tune", "--device", "sim", "-k", "jagged_sum", "--grid-dir", (dir / "nogrids").string()},
      dir.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--grid-dir"), std::string::npos) << missing.err;
}

TEST(TunerCli, TheJsonSummaryCountsCellsAndNamesTheOutput) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  const CliResult r =
      run_cli(sim_tune_args(dir.path(), "out", {"--json", "--effort", "quick"}), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["device"]["simulated"].get<bool>());
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["output"], (dir / "out/sm90/jagged_sum.json").string());
  const auto& cells = k["cells"];
  const auto db = nlohmann::json::parse(read_text(dir / "out/sm90/jagged_sum.json"));
  ASSERT_GE(db["configs"].size(), 24u);
  EXPECT_EQ(cells["ok"].get<int>() + cells["illegal"].get<int>() + cells["skipped"].get<int>(),
            3 * static_cast<int>(db["configs"].size()));  // every (shape, config) cell once
  EXPECT_GT(cells["skipped"].get<int>(), 0) << "quick effort should leave configs unmeasured";
  // Each worker says where its time went (inputs, measuring, saving).
  EXPECT_NE(r.err.find("3 shapes: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("s waiting for inputs"), std::string::npos) << r.err;
  EXPECT_EQ(db["protocol"]["effort"], "quick");
  for (const auto& s : db["shapes"]) EXPECT_EQ(s["search"], "quick");
}

// Clear losers (over --loser-factor x the shape's fastest so far; 3 by default, 1.1 here since the
// simulated tiny shapes are launch-bound, and cut from the first shape on: --loser-min-us 0) get 2
// repetitions; the protocol says so, and
// --loser-factor 0 times every config in full.
TEST(TunerCli, ClearLosersGetFewRepetitionsUnlessTurnedOff) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  ASSERT_EQ(
      run_cli(sim_tune_args(dir.path(), "cut", {"--loser-factor", "1.1", "--loser-min-us", "0"}),
              dir.path())
          .exit_code,
      0);
  ASSERT_EQ(
      run_cli(sim_tune_args(dir.path(), "full", {"--loser-factor", "0"}), dir.path()).exit_code, 0);
  const auto cut = nlohmann::json::parse(read_text(dir / "cut/sm90/jagged_sum.json"));
  const auto full = nlohmann::json::parse(read_text(dir / "full/sm90/jagged_sum.json"));
  EXPECT_EQ(cut["protocol"]["loser_factor"], 1.1);
  EXPECT_EQ(cut["protocol"]["loser_reps"], 2);
  EXPECT_EQ(cut["protocol"]["loser_min_us"], 0.0);
  EXPECT_FALSE(full["protocol"].contains("loser_factor"));
  int losers = 0;
  for (std::size_t i = 0; i < cut["shapes"].size(); ++i) {
    const auto& a = cut["shapes"][i];
    const auto& b = full["shapes"][i];
    EXPECT_EQ(a["best"], b["best"]) << "cutting losers short must not change the winner";
    double best = 1e300;
    for (const auto& c : b["cells"]) {
      if (c["status"] == "ok") best = std::min(best, c["median_us"].get<double>());
    }
    for (std::size_t c = 0; c < a["cells"].size(); ++c) {
      if (a["cells"][c]["status"] != "ok") continue;
      EXPECT_EQ(a["cells"][c]["median_us"], b["cells"][c]["median_us"]);
      EXPECT_GE(b["cells"][c]["reps"].get<int>(), 5);
      if (a["cells"][c]["reps"] == 2) {
        ++losers;
        EXPECT_GT(a["cells"][c]["median_us"].get<double>(), 1.1 * best) << "a near winner was cut";
      }
    }
  }
  EXPECT_GT(losers, 0) << "the simulated space has configs over 1.1x slower than the best";
}

// --near-tie and --tie-candidates: a bad value is a usage error that names it, before anything is
// written.
TEST(TunerCli, ABadNearTieOrTieCandidatesIsAUsageErrorNamingTheValue) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(2));
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--near-tie", "1.5"}, "--near-tie 1.5"},
      {{"--near-tie", "-0.1"}, "--near-tie -0.1"},
      {{"--tie-candidates", "0"}, "--tie-candidates 0"},
      {{"--tie-candidates", "-3"}, "--tie-candidates -3"}};
  for (const auto& [extra, named] : bad) {
    const CliResult r = run_cli(sim_tune_args(dir.path(), "out", extra), dir.path());
    EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra[1] << ": " << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "out"));
  const CliResult help = run_cli({"tune", "--help"}, dir.path());
  EXPECT_NE(help.out.find("--near-tie"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--tie-candidates"), std::string::npos) << help.out;
}

// The near-tie band given is the database's protocol (so a sweep under another band cannot resume
// it), and so is a --tie-candidates other than the default (written only then, so databases tuned
// before the option existed keep their protocol block): otherwise the block is the default one.
TEST(TunerCli, TheNearTieGivenIsRecordedInTheProtocol) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(2));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "default"), dir.path()).exit_code, 0);
  const CliResult wide = run_cli(
      sim_tune_args(dir.path(), "wide", {"--near-tie", "0.1", "--tie-candidates", "6"}), dir.path());
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const auto def = nlohmann::ordered_json::parse(read_text(dir / "default/sm90/jagged_sum.json"));
  const auto got = nlohmann::ordered_json::parse(read_text(dir / "wide/sm90/jagged_sum.json"));
  EXPECT_EQ(def["protocol"]["near_tie"], 0.02);
  EXPECT_EQ(got["protocol"]["near_tie"], 0.1);
  EXPECT_FALSE(def["protocol"].contains("max_tie_candidates")) << "the default is not written";
  auto expected = nlohmann::ordered_json::object();
  for (const auto& [key, value] : def["protocol"].items()) {
    expected[key] = key == "near_tie" ? nlohmann::ordered_json(0.1) : value;
    if (key == "near_tie") expected["max_tie_candidates"] = 6;
  }
  EXPECT_EQ(got["protocol"], expected) << "near_tie and max_tie_candidates differ, in their place";
  EXPECT_EQ(got["shapes"].size(), 2u);

  const CliResult other = run_cli(sim_tune_args(dir.path(), "wide"), dir.path());
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("timing protocol: near_tie 0.1 vs 0.02, max_tie_candidates 6 vs absent"),
            std::string::npos)
      << "names only the fields that differ: " << other.err;
}

// Inputs are built before each shape unless --overlap asks for the second thread (session 47: its
// upload slowed the cells timed meanwhile); the protocol records which, so the two never mix.
TEST(TunerCli, InputsAreBuiltBeforeEachShapeUnlessOverlapIsAsked) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(2));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "serial"), dir.path()).exit_code, 0);
  const CliResult overlapped =
      run_cli(sim_tune_args(dir.path(), "overlapped", {"--overlap"}), dir.path());
  ASSERT_EQ(overlapped.exit_code, 0) << overlapped.err;
  const CliResult explicit_serial =
      run_cli(sim_tune_args(dir.path(), "explicit", {"--no-overlap"}), dir.path());
  ASSERT_EQ(explicit_serial.exit_code, 0) << explicit_serial.err;
  const auto serial = nlohmann::ordered_json::parse(read_text(dir / "serial/sm90/jagged_sum.json"));
  const auto over =
      nlohmann::ordered_json::parse(read_text(dir / "overlapped/sm90/jagged_sum.json"));
  const auto expl = nlohmann::ordered_json::parse(read_text(dir / "explicit/sm90/jagged_sum.json"));
  EXPECT_EQ(serial["protocol"]["inputs"], "built before each shape, nothing else running");
  EXPECT_EQ(over["protocol"]["inputs"],
            "the next shape's inputs are built on a second thread while this one is timed");
  EXPECT_EQ(expl["protocol"], serial["protocol"]) << "--no-overlap is the default";

  const CliResult mixed =
      run_cli(sim_tune_args(dir.path(), "overlapped", {"--resume"}), dir.path());
  EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
  EXPECT_NE(mixed.err.find("timing protocol: inputs"), std::string::npos) << mixed.err;
  EXPECT_NE(mixed.err.find("it was tuned with --overlap: pass --overlap to continue it"),
            std::string::npos)
      << mixed.err;
  const CliResult continued =
      run_cli(sim_tune_args(dir.path(), "overlapped", {"--resume", "--overlap"}), dir.path());
  EXPECT_EQ(continued.exit_code, 0) << continued.err;
  const CliResult help = run_cli({"tune", "--help"}, dir.path());
  EXPECT_NE(help.out.find("--overlap"), std::string::npos) << help.out;
}

// Adding shapes to a grid keeps what was measured: --resume measures only the new shapes, and the
// database equals a straight sweep of the grown grid. Removing a measured shape is refused.
TEST(TunerCli, AGrownGridResumesOnlyTheNewShapesAndAShrunkOneIsRefused) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "out", {}), dir.path()).exit_code, 0);
  write_grid(dir / "grids", small_jagged_sum_grid(5));
  const CliResult plain = run_cli(sim_tune_args(dir.path(), "out", {}), dir.path());
  EXPECT_EQ(plain.exit_code, 2) << "an incomplete database needs --resume";
  EXPECT_NE(plain.err.find("3 of 5 shapes measured"), std::string::npos) << plain.err;
  const CliResult grown =
      run_cli(sim_tune_args(dir.path(), "out", {"--resume", "--json"}), dir.path());
  ASSERT_EQ(grown.exit_code, 0) << grown.err;
  EXPECT_NE(grown.err.find("the grid grew to 5 shapes"), std::string::npos) << grown.err;
  EXPECT_EQ(nlohmann::json::parse(grown.out)["kernels"][0]["measured_this_run"], 2);
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "straight", {}), dir.path()).exit_code, 0);
  const auto resumed = nlohmann::json::parse(read_text(dir / "out/sm90/jagged_sum.json"));
  const auto straight = nlohmann::json::parse(read_text(dir / "straight/sm90/jagged_sum.json"));
  EXPECT_EQ(resumed["grid"], straight["grid"]);
  EXPECT_EQ(resumed["shapes"], straight["shapes"]);

  const std::string before = read_text(dir / "out/sm90/jagged_sum.json");
  write_grid(dir / "grids", small_jagged_sum_grid(4));
  const CliResult shrunk = run_cli(sim_tune_args(dir.path(), "out", {"--resume"}), dir.path());
  EXPECT_EQ(shrunk.exit_code, 2);
  EXPECT_NE(shrunk.err.find("no longer in the grid"), std::string::npos) << shrunk.err;
  EXPECT_NE(shrunk.err.find("--force"), std::string::npos) << shrunk.err;
  EXPECT_EQ(read_text(dir / "out/sm90/jagged_sum.json"), before) << "a refused resume wrote";
}

}  // namespace
}  // namespace aotune::tuner_test
