// Stored shape features against the features code (tuner/feature_refresh.h): detecting stale ones,
// `aot-runner refresh-features` rewriting them without touching timings, `tune --resume` refreshing
// the shapes it keeps, and verify / emit refusing a database whose features are stale.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/common/registry.h"
#include "tests/tuner_cli_support.h"
#include "tuner/feature_refresh.h"
#include "tuner/results_database.h"

namespace aotune {
namespace {

using tuner_test::CliResult;
using tuner_test::read_text;
using tuner_test::run_cli;
using tuner_test::TempDir;
using tuner_test::write_text;
namespace fs = std::filesystem;

// A database of two jagged_dense_add shapes whose stored features are what the code computes.
tuner::ResultsDatabase two_shape_database() {
  const TunableKernel& k = find_kernel("jagged_dense_add");
  tuner::ResultsDatabase db;
  db.kernel = "jagged_dense_add";
  db.arch = "sm90";
  int64_t index = 0;
  for (const char* spec : {R"({"B": 7, "N": 33, "len": 20, "dtype": "bf16"})",
                           R"({"B": 300, "N": 64, "len": 128, "dist": "powerlaw", "dtype": "f32"})"}) {
    const ProblemInfo info = k.describe(nlohmann::json::parse(spec));
    tuner::ShapeResult s;
    s.index = index++;
    s.key = "shape" + std::to_string(s.index);
    s.spec = info.shape;
    s.features = info.features;
    s.bytes_moved = info.bytes_moved;
    db.shapes.push_back(s);
  }
  return db;
}

TEST(FeatureRefresh, FeaturesComputedByTheCodeAreNotStale) {
  const auto db = two_shape_database();
  EXPECT_TRUE(tuner::find_stale_features(find_kernel("jagged_dense_add"), db).empty());
}

TEST(FeatureRefresh, AChangedValueOrAMissingFeatureIsFoundAndRefreshed) {
  const TunableKernel& k = find_kernel("jagged_dense_add");
  auto db = two_shape_database();
  const auto original = db;
  const std::string changed = db.shapes[1].features[1].first;
  db.shapes[1].features[1].second += 0.5;
  db.shapes[0].features.pop_back();
  const std::string dropped = original.shapes[0].features.back().first;

  const auto stale = tuner::find_stale_features(k, db);
  ASSERT_EQ(stale.size(), 2u);
  EXPECT_EQ(stale[0].shape_key, "shape0");
  EXPECT_NE(stale[0].detail.find(dropped), std::string::npos) << stale[0].detail;
  EXPECT_EQ(stale[1].shape_key, "shape1");
  EXPECT_NE(stale[1].detail.find("'" + changed + "'"), std::string::npos) << stale[1].detail;
  const std::string message = tuner::describe_stale_features(stale, db.shapes.size(), "x.json", k.name());
  EXPECT_NE(message.find("2 of 2 shapes of x.json"), std::string::npos) << message;

  EXPECT_EQ(tuner::refresh_features(k, db), 2u);
  EXPECT_TRUE(tuner::find_stale_features(k, db).empty());
  EXPECT_EQ(tuner::to_json(db).dump(), tuner::to_json(original).dump());
  EXPECT_EQ(tuner::refresh_features(k, db), 0u) << "a second refresh changes nothing";
}

// The committed jagged_dense_add database and manifest in a temporary configs folder.
fs::path copy_committed_configs(const TempDir& tmp) {
  const fs::path src = fs::path(AOTUNE_SOURCE_DIR) / "configs";
  const fs::path dst = tmp / "configs";
  fs::create_directories(dst / "sm90");
  fs::copy_file(src / "manifest.json", dst / "manifest.json");
  fs::copy_file(src / "sm90/jagged_dense_add.json", dst / "sm90/jagged_dense_add.json");
  return dst;
}

// Shifts the first shape's first stored feature: what a features change in the code looks like
// from the database's side.
void age_one_feature(const fs::path& db) {
  auto j = nlohmann::ordered_json::parse(read_text(db));
  auto& f = j["shapes"][0]["features"];
  f.begin().value() = f.begin().value().get<double>() + 1.0;
  write_text(db, j.dump(2) + "\n");
}

TEST(FeatureRefresh, TheCommandRestoresStaleFeaturesAndLeavesTheRestByteIdentical) {
  TempDir tmp;
  const fs::path configs = copy_committed_configs(tmp);
  const fs::path db = configs / "sm90/jagged_dense_add.json";
  const std::string committed = read_text(db);
  const std::vector<std::string> base = {"refresh-features", "--configs-dir", configs.string(), "-k",
                                         "jagged_dense_add", "--arch", "sm90"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };

  const CliResult fresh = run_cli(with({"--check", "--json"}), tmp.path());
  ASSERT_EQ(fresh.exit_code, 0) << "the committed database is current: " << fresh.err;
  EXPECT_EQ(nlohmann::json::parse(fresh.out)[0]["stale_shapes"], 0);

  age_one_feature(db);
  const std::string aged = read_text(db);
  const CliResult check = run_cli(with({"--check"}), tmp.path());
  EXPECT_EQ(check.exit_code, 1) << check.err;
  EXPECT_NE(check.err.find("1 of "), std::string::npos) << check.err;
  EXPECT_EQ(read_text(db), aged) << "--check wrote";

  const CliResult refresh = run_cli(with({"--json"}), tmp.path());
  ASSERT_EQ(refresh.exit_code, 0) << refresh.err;
  const auto report = nlohmann::json::parse(refresh.out);
  EXPECT_EQ(report[0]["stale_shapes"], 1);
  EXPECT_EQ(report[0]["written"], true);
  EXPECT_EQ(read_text(db), committed) << "only the stale feature may change, and back to the code's value";
}

TEST(FeatureRefresh, BadArgumentsAreUsageErrors) {
  TempDir tmp;
  const fs::path configs = copy_committed_configs(tmp);
  const CliResult unknown = run_cli({"refresh-features", "--configs-dir", configs.string(), "-k", "no_such"}, tmp.path());
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("no_such"), std::string::npos) << unknown.err;
  const CliResult missing = run_cli(
      {"refresh-features", "--configs-dir", configs.string(), "-k", "jagged_sum", "--arch", "sm90"}, tmp.path());
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("no results database"), std::string::npos) << missing.err;
}

// emit must not fit on features the dispatch code no longer computes.
TEST(FeatureRefresh, EmitRefusesADatabaseWithStaleFeatures) {
  TempDir tmp;
  const fs::path configs = copy_committed_configs(tmp);
  auto manifest = nlohmann::json::parse(read_text(configs / "manifest.json"));
  manifest["kernels"] = {"jagged_dense_add"};
  write_text(configs / "manifest.json", manifest.dump(2));
  age_one_feature(configs / "sm90/jagged_dense_add.json");
  const CliResult emit =
      run_cli({"emit", "--configs", configs.string(), "--out", (tmp / "gen").string()}, tmp.path());
  EXPECT_EQ(emit.exit_code, 2) << emit.err;
  EXPECT_NE(emit.err.find("refresh-features -k jagged_dense_add"), std::string::npos) << emit.err;
}

// A resume keeps the measured shapes but gives them the features the code computes now, so a
// database never mixes two versions of a kernel's features.
TEST(FeatureRefresh, AResumeRefreshesTheFeaturesOfTheShapesItKeeps) {
  TempDir dir;
  std::string text;
  const fs::path db = tuner_test::tuned_then_edited_database(
      dir.path(), 3,
      [](nlohmann::ordered_json& j) {
        for (auto& s : j["shapes"]) s["features"]["avg_len"] = 1234.5;
      },
      &text);
  tuner_test::write_grid(dir / "grids", tuner_test::small_jagged_sum_grid(4));
  const CliResult resumed = run_cli(tuner_test::sim_tune_args(dir.path(), "out", {"--resume"}), dir.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("features of 3 measured shapes refreshed"), std::string::npos) << resumed.err;
  const auto loaded = tuner::load_database(db.string());
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->shapes.size(), 4u);
  EXPECT_TRUE(tuner::find_stale_features(find_kernel("jagged_sum"), *loaded).empty());
}

}  // namespace
}  // namespace aotune
