// Shards of a grid, merged, equal one unsharded sweep byte for byte; merge refuses pieces that are
// not of one sweep. Shard selection from Slurm and Kubernetes variables.
#include <gtest/gtest.h>

#include <functional>

#include "kernels/common/errors.h"
#include "tests/tuner_cli_support.h"
#include "tuner/shard.h"

namespace aotune::tuner_test {
namespace {

constexpr int kShapes = 9;

class TunerShardMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    write_grid(dir / "grids", small_jagged_sum_grid(kShapes));
    const CliResult r = run_cli(sim_tune_args(dir.path(), "full"), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    unsharded = read_text(dir / "full/sm90/jagged_sum.json");
  }
  std::string shard_path(int i, int n) const {
    return (dir / ("shards/sm90/jagged_sum.shard-" + std::to_string(i) + "-of-" +
                   std::to_string(n) + ".json"))
        .string();
  }
  TempDir dir;
  std::string unsharded;
};

TEST_F(TunerShardMerge, TwoShardsMergedEqualOneUnshardedSweepByteForByte) {
  for (const char* shard : {"0/2", "1/2"}) {
    const CliResult r =
        run_cli(sim_tune_args(dir.path(), "shards", {"--shard", shard}), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const auto piece = nlohmann::json::parse(read_text(shard_path(1, 2)));
  for (const auto& s : piece["shapes"]) EXPECT_EQ(s["index"].get<int>() % 2, 1);
  const std::string merged = (dir / "merged.json").string();
  const CliResult m =
      run_cli({"merge", shard_path(1, 2), shard_path(0, 2), "-o", merged}, dir.path());
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(read_text(merged), unsharded);
}

TEST_F(TunerShardMerge, ShardsFromSlurmAndKubernetesVariablesMergeToTheSameDatabase) {
  for (int i = 0; i < 3; ++i) {  // Slurm array --array=1-3
    const CliResult r = run_cli(sim_tune_args(dir.path(), "shards"), dir.path(),
                                {{"SLURM_ARRAY_TASK_ID", std::to_string(i + 1)},
                                 {"SLURM_ARRAY_TASK_MIN", "1"},
                                 {"SLURM_ARRAY_TASK_COUNT", "3"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const CliResult m = run_cli({"merge", shard_path(0, 3), shard_path(1, 3), shard_path(2, 3), "-o",
                               (dir / "slurm.json").string()},
                              dir.path());
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(read_text(dir / "slurm.json"), unsharded);

  for (int i = 0; i < 2; ++i) {  // Kubernetes indexed job, completions: 2
    const CliResult r =
        run_cli(sim_tune_args(dir.path(), "k8s"), dir.path(),
                {{"JOB_COMPLETION_INDEX", std::to_string(i)}, {"AOTUNE_SHARD_COUNT", "2"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const CliResult k = run_cli(
      {"merge", (dir / "k8s/sm90/jagged_sum.shard-0-of-2.json").string(),
       (dir / "k8s/sm90/jagged_sum.shard-1-of-2.json").string(), "-o", (dir / "k8s.json").string()},
      dir.path());
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_EQ(read_text(dir / "k8s.json"), unsharded);
}

TEST_F(TunerShardMerge, TwoSimulatedGpusWriteTheSameDatabaseAsOne) {
  const CliResult r = run_cli(sim_tune_args(dir.path(), "two", {"--devices", "0,1"}), dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "two/sm90/jagged_sum.json"), unsharded);
}

// Rewrites one field of a shard database, as a database from another setup would have it.
void tamper(const std::string& path, const std::function<void(nlohmann::ordered_json&)>& change) {
  auto j = nlohmann::ordered_json::parse(read_text(path));
  change(j);
  write_text(path, j.dump(2));
}

TEST_F(TunerShardMerge, MergeRefusesDatabasesOfDifferentDevicesSourcesOrResults) {
  for (const char* shard : {"0/2", "1/2"}) {
    ASSERT_EQ(
        run_cli(sim_tune_args(dir.path(), "shards", {"--shard", shard}), dir.path()).exit_code, 0);
  }
  const std::string a = shard_path(0, 2), b = shard_path(1, 2),
                    full = (dir / "full/sm90/jagged_sum.json").string();
  const std::string original_b = read_text(b);
  struct Case {
    const char* what;
    std::function<void(nlohmann::ordered_json&)> change;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"device", [](auto& j) { j["device"]["name"] = "Another GPU"; }, "device"},
      {"driver", [](auto& j) { j["device"]["driver_version"] = 12040; }, "driver_version"},
      {"source hash", [](auto& j) { j["source_hash"] = "0123456789abcdef"; }, "source hash"},
      {"arch", [](auto& j) { j["arch"] = "sm80"; }, "architecture"},
      {"protocol", [](auto& j) { j["protocol"]["max_reps"] = 7; }, "protocol"},
  };
  for (const Case& c : cases) {
    write_text(b, original_b);
    tamper(b, c.change);
    const CliResult m = run_cli({"merge", a, b, "-o", (dir / "bad.json").string()}, dir.path());
    EXPECT_EQ(m.exit_code, 2) << c.what;
    EXPECT_NE(m.err.find(c.expected), std::string::npos) << c.what << ": " << m.err;
    EXPECT_NE(m.err.find(b), std::string::npos) << c.what << ": " << m.err;
    EXPECT_FALSE(fs::exists(dir / "bad.json")) << c.what;
  }
  // The same shape with two different results.
  write_text(b, original_b);
  auto tampered_full = nlohmann::ordered_json::parse(read_text(full));
  tampered_full["shapes"][0]["cells"][0]["median_us"] = 123456.0;
  write_text(dir / "other.json", tampered_full.dump(2));
  const CliResult m = run_cli(
      {"merge", a, (dir / "other.json").string(), "-o", (dir / "bad.json").string()}, dir.path());
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find("different results"), std::string::npos) << m.err;
  // Overlapping but equal pieces are fine.
  const CliResult ok =
      run_cli({"merge", a, b, full, "-o", (dir / "good.json").string()}, dir.path());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(read_text(dir / "good.json"), unsharded);
}

TEST(TunerShard, ResolvesTheShardFromOptionThenEnvironment) {
  using tuner::resolve_shard;
  auto env_of = [](std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_FALSE(resolve_shard("", env_of({})).sharded());
  EXPECT_EQ(
      resolve_shard("2/5", env_of({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}))
          .index,
      2);
  EXPECT_FALSE(
      resolve_shard("0/1", env_of({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}))
          .sharded());
  const auto slurm = resolve_shard("", env_of({{"SLURM_ARRAY_TASK_ID", "7"},
                                               {"SLURM_ARRAY_TASK_MIN", "5"},
                                               {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  EXPECT_EQ(slurm.index, 2);
  EXPECT_EQ(slurm.count, 4);
  const auto k8s =
      resolve_shard("", env_of({{"JOB_COMPLETION_INDEX", "3"}, {"AOTUNE_SHARD_COUNT", "8"}}));
  EXPECT_EQ(k8s.index, 3);
  EXPECT_EQ(k8s.count, 8);
  EXPECT_EQ(
      resolve_shard("", env_of({{"AOTUNE_SHARD", "1/2"}, {"JOB_COMPLETION_INDEX", "0"}})).index, 1);
  EXPECT_THROW(resolve_shard("", env_of({{"JOB_COMPLETION_INDEX", "3"}})), InvalidArgument);
  EXPECT_THROW(resolve_shard("3/3", env_of({})), InvalidArgument);
  EXPECT_THROW(resolve_shard("a/b", env_of({})), InvalidArgument);
  EXPECT_THROW(
      resolve_shard("", env_of({{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})),
      InvalidArgument);
}

TEST(TunerShard, EveryShapeFallsInExactlyOneShard) {
  for (int n = 1; n <= 7; ++n) {
    for (int64_t index = 0; index < 50; ++index) {
      int holders = 0;
      for (int i = 0; i < n; ++i) holders += tuner::ShardSpec{i, n, "test"}.holds(index) ? 1 : 0;
      EXPECT_EQ(holders, 1) << index << " of " << n;
    }
  }
}

}  // namespace
}  // namespace aotune::tuner_test
