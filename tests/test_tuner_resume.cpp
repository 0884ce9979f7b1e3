// A sweep killed with SIGKILL at a random moment resumes with --resume into the very database an
// uninterrupted sweep writes, measuring none of the shapes it already had.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "tests/tuner_cli_support.h"

namespace aotune::tuner_test {
namespace {

constexpr int kShapes = 12;

struct ResumeCase {
  std::string devices;
};

class TunerResume : public ::testing::TestWithParam<ResumeCase> {};

TEST_P(TunerResume, KillAtARandomPointThenResumeGivesTheUninterruptedDatabase) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(kShapes));
  const CliResult reference = run_cli(sim_tune_args(dir.path(), "ref"), dir.path());
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  const std::string expected = read_text(dir / "ref/sm90/jagged_sum.json");

  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 2; ++round) {
    const std::string out = "run" + std::to_string(round);
    const fs::path db = dir / (out + "/sm90/jagged_sum.json");
    // ~27 legal configs x 12 shapes x 1 ms: a run takes ~0.35 s; kill it somewhere inside.
    const int kill_after_ms = std::uniform_int_distribution<int>(20, 300)(rng);
    {
      Cli victim(sim_tune_args(dir.path(), out, {"--devices", GetParam().devices}),
                 {{"AOTUNE_SIM_DELAY_MS", "1"}}, dir.path());
      std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms));
      victim.kill_now();
      victim.wait();
    }
    // Whatever survived must parse: the writes are atomic.
    std::size_t kept = 0;
    if (fs::exists(db)) kept = nlohmann::json::parse(read_text(db))["shapes"].size();

    const CliResult resumed = run_cli(
        sim_tune_args(dir.path(), out, {"--resume", "--json", "--devices", GetParam().devices}),
        dir.path());
    ASSERT_EQ(resumed.exit_code, 0) << "killed after " << kill_after_ms << " ms\n" << resumed.err;
    EXPECT_EQ(read_text(db), expected) << "killed after " << kill_after_ms << " ms";
    const auto summary = nlohmann::json::parse(resumed.out);
    const auto& k = summary["kernels"][0];
    EXPECT_EQ(k["measured"], kShapes);
    // Exactly the rest; a multi-GPU run also folds in its workers' pieces, so at most the rest.
    if (GetParam().devices == "0") {
      EXPECT_EQ(k["measured_this_run"].get<std::size_t>(), kShapes - kept) << "kept " << kept;
    } else {
      EXPECT_LE(k["measured_this_run"].get<std::size_t>(), kShapes - kept) << "kept " << kept;
    }
    EXPECT_FALSE(fs::exists(db.string() + ".journal"));
    for (const auto& entry : fs::directory_iterator(db.parent_path())) {
      EXPECT_EQ(entry.path().filename().string().find(".worker-"), std::string::npos)
          << entry.path();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OneAndTwoWorkers, TunerResume,
                         ::testing::Values(ResumeCase{"0"}, ResumeCase{"0,1"}),
                         [](const auto& info) {
                           return info.param.devices == "0" ? std::string("OneGpu")
                                                            : std::string("TwoGpus");
                         });

TEST(TunerResume, ACompleteCurrentDatabaseMeansNothingToDo) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "out"), dir.path()).exit_code, 0);
  const fs::path db = dir / "out/sm90/jagged_sum.json";
  const std::string before = read_text(db);
  const auto mtime = fs::last_write_time(db);
  const CliResult again = run_cli(sim_tune_args(dir.path(), "out", {"--json"}), dir.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["kernels"][0]["status"], "up to date");
  EXPECT_EQ(read_text(db), before);
  EXPECT_EQ(fs::last_write_time(db), mtime);
}

// A run killed with two workers leaves their journals; a resume that needs fewer workers (or none)
// must still clear them, or they linger forever next to the database.
TEST(TunerResume, StrayWorkerJournalsOfAKilledRunAreRemoved) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(3));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "out"), dir.path()).exit_code, 0);
  const fs::path sm90 = dir / "out/sm90";
  for (const bool resume : {true, false}) {
    write_text(sm90 / "jagged_sum.worker-0-of-2.json.journal", "{}");
    write_text(sm90 / "jagged_sum.worker-1-of-2.json.journal", "{}");
    std::vector<std::string> extra = {"--devices", "0,1"};
    if (resume) extra.push_back("--resume");
    const CliResult r = run_cli(sim_tune_args(dir.path(), "out", extra), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& entry : fs::directory_iterator(sm90)) {
      EXPECT_EQ(entry.path().filename().string().find(".worker-"), std::string::npos)
          << (resume ? "--resume: " : "up to date: ") << entry.path();
    }
  }
}

TEST(TunerResume, AnIncompleteDatabaseNeedsResumeOrForce) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(2));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "out"), dir.path()).exit_code, 0);
  write_grid(dir / "grids", small_jagged_sum_grid(4));  // the grid grew: a different grid digest
  const CliResult plain = run_cli(sim_tune_args(dir.path(), "out"), dir.path());
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("--force"), std::string::npos) << plain.err;
  const CliResult forced =
      run_cli(sim_tune_args(dir.path(), "out", {"--force", "--json"}), dir.path());
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(nlohmann::json::parse(forced.out)["kernels"][0]["measured"], 4);
}

TEST(TunerResume, ABudgetStopsCleanlyAndResumeFinishesTheSameDatabase) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(8));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "ref"), dir.path()).exit_code, 0);
  const CliResult cut = run_cli(
      sim_tune_args(dir.path(), "out", {"--budget-seconds", "0.1", "--effort", "full", "--json"}),
      dir.path(), {{"AOTUNE_SIM_DELAY_MS", "2"}});
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  const auto summary = nlohmann::json::parse(cut.out);
  EXPECT_FALSE(summary["complete"].get<bool>());
  EXPECT_LT(summary["kernels"][0]["measured"].get<int>(), 8);
  // Shapes the budget turned to quick searches are measured again in full: the resumed database
  // is the uninterrupted one.
  const CliResult resumed =
      run_cli(sim_tune_args(dir.path(), "out", {"--resume", "--json"}), dir.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto after = nlohmann::json::parse(resumed.out);
  EXPECT_TRUE(after["complete"].get<bool>());
  EXPECT_EQ(after["kernels"][0]["below_effort"], 0);
  EXPECT_EQ(read_text(dir / "out/sm90/jagged_sum.json"),
            read_text(dir / "ref/sm90/jagged_sum.json"));
}

// A database whose shapes a budget cut to quick searches: plain `tune` leaves it alone (it is
// complete), `--resume` under --effort full measures exactly those shapes again, in full, and the
// result is the database an unhurried sweep writes.
TEST(TunerResume, ResumeMeasuresShapesABudgetCutToQuickAgainInFull) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(6));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "ref"), dir.path()).exit_code, 0);
  const std::string expected = read_text(dir / "ref/sm90/jagged_sum.json");
  // The state a short budget leaves: shapes 1 and 4 searched quick, some legal configs skipped.
  auto db = nlohmann::ordered_json::parse(expected);
  int cut = 0;
  for (int i : {1, 4}) {
    auto& shape = db["shapes"][i];
    shape["search"] = "quick";
    ASSERT_FALSE(shape["best"].is_null());
    const std::size_t best = shape["best"].get<std::size_t>();
    for (std::size_t c = 0; c < shape["cells"].size(); ++c) {
      auto& cell = shape["cells"][c];
      if (cell["status"] != "ok" || c == best) continue;
      cell = nlohmann::ordered_json{{"status", "skipped"},
                                    {"reason", "not measured: quick search did not reach it"}};
      ++cut;
    }
  }
  ASSERT_GT(cut, 0);
  fs::create_directories(dir / "out/sm90");
  {
    std::ofstream f(dir / "out/sm90/jagged_sum.json");
    f << db.dump(2) << "\n";
  }
  const std::string cut_db = read_text(dir / "out/sm90/jagged_sum.json");
  auto shapes_of = [&] {
    return nlohmann::ordered_json::parse(read_text(dir / "out/sm90/jagged_sum.json"))["shapes"];
  };

  const CliResult plain = run_cli(sim_tune_args(dir.path(), "out", {"--json"}), dir.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(nlohmann::json::parse(plain.out)["kernels"][0]["status"], "up to date");
  EXPECT_EQ(nlohmann::json::parse(plain.out)["kernels"][0]["below_effort"], 2);
  EXPECT_NE(plain.err.find("--resume times them in full"), std::string::npos) << plain.err;
  EXPECT_EQ(shapes_of(), db["shapes"]) << "plain tune changed the database";

  const CliResult resumed =
      run_cli(sim_tune_args(dir.path(), "out", {"--resume", "--json"}), dir.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("2 shapes were searched less than --effort full asks"),
            std::string::npos)
      << resumed.err;
  const auto summary = nlohmann::json::parse(resumed.out);
  EXPECT_TRUE(summary["complete"].get<bool>());
  EXPECT_EQ(summary["kernels"][0]["below_effort"], 0);
  EXPECT_EQ(summary["kernels"][0]["measured_this_run"], 2);
  EXPECT_EQ(summary["kernels"][0]["cells"]["skipped"], 0);
  EXPECT_EQ(read_text(dir / "out/sm90/jagged_sum.json"), expected);

  // Two workers: their pieces hold the new results, which replace the quick ones in the merge.
  {
    std::ofstream f(dir / "out/sm90/jagged_sum.json");
    f << cut_db;
  }
  const CliResult two = run_cli(
      sim_tune_args(dir.path(), "out", {"--resume", "--devices", "all", "--json"}), dir.path());
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(nlohmann::json::parse(two.out)["kernels"][0]["measured_this_run"], 2);
  EXPECT_EQ(read_text(dir / "out/sm90/jagged_sum.json"), expected);
  for (const auto& entry : fs::directory_iterator(dir / "out/sm90"))
    EXPECT_EQ(entry.path().filename().string().find(".worker-"), std::string::npos) << entry.path();

  // --effort quick asks no more than quick: nothing is measured again.
  {
    std::ofstream f(dir / "out/sm90/jagged_sum.json");
    f << cut_db;
  }
  const CliResult quick = run_cli(
      sim_tune_args(dir.path(), "out", {"--resume", "--effort", "quick", "--json"}), dir.path());
  // The database records effort full in its protocol, so a quick resume is refused or a no-op;
  // either way no shape changes.
  EXPECT_EQ(shapes_of(), db["shapes"]) << quick.err;
}

}  // namespace
}  // namespace aotune::tuner_test
