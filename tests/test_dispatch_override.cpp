// AOTUNE_HEURISTIC_DIR: a heuristic_<arch>.json written by `emit --json` replaces the compiled
// heuristic without recompiling; a file that cannot be used is a warning and the compiled one
// stays.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "aotune/heuristic_store.h"
#include "codegen/emit.h"
#include "dispatch/src/kernel_heuristic_check.h"
#include "heuristics/kernel_features.h"
#include "tests/heuristics_test_support.h"
#include "tuner/atomic_file.h"

namespace aotune::dispatch {
namespace {

using test::TempDir;

// Stands in for a heuristic compiled into the library: one leaf, one config.
KernelHeuristic compiled_jagged_sum() {
  KernelHeuristic h;
  h.kernel = "jagged_sum";
  h.arch = 90;
  h.source = "compiled";
  h.features = heuristics::current_feature_names(find_kernel("jagged_sum"));
  h.config_ids = {"group_row.t128.v1.s1"};
  h.nodes = {{-1, 0, 1, 0.0}};
  h.leaf_configs = {0};
  h.fallback = {0};
  resolve_and_check(h, find_kernel("jagged_sum"));
  return h;
}

// `emit --json` output for sm90 with a fitted jagged_sum, in dir/json.
std::string emit_override(const TempDir& dir) {
  test::write_manifest(dir / "configs", {"sm90"});
  tuner::save_database(
      dir / "configs/sm90/jagged_sum.json",
      test::cost_model_database("jagged_sum", test::small_grid("jagged_sum"), "sm90", true));
  codegen::EmitOptions o;
  o.configs_dir = dir / "configs";
  o.out_dir = dir / "generated";
  o.json_dir = dir / "json";
  codegen::write_if_changed(codegen::generate_files(o));
  return dir / "json/heuristic_sm90.json";
}

TEST(HeuristicOverride, AFileInTheOverrideDirectoryWinsOverTheCompiledHeuristic) {
  TempDir dir;
  const std::string file = emit_override(dir);
  const auto store = HeuristicStore::load(dir / "json", {compiled_jagged_sum()});
  const KernelHeuristic* h = store->find("jagged_sum", 90);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->source, file);
  EXPECT_TRUE(store->warnings().empty());
  // Without the directory, the compiled one is used.
  EXPECT_EQ(HeuristicStore::load("", {compiled_jagged_sum()})->find("jagged_sum", 90)->source,
            "compiled");
}

void expect_compiled_stays(const std::string& dir, const std::string& expected_in_warning) {
  const auto store = HeuristicStore::load(dir, {compiled_jagged_sum()});
  const KernelHeuristic* h = store->find("jagged_sum", 90);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->source, "compiled");
  ASSERT_EQ(store->warnings().size(), 1u);
  EXPECT_NE(store->warnings()[0].find(expected_in_warning), std::string::npos)
      << store->warnings()[0];
}

TEST(HeuristicOverride, ACorruptFileIsAWarningAndTheCompiledHeuristicStays) {
  TempDir dir;
  tuner::write_file_atomically(dir / "heuristic_sm90.json",
                               "{\"format\": \"aotune-heuristic/1\", \"arch\": ");
  expect_compiled_stays(dir.str(), "heuristic_sm90.json");
}

TEST(HeuristicOverride, AFileNamingAnUnknownConfigIsRejected) {
  TempDir dir;
  const std::string file = emit_override(dir);
  std::string text = *tuner::read_file_if_exists(file);
  nlohmann::json j = nlohmann::json::parse(text);
  j["kernels"][0]["configs"][0]["id"] = "no_such.config";
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "no_such.config");
}

TEST(HeuristicOverride, ATreeThatCouldLoopIsRejected) {
  TempDir dir;
  const std::string file = emit_override(dir);
  nlohmann::json j = nlohmann::json::parse(*tuner::read_file_if_exists(file));
  auto& tree = j["kernels"][0]["tree"];
  ASSERT_GT(tree.size(), 1u) << "the fitted tree should split";
  tree[0]["left"] = 0;  // a node that points at itself would never end
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "children");
}

// The emitted tree turned into a one-tree forest: each leaf holds one cost per config (its list's
// rank), so the forest ranks as the tree's leaves did.
nlohmann::json as_forest(nlohmann::json k) {
  const std::size_t configs = k["configs"].size();
  std::vector<uint16_t> values;
  for (auto& node : k["tree"]) {
    if (node["feature"].get<int32_t>() >= 0) continue;
    std::vector<uint16_t> cost(configs, 60'000);
    for (int32_t r = 0; r < node["right"].get<int32_t>(); ++r)
      cost[k["leaf_configs"][node["left"].get<std::size_t>() + static_cast<std::size_t>(r)].get<std::size_t>()] = r;
    node["left"] = values.size();
    node["right"] = configs;
    values.insert(values.end(), cost.begin(), cost.end());
  }
  k["roots"] = std::vector<int32_t>{0};
  k["leaf_values"] = values;
  return k;
}

TEST(HeuristicOverride, AForestLoadsAndOneWhoseTablesDoNotFitIsRejected) {
  TempDir dir;
  const std::string file = emit_override(dir);
  const nlohmann::json emitted = nlohmann::json::parse(*tuner::read_file_if_exists(file));
  nlohmann::json j = emitted;
  j["kernels"][0] = as_forest(emitted["kernels"][0]);
  tuner::write_file_atomically(file, j.dump());
  const auto store = HeuristicStore::load(dir / "json", {compiled_jagged_sum()});
  ASSERT_TRUE(store->warnings().empty()) << store->warnings()[0];
  const KernelHeuristic* h = store->find("jagged_sum", 90);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->source, file);
  EXPECT_EQ(h->view().num_trees, 1);
  // A second tree starting where the first does, and leaves past the cost table: both refused.
  j["kernels"][0]["roots"] = std::vector<int32_t>{0, 0};
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "tree 1 starts at node 0");
  j["kernels"][0] = as_forest(emitted["kernels"][0]);
  j["kernels"][0]["leaf_values"].erase(j["kernels"][0]["leaf_values"].size() - 1);
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "forest leaf");
  // Costs are 16 bits: a file of 32-bit costs (format 1, before session 60) is refused by name,
  // not wrapped into other numbers.
  j["kernels"][0] = as_forest(emitted["kernels"][0]);
  j["kernels"][0]["leaf_values"][3] = 1'500'000;
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "leaf_values[3] is 1500000, not a 16-bit cost");
  j["kernels"][0]["leaf_values"][3] = -1;
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "leaf_values[3] is -1");
  j["kernels"][0] = as_forest(emitted["kernels"][0]);
  j["format"] = "aotune-heuristic/1";
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "format 'aotune-heuristic/1' is not aotune-heuristic/2");
}

TEST(HeuristicOverride, FeaturesThatDifferFromTheKernelsAreRejected) {
  TempDir dir;
  const std::string file = emit_override(dir);
  nlohmann::json j = nlohmann::json::parse(*tuner::read_file_if_exists(file));
  j["kernels"][0]["features"][0] = "renamed";
  tuner::write_file_atomically(file, j.dump());
  expect_compiled_stays(dir / "json", "features");
}

TEST(HeuristicOverride, AMissingDirectoryIsAWarning) {
  TempDir dir;
  expect_compiled_stays(dir / "does_not_exist", "not a directory");
}

TEST(HeuristicOverride, TheEnvironmentVariableIsReadByTheProcessWideStore) {
  TempDir dir;
  const std::string file = emit_override(dir);
  ASSERT_EQ(::setenv("AOTUNE_HEURISTIC_DIR", (dir / "json").c_str(), 1), 0);
  reload_heuristics();
  const KernelHeuristic* h = current_store()->find("jagged_sum", 90);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->source, file);
  ::unsetenv("AOTUNE_HEURISTIC_DIR");
  reload_heuristics();
  const KernelHeuristic* after = current_store()->find("jagged_sum", 90);
  EXPECT_TRUE(after == nullptr || after->source == "compiled");
}

}  // namespace
}  // namespace aotune::dispatch
