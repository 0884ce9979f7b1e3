// Ctrl-C (SIGINT), a scheduler's SIGTERM or a closed terminal's SIGHUP stop a sweep with its
// summary, a line saying how to resume, and exit code 128 + signal; --resume then writes the very
// database an uninterrupted sweep writes. A signal the sweep was started ignoring stays ignored.
#include <gtest/gtest.h>
#include <signal.h>

#include "tests/tuner_cli_support.h"

namespace aotune::tuner_test {
namespace {

constexpr int kShapes = 12;

struct InterruptCase {
  int signal;
  const char* name;
  std::string devices;
};

class TunerInterrupt : public ::testing::TestWithParam<InterruptCase> {};

// Waits until the sweep has written its database (the signal handlers are in place by then).
bool wait_for(const fs::path& p) {
  for (int i = 0; i < 2000 && !fs::exists(p); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return fs::exists(p);
}

TEST_P(TunerInterrupt, StopsWithItsSummaryAndExitCodeThenResumeFinishesTheSameDatabase) {
  const InterruptCase& c = GetParam();
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(kShapes));
  const CliResult reference = run_cli(sim_tune_args(dir.path(), "ref"), dir.path());
  ASSERT_EQ(reference.exit_code, 0) << reference.err;

  const fs::path db = dir / "out/sm90/jagged_sum.json";
  CliResult stopped;
  {
    // ~27 legal configs x 12 shapes x 5 ms: about 1.6 s, stopped near its start.
    Cli victim(sim_tune_args(dir.path(), "out", {"--json", "--devices", c.devices}),
               {{"AOTUNE_SIM_DELAY_MS", "5"}}, dir.path());
    ASSERT_TRUE(wait_for(db));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    victim.send(c.signal);
    stopped = victim.wait();
  }
  EXPECT_EQ(stopped.exit_code, 128 + c.signal) << stopped.err;
  EXPECT_NE(stopped.err.find(std::string("stopped by ") + c.name), std::string::npos)
      << stopped.err;
  EXPECT_NE(stopped.err.find("--resume"), std::string::npos) << stopped.err;
  const auto summary = nlohmann::json::parse(stopped.out);
  EXPECT_FALSE(summary["complete"].get<bool>());
  EXPECT_EQ(summary["interrupted"], c.name);
  const auto& k = summary["kernels"][0];
  EXPECT_EQ(k["status"], "interrupted");
  const std::size_t kept = nlohmann::json::parse(read_text(db))["shapes"].size();
  EXPECT_EQ(k["measured"].get<std::size_t>(), kept);
  EXPECT_LT(kept, static_cast<std::size_t>(kShapes));
  // The workers are gone and their pieces folded in: nothing left for a resume to clean up.
  EXPECT_FALSE(fs::exists(db.string() + ".journal"));
  for (const auto& entry : fs::directory_iterator(db.parent_path())) {
    EXPECT_EQ(entry.path().filename().string().find(".worker-"), std::string::npos) << entry.path();
  }

  const CliResult resumed = run_cli(
      sim_tune_args(dir.path(), "out", {"--resume", "--json", "--devices", c.devices}), dir.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(read_text(db), read_text(dir / "ref/sm90/jagged_sum.json"));
  const auto after = nlohmann::json::parse(resumed.out);
  EXPECT_TRUE(after["complete"].get<bool>());
  EXPECT_TRUE(after["interrupted"].is_null());
}

INSTANTIATE_TEST_SUITE_P(Signals, TunerInterrupt,
                         ::testing::Values(InterruptCase{SIGINT, "SIGINT", "0"},
                                           InterruptCase{SIGTERM, "SIGTERM", "0,1"},
                                           InterruptCase{SIGHUP, "SIGHUP", "0"}),
                         [](const auto& info) {
                           return std::string(info.param.name) +
                                  (info.param.devices == "0" ? "OneGpu" : "TwoGpus");
                         });

// `nohup` and background jobs start a program ignoring SIGINT or SIGHUP; the sweep keeps it so.
TEST(TunerInterruptIgnored, ASignalTheSweepWasStartedIgnoringDoesNotStopIt) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(4));
  const fs::path db = dir / "out/sm90/jagged_sum.json";
  // A shell that ignores SIGINT and execs aot-runner, which inherits the ignoring.
  std::string cmd = "trap '' INT; exec '" + std::string(AOT_RUNNER_PATH) + "'";
  for (const std::string& a : sim_tune_args(dir.path(), "out", {"--json"})) cmd += " '" + a + "'";
  Cli victim({"-c", cmd}, {{"AOTUNE_SIM_DELAY_MS", "5"}}, dir.path(), "/bin/sh");
  ASSERT_TRUE(wait_for(db));
  victim.send(SIGINT);
  const CliResult r = victim.wait();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["complete"].get<bool>());
}

}  // namespace
}  // namespace aotune::tuner_test
