// Results databases: equal content is equal bytes, and a truncated, corrupt or foreign file is
// reported with its path and what is wrong, and never overwritten without --force.
#include <gtest/gtest.h>

#include <random>

#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tests/tuner_cli_support.h"
#include "tuner/results_database.h"
#include "tuner/search.h"
#include "tuner/simulated_device.h"

namespace aotune::tuner_test {
namespace {

// A database with random cells of every status.
tuner::ResultsDatabase random_database(std::mt19937& rng) {
  const TunableKernel& kernel = find_kernel("jagged_sum");
  tuner::ResultsDatabase db;
  db.kernel = "jagged_sum";
  db.arch = "sm90";
  db.device = tuner::simulated_device_info("sm90");
  db.source_hash = std::string(kernel.source_hash());
  db.protocol = tuner::to_json(tuner::TimingProtocol{}, "full");
  db.configs = tuner::config_entries(kernel);
  db.grid_shapes = 10;
  db.grid_digest = "0123456789abcdef";
  std::uniform_real_distribution<double> us(0.5, 5000.0);
  for (int i = 9; i >= 0; i -= 1 + static_cast<int>(rng() % 2)) {
    const nlohmann::json spec = {
        {"B", 1 + rng() % 1000}, {"M", 16}, {"len", 8}, {"seed", rng() % 100000}};
    const ProblemInfo info = kernel.describe(spec);
    tuner::ShapeResult s;
    s.index = i;
    s.key = "shape-" + std::to_string(i);
    s.spec = info.shape;
    s.features = info.features;
    s.bytes_moved = info.bytes_moved;
    s.search = "exhaustive";
    for (std::size_t c = 0; c < db.configs.size(); ++c) {
      const auto status = static_cast<tuner::CellStatus>(rng() % 5);
      if (status == tuner::CellStatus::ok) {
        const double m = tuner::round_us(us(rng));
        s.cells.push_back(tuner::Cell::measured(
            {m, tuner::round_us(m * 0.99), tuner::round_us(m * 1.03), 5 + int(rng() % 96)}));
      } else {
        s.cells.push_back(tuner::Cell::with(status, "reason \"" + std::to_string(rng()) + "\"\n"));
      }
    }
    s.best = tuner::fastest(s.cells);
    db.put(s);  // inserted out of order: put keeps grid order
  }
  return db;
}

TEST(ResultsDatabase, SavingWhatWasLoadedGivesTheSameBytes) {
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 20; ++round) {
    const tuner::ResultsDatabase db = random_database(rng);
    const std::string text = tuner::serialize(db);
    const tuner::ResultsDatabase again = tuner::parse_database(text, "memory");
    EXPECT_EQ(tuner::serialize(again), text);
    for (std::size_t i = 1; i < again.shapes.size(); ++i)
      EXPECT_LT(again.shapes[i - 1].index, again.shapes[i].index);
  }
}

TEST(ResultsDatabase, ATruncatedFileNamesItsPathAndWhatIsWrong) {
  std::mt19937 rng(std::random_device{}());
  const std::string text = tuner::serialize(random_database(rng));
  for (int round = 0; round < 20; ++round) {
    const std::size_t cut = 1 + rng() % (text.size() - 2);
    try {
      tuner::parse_database(text.substr(0, cut), "/some/path/jagged_sum.json");
      ADD_FAILURE() << "a database cut at byte " << cut << " parsed";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("/some/path/jagged_sum.json"), std::string::npos) << what;
      EXPECT_NE(what.find("truncated or corrupt"), std::string::npos) << what;
      EXPECT_NE(what.find("aot-runner tune --force"), std::string::npos) << what;
    }
  }
}

TEST(ResultsDatabase, AFileThatIsNotADatabaseIsNamedAsSuch) {
  EXPECT_THROW(tuner::parse_database("{\"hello\": 1}", "x.json"), InvalidArgument);
  EXPECT_THROW(tuner::parse_database("{\"format\": \"aotune-results/99\"}", "x.json"),
               InvalidArgument);
  EXPECT_THROW(tuner::parse_database("{\"format\": \"aotune-results/1\", \"kernel\": 3}", "x.json"),
               InvalidArgument);
}

TEST(ResultsDatabase, TuneRefusesATruncatedDatabaseAndLeavesItUntouched) {
  TempDir dir;
  write_grid(dir / "grids", small_jagged_sum_grid(4));
  ASSERT_EQ(run_cli(sim_tune_args(dir.path(), "out"), dir.path()).exit_code, 0);
  const fs::path db = dir / "out/sm90/jagged_sum.json";
  const std::string full = read_text(db);
  std::mt19937 rng(std::random_device{}());
  const std::string cut = full.substr(0, 1 + rng() % (full.size() - 2));
  write_text(db, cut);
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, {"--resume"}, {"--assert-cache-hit"}}) {
    const CliResult r = run_cli(sim_tune_args(dir.path(), "out", extra), dir.path());
    EXPECT_NE(r.exit_code, 0);
    if (extra.empty() || extra[0] != "--assert-cache-hit") {
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_NE(r.err.find(db.string()), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("truncated or corrupt"), std::string::npos) << r.err;
    } else {
      EXPECT_NE(r.out.find("unreadable"), std::string::npos) << r.out;
    }
    EXPECT_EQ(read_text(db), cut) << "the file was modified";
  }
  const CliResult forced = run_cli(sim_tune_args(dir.path(), "out", {"--force"}), dir.path());
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(read_text(db), full);
}

TEST(ResultsDatabase, TuneRefusesAForeignDatabaseAndLeavesItUntouched) {
  TempDir dir;
  std::string foreign;
  const fs::path db = tuned_then_edited_database(
      dir.path(), 2, [](auto& j) { j["kernel"] = "jagged_mean"; },  // someone copied another kernel's results here
      &foreign);
  for (const char* flag : {"--resume", "--json"}) {
    const CliResult r = run_cli(sim_tune_args(dir.path(), "out", {flag}), dir.path());
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find("jagged_mean"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(db.string()), std::string::npos) << r.err;
    EXPECT_EQ(read_text(db), foreign);
  }
}

// A database tuned on another kernel source (e.g. left by a killed `tune -k a,b --force` that never
// reached b) is refused by --resume, untouched, with a hint that restarts only that kernel.
TEST(ResultsDatabase, ResumeRefusesAnOlderKernelSourceAndNamesTheKernelToForce) {
  TempDir dir;
  std::string old;
  const fs::path db = tuned_then_edited_database(
      dir.path(), 2, [](auto& j) { j["source_hash"] = std::string(64, '0'); }, &old);
  const CliResult r = run_cli(sim_tune_args(dir.path(), "out", {"--resume"}), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("older kernel source"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`--kernel jagged_sum --force`"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(db), old);
}

}  // namespace
}  // namespace aotune::tuner_test
