// A config that kills its worker (a signal, or a lost CUDA context) cannot take the sweep down: its
// cell is recorded as crashed, the worker restarts, and the rest is measured. Wrong results are
// recorded as failed and never win. Restarts are bounded.
#include <gtest/gtest.h>

#include "tests/tuner_cli_support.h"

namespace aotune::tuner_test {
namespace {

// Index of config `id` in the database's config list.
std::size_t config_index(const nlohmann::json& db, const std::string& id) {
  for (std::size_t i = 0; i < db["configs"].size(); ++i) {
    if (db["configs"][i]["id"] == id) return i;
  }
  ADD_FAILURE() << "no config " << id;
  return 0;
}

void expect_column(const nlohmann::json& db, const std::string& id, const std::string& status,
                   const std::string& reason_part) {
  const std::size_t c = config_index(db, id);
  for (const auto& s : db["shapes"]) {
    const auto& cell = s["cells"][c];
    EXPECT_EQ(cell["status"], status) << s["key"];
    EXPECT_NE(cell.value("reason", std::string()).find(reason_part), std::string::npos) << cell;
    EXPECT_NE(s["best"], c);
  }
}

TEST(TunerCrash, AConfigThatKillsTheWorkerIsRecordedAsCrashedAndTheSweepGoesOn) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  const CliResult r = run_cli(sim_tune_args(dir.path(), "out", {"--json"}), dir.path(),
                              {{"AOTUNE_SIM_CRASH", "block_row.t256.v2"},
                               {"AOTUNE_SIM_LOSE_CONTEXT", "group_row.t128.v1.s1"},
                               {"AOTUNE_SIM_FAIL", "block_row.t128.v1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["restarts"], 6);  // two crashing configs on each of three shapes
  EXPECT_TRUE(summary["complete"].get<bool>());
  const fs::path path = dir / "out/sm90/jagged_sum.json";
  const auto db = nlohmann::json::parse(read_text(path));
  ASSERT_EQ(db["shapes"].size(), 3u);
  expect_column(db, "block_row.t256.v2", "crashed", "the worker process died (signal 11");
  expect_column(db, "group_row.t128.v1.s1", "crashed",
                "crashed the CUDA context: simulated sticky error");
  expect_column(db, "block_row.t128.v1", "failed", "wrong result");
  for (const auto& s : db["shapes"]) EXPECT_FALSE(s["best"].is_null());
  // The crash list is gone once the database is complete; a resume has nothing to do.
  EXPECT_FALSE(fs::exists(path.string() + ".crashes"));
  EXPECT_FALSE(fs::exists(path.string() + ".journal"));
}

TEST(TunerCrash, RestartsAreBoundedAndTheResultsSoFarAreKept) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(4));
  const std::map<std::string, std::string> env = {{"AOTUNE_SIM_CRASH", "block_row.t256.v2"}};
  const CliResult r =
      run_cli(sim_tune_args(dir.path(), "out", {"--max-restarts", "2"}), dir.path(), env);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("giving up"), std::string::npos) << r.err;
  const fs::path path = dir / "out/sm90/jagged_sum.json";
  EXPECT_EQ(nlohmann::json::parse(read_text(path))["shapes"].size(), 2u);
  EXPECT_TRUE(fs::exists(path.string() + ".crashes"));
  // A resume remembers the crashed cells and finishes.
  const CliResult resumed =
      run_cli(sim_tune_args(dir.path(), "out", {"--resume", "--json"}), dir.path(), env);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto db = nlohmann::json::parse(read_text(path));
  ASSERT_EQ(db["shapes"].size(), 4u);
  expect_column(db, "block_row.t256.v2", "crashed", "signal 11");
}

}  // namespace
}  // namespace aotune::tuner_test
