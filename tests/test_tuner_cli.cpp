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
      {"--resume", "--force"}, {"--shard", "2/2"},  {"--devices", "0,0"},
      {"--effort", "max"},     {"--arch", "volta"}, {"--kernel", "no_such_kernel"}};
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
  EXPECT_EQ(db["protocol"]["effort"], "quick");
  for (const auto& s : db["shapes"]) EXPECT_EQ(s["search"], "quick");
}

}  // namespace
}  // namespace aotune::tuner_test
