// The emitter: deterministic bytes, no rewrite of unchanged files, empty tables without a real
// database, and the JSON twin carrying the same heuristic as the header.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <limits>

#include "aotune/heuristic_store.h"
#include "codegen/emit.h"
#include "codegen/header_writer.h"
#include "codegen/sha256.h"
#include "kernels/common/errors.h"
#include "tests/heuristics_test_support.h"
#include "tuner/atomic_file.h"

namespace aotune::codegen {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// configs/ with a manifest for sm90 and a jagged_sum database (real or simulated).
void write_configs(const std::string& configs, bool real,
                   const std::string& kernel = "jagged_sum") {
  test::write_manifest(configs, {"sm90"});
  const tuner::ResultsDatabase db =
      test::cost_model_database(kernel, test::small_grid(kernel), "sm90", real);
  tuner::save_database(configs + "/sm90/" + kernel + ".json", db);
}

EmitOptions options_for(const TempDir& dir) {
  EmitOptions o;
  o.configs_dir = dir / "configs";
  o.out_dir = dir / "generated";
  o.json_dir = dir / "json";
  return o;
}

const GeneratedFile& file_named(const std::vector<GeneratedFile>& files,
                                const std::string& suffix) {
  for (const auto& f : files) {
    if (f.path.ends_with(suffix)) return f;
  }
  throw std::runtime_error("no generated file " + suffix);
}

TEST(Emit, IsByteIdenticalAcrossRuns) {
  TempDir dir;
  write_configs(dir / "configs", true);
  const auto first = generate_files(options_for(dir));
  const auto second = generate_files(options_for(dir));
  ASSERT_EQ(first.size(), 3u);  // header, JSON, index
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].path, second[i].path);
    EXPECT_EQ(first[i].content, second[i].content) << first[i].path;
  }
  const std::string& header = file_named(first, "heuristic_sm90.h").content;
  EXPECT_NE(header.find("jagged_sum: tuned on Test GPU"), std::string::npos);
  EXPECT_NE(header.find("held-out slowdown"), std::string::npos);
  const std::string db_text = *tuner::read_file_if_exists(dir / "configs/sm90/jagged_sum.json");
  EXPECT_NE(header.find("sha256 " + sha256_hex(db_text)), std::string::npos);
  EXPECT_NE(header.find("jagged_mean: NOT TUNED"), std::string::npos);
}

TEST(Emit, DoesNotRewriteAnUnchangedFile) {
  TempDir dir;
  write_configs(dir / "configs", true);
  const auto files = generate_files(options_for(dir));
  for (const auto& o : write_if_changed(files)) EXPECT_TRUE(o.changed) << o.path;
  // Age the files so a rewrite would be visible whatever the file system's time resolution.
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& f : files) fs::last_write_time(f.path, old_time);
  for (const auto& o : write_if_changed(generate_files(options_for(dir))))
    EXPECT_FALSE(o.changed) << o.path;
  for (const auto& f : files) EXPECT_EQ(fs::last_write_time(f.path), old_time) << f.path;
  // A changed database changes the header, which is then rewritten.
  write_configs(dir / "configs", true, "causal_trailing_mean");
  bool header_changed = false;
  for (const auto& o : write_if_changed(generate_files(options_for(dir)))) {
    if (o.path.ends_with("heuristic_sm90.h")) header_changed = o.changed;
  }
  EXPECT_TRUE(header_changed);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Emit, WithoutRealDatabasesWritesEmptyTablesAndSaysSo) {
  TempDir dir;
  test::write_manifest(dir / "configs", {"sm90"});
  const auto files = generate_files(options_for(dir));
  const std::string& header = file_named(files, "heuristic_sm90.h").content;
  for (const TunableKernel* k : all_kernels()) {
    EXPECT_NE(header.find(std::string(k->name()) + ": NOT TUNED: no results database"),
              std::string::npos);
  }
  EXPECT_EQ(count(header, "TreeNode, 0> tree = {};"), all_kernels().size());
  EXPECT_EQ(count(header, "The tables are empty: dispatch runs the default config"),
            all_kernels().size());
}

TEST(Emit, NeverFitsASimulatedDatabaseUnlessAllowed) {
  TempDir dir;
  write_configs(dir / "configs", false);
  EmitOptions options = options_for(dir);
  const std::string refused = file_named(generate_files(options), "heuristic_sm90.h").content;
  EXPECT_NE(refused.find("comes from the simulated device, which is not real tuning"),
            std::string::npos);
  EXPECT_EQ(count(refused, "TreeNode, 0> tree = {};"), all_kernels().size());
  options.allow_simulated = true;
  const std::string allowed = file_named(generate_files(options), "heuristic_sm90.h").content;
  EXPECT_NE(allowed.find("[SIMULATED, not real tuning]"), std::string::npos);
  EXPECT_EQ(count(allowed, "TreeNode, 0> tree = {};"), all_kernels().size() - 1);
}

TEST(Emit, JsonCarriesTheSameHeuristicAsTheHeader) {
  TempDir dir;
  write_configs(dir / "configs", true);
  const EmitOptions options = options_for(dir);
  write_if_changed(generate_files(options));
  const ArchHeuristics h =
      build_arch_heuristics("sm90", load_manifest(dir / "configs/manifest.json"), options);
  const KernelEntry& entry = h.kernels.front();
  ASSERT_EQ(entry.kernel, "jagged_sum");
  ASSERT_TRUE(entry.tuned());
  const auto loaded = dispatch::load_heuristic_file(dir / "json/heuristic_sm90.json");
  ASSERT_EQ(loaded.size(), 1u);
  const dispatch::KernelHeuristic& k = loaded.front();
  EXPECT_EQ(k.kernel, "jagged_sum");
  EXPECT_EQ(k.arch, 90);
  EXPECT_EQ(k.config_ids, entry.config_ids);
  EXPECT_EQ(k.configs, entry.model.configs);
  EXPECT_EQ(k.leaf_configs, entry.model.leaf_configs);
  EXPECT_EQ(k.fallback, entry.model.fallback);
  ASSERT_EQ(k.nodes.size(), entry.model.nodes.size());
  const std::string header = *tuner::read_file_if_exists(dir / "generated/heuristic_sm90.h");
  for (std::size_t i = 0; i < k.nodes.size(); ++i) {
    EXPECT_EQ(k.nodes[i].feature, entry.model.nodes[i].feature);
    EXPECT_EQ(k.nodes[i].threshold, entry.model.nodes[i].threshold);  // exact: both round-trip
    const auto& n = k.nodes[i];
    const std::string row = "{" + std::to_string(n.feature) + ", " + std::to_string(n.left) + ", " +
                            std::to_string(n.right) + ", " + double_literal(n.threshold) + "}";
    EXPECT_NE(header.find(row), std::string::npos) << row;
  }
  for (std::size_t i = 0; i < entry.config_ids.size(); ++i) {
    EXPECT_NE(header.find("  // " + std::to_string(i) + ": " + entry.config_ids[i]),
              std::string::npos);
  }
}

TEST(Emit, RejectsADatabaseTunedWithAnotherConfigList) {
  TempDir dir;
  test::write_manifest(dir / "configs", {"sm90"});
  tuner::ResultsDatabase db =
      test::cost_model_database("jagged_sum", test::small_grid("jagged_sum"), "sm90", true);
  db.configs.pop_back();
  for (auto& s : db.shapes) {
    s.cells.pop_back();
    if (s.best && *s.best >= db.configs.size()) s.best.reset();
  }
  tuner::save_database(dir / "configs/sm90/jagged_sum.json", db);
  try {
    generate_files(options_for(dir));
    FAIL() << "emit accepted a database with another config list";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("re-tune"), std::string::npos) << e.what();
  }
}

TEST(Emit, RejectsAnArchitectureMissingFromTheManifest) {
  TempDir dir;
  test::write_manifest(dir / "configs", {"sm90"});
  EmitOptions options = options_for(dir);
  options.archs = {"sm100"};
  EXPECT_THROW(generate_files(options), InvalidArgument);
}

TEST(Sha256, MatchesKnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(DoubleLiteral, ReadsBackExactly) {
  for (const double v : {64.0, 0.0, -3.5, 45.254833995939045, 1e300, 3.0e-7, 0.1}) {
    const std::string s = double_literal(v);
    EXPECT_EQ(std::stod(s), v) << s;
    EXPECT_NE(s.find_first_of(".e"), std::string::npos) << s;
  }
  EXPECT_THROW(double_literal(std::numeric_limits<double>::infinity()), InvalidArgument);
}

}  // namespace
}  // namespace aotune::codegen
