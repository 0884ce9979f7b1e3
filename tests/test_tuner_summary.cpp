// `tune --json` reports the wall time of each kernel's grid, not only of the whole sweep, so the
// cost of one grid is known from the summary alone.
#include <gtest/gtest.h>

#include "tests/tuner_cli_support.h"

namespace aotune::tuner_test {
namespace {

TEST(TunerSummary, ReportsEachKernelsWallTimeWithinTheSweepsWallTime) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  // Every simulated cell sleeps 2 ms: 3 shapes x the legal configs take well over 50 ms.
  const CliResult r = run_cli(sim_tune_args(dir.path(), "out", {"--json"}), dir.path(),
                              {{"AOTUNE_SIM_DELAY_MS", "2"}, {"AOTUNE_FSYNC", "0"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  ASSERT_EQ(summary["kernels"].size(), 1u);
  const auto& k = summary["kernels"][0];
  ASSERT_TRUE(k.contains("wall_seconds")) << k.dump();
  const double kernel_wall = k["wall_seconds"].get<double>();
  EXPECT_GE(kernel_wall, 0.05);
  EXPECT_LE(kernel_wall, summary["wall_seconds"].get<double>());
  EXPECT_NE(r.err.find("this run, "), std::string::npos) << r.err;  // the log line names it too
}

}  // namespace
}  // namespace aotune::tuner_test
