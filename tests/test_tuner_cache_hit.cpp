// `tune --assert-cache-hit` measures nothing: it passes on a complete, current database and fails
// listing every shape that is missing or was tuned on another kernel source.
#include <gtest/gtest.h>

#include <set>

#include "tests/tuner_cli_support.h"

namespace aotune::tuner_test {
namespace {

std::set<std::string> missing_keys(const std::string& json_out) {
  std::set<std::string> keys;
  const auto j = nlohmann::json::parse(json_out);
  for (const auto& m : j["missing"]) keys.insert(m["shape"].get<std::string>());
  return keys;
}

std::vector<std::string> grid_keys(const TempDir& dir) {
  const CliResult r = run_cli({"tune", "--list-shapes", "--json", "-k", "jagged_sum", "--grid-dir",
                               (dir / "grids").string()},
                              dir.path());
  std::vector<std::string> keys;
  for (const auto& s : nlohmann::json::parse(r.out)) keys.push_back(s["key"].get<std::string>());
  return keys;
}

TEST(TunerCacheHit, PassesOnACompleteDatabaseAndNamesEveryMissingShapeOtherwise) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "out"), dir.path()).exit_code, 0);
  const fs::path db = dir / "out/sm90/jagged_sum.json";
  const std::string before = read_text(db);

  const CliResult hit =
      run_cli(sim_tune_args(dir.path(), "out", {"--assert-cache-hit", "--json"}), dir.path());
  EXPECT_EQ(hit.exit_code, 0) << hit.err;
  EXPECT_TRUE(nlohmann::json::parse(hit.out)["cache_hit"].get<bool>());

  // The grid grows by two shapes: exactly those two are named, and nothing is measured.
  write_grid(dir / "grids", small_jagged_sum_grid(5));
  const auto all = grid_keys(dir);
  ASSERT_EQ(all.size(), 5u);
  const CliResult miss =
      run_cli(sim_tune_args(dir.path(), "out", {"--assert-cache-hit", "--json"}), dir.path());
  EXPECT_EQ(miss.exit_code, 1) << miss.err;
  EXPECT_EQ(missing_keys(miss.out), (std::set<std::string>{all[3], all[4]})) << miss.out;
  EXPECT_EQ(read_text(db), before);

  // The plain-text form names kernel, architecture and shape on each line.
  const CliResult text =
      run_cli(sim_tune_args(dir.path(), "out", {"--assert-cache-hit"}), dir.path());
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("MISSING jagged_sum sm90 " + all[4]), std::string::npos) << text.out;
  EXPECT_NE(text.err.find("2 shape(s)"), std::string::npos) << text.err;

  // The environment variable does the same as the flag.
  const CliResult env = run_cli(sim_tune_args(dir.path(), "out", {"--json"}), dir.path(),
                                {{"AOTUNE_ASSERT_CACHE_HIT", "1"}});
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_EQ(missing_keys(env.out).size(), 2u);
  EXPECT_EQ(read_text(db), before);
}

// A shape a budget cut to a quick search is not finished tuning: the check names it (CI would
// otherwise accept a database whose protocol says effort full but whose shapes are not).
TEST(TunerCacheHit, NamesAShapeABudgetCutToQuick) {
  TempDir dir;
  std::string edited;
  tuned_then_edited_database(
      dir.path(), 3, [](auto& j) { j["shapes"][1]["search"] = "quick"; }, &edited);
  const CliResult r =
      run_cli(sim_tune_args(dir.path(), "out", {"--assert-cache-hit", "--json"}), dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto missing = nlohmann::json::parse(r.out)["missing"];
  ASSERT_EQ(missing.size(), 1u) << r.out;
  EXPECT_EQ(missing[0]["shape"], nlohmann::json::parse(edited)["shapes"][1]["key"]);
  EXPECT_NE(missing[0]["reason"].get<std::string>().find("searched quick under a budget"),
            std::string::npos)
      << missing[0];
}

TEST(TunerCacheHit, FailsForEveryShapeAfterAKernelSourceChange) {
  TempDir dir;
  std::string edited;
  tuned_then_edited_database(
      dir.path(), 3,
      [](auto& j) {
        j["source_hash"] = "00000000000000000000000000000000000000000000000000000000deadbeef";  // other code
      },
      &edited);
  const CliResult r =
      run_cli(sim_tune_args(dir.path(), "out", {"--assert-cache-hit", "--json"}), dir.path());
  EXPECT_EQ(r.exit_code, 1);
  const auto missing = nlohmann::json::parse(r.out)["missing"];
  ASSERT_EQ(missing.size(), 3u);
  EXPECT_NE(missing[0]["reason"].get<std::string>().find("kernel source"), std::string::npos)
      << missing[0];
}

TEST(TunerCacheHit, NeedsNoGpuWithArchAndRejectsSimulatedResultsAsTuning) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(2));
  // No database at all: every shape is missing, no GPU touched (--arch without --device sim).
  const std::vector<std::string> gpu_check = {"tune",
                                              "-k",
                                              "jagged_sum",
                                              "--grid-dir",
                                              (dir / "grids").string(),
                                              "--out-dir",
                                              (dir / "out").string(),
                                              "--arch",
                                              "sm90",
                                              "--assert-cache-hit",
                                              "--json"};
  const CliResult none = run_cli(gpu_check, dir.path());
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_EQ(missing_keys(none.out).size(), 2u);
  // A simulated database is not tuning for a real architecture...
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "out"), dir.path()).exit_code, 0);
  const CliResult sim = run_cli(gpu_check, dir.path());
  EXPECT_EQ(sim.exit_code, 1);
  EXPECT_NE(sim.out.find("simulated"), std::string::npos) << sim.out;
  // ...and another architecture has no database.
  const CliResult other = run_cli(
      sim_tune_args(dir.path(), "out", {"--arch", "sm80", "--assert-cache-hit"}), dir.path());
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.out.find("MISSING jagged_sum sm80"), std::string::npos) << other.out;
}

}  // namespace
}  // namespace aotune::tuner_test
