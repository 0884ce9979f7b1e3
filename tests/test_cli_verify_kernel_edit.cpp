// `aot-runner verify --source-root`: a copy of the source tree whose kernel was edited after tuning
// fails verify, naming that kernel; the hashes it computes are the build's
// (source_hash/kernel_source_hashes.h; what they leave out: test_source_hash_kernel_folders.cpp).
// No GPU and no rebuild: the copy is hashed by the binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tuner_cli_support.h"

namespace aotune {
namespace {

using tuner_test::CliResult;
using tuner_test::run_cli;
using tuner_test::TempDir;
namespace fs = std::filesystem;

// The source tree without build folders, outputs and git metadata.
fs::path copy_source_tree(const TempDir& tmp) {
  const fs::path src = AOTUNE_SOURCE_DIR;
  const fs::path dst = tmp / "tree";
  fs::create_directories(dst);
  for (const auto& e : fs::directory_iterator(src)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("build") || name == "out" || name.starts_with(".")) continue;
    fs::copy(e.path(), dst / name, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  return dst;
}

// --tuning-only: these tests are about the hashes and the databases, and the refit that checks the
// headers took minutes per verify (three verifies in one case took 1078 s on a 2-core machine);
// the header check has its own test (test_cli_verify_headers.cpp).
nlohmann::json verify_json(const fs::path& tree, const TempDir& tmp, CliResult* result) {
  *result = run_cli({"verify", "--source-root", tree.string(), "--json", "--tuning-only"}, tmp.path());
  return nlohmann::json::parse(result->out);
}

// Problems naming `kernel`, as "kernel arch: problem" lines.
std::set<std::string> problems_of(const nlohmann::json& report, const std::string& kernel) {
  std::set<std::string> out;
  for (const auto& p : report["problems"]) {
    if (p["kernel"] == kernel) out.insert(p["arch"].get<std::string>() + ": " + p["problem"].get<std::string>());
  }
  return out;
}

TEST(CliVerifyKernelEdit, SourceRootHashesATreeExactlyAsTheBuildDoes) {
  TempDir tmp;
  const fs::path tree = copy_source_tree(tmp);
  CliResult verify;
  const nlohmann::json report = verify_json(tree, tmp, &verify);
  const CliResult list = run_cli({"list", "--json"}, tmp.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  // The copy is this build's tree, so the recomputed hash equals the compiled one. One kernel
  // suffices to prove the algorithm (the same for every folder); jagged_dense_add is the one whose
  // sources change least, so an edit elsewhere after this build does not make this test fail.
  for (const auto& k : nlohmann::json::parse(list.out)) {
    if (k["kernel"] != "jagged_dense_add") continue;
    ASSERT_TRUE(report["source_hashes"].contains("jagged_dense_add")) << verify.out;
    EXPECT_EQ(report["source_hashes"]["jagged_dense_add"], k["source_hash"])
        << "kernels/jagged_dense_add or kernels/common changed since this build was configured?";
  }
  EXPECT_EQ(report["source_hashes_from"], tree.string());
}

TEST(CliVerifyKernelEdit, AKernelEditedAfterTuningFailsVerifyNamingThatKernel) {
  TempDir tmp;
  const fs::path tree = copy_source_tree(tmp);
  CliResult before_run;
  const nlohmann::json before = verify_json(tree, tmp, &before_run);
  // The committed tuning matches the tree as checked out: nothing is wrong with this kernel yet.
  ASSERT_TRUE(problems_of(before, "jagged_dense_add").empty()) << before_run.out;

  std::ofstream(tree / "kernels/jagged_dense_add/jagged_dense_add_kernels.cuh", std::ios::app)
      << "\nstatic_assert(true, \"an edit after tuning\");\n";
  CliResult after_run;
  const nlohmann::json after = verify_json(tree, tmp, &after_run);
  EXPECT_EQ(after_run.exit_code, 1) << after_run.err;
  EXPECT_FALSE(after["ok"].get<bool>());
  const std::set<std::string> edited = problems_of(after, "jagged_dense_add");
  ASSERT_EQ(edited.size(), 1u) << after_run.out;
  EXPECT_NE(edited.begin()->find("kernel jagged_dense_add changed after tuning"), std::string::npos)
      << *edited.begin();
  EXPECT_NE(after_run.err.find("verify: FAIL jagged_dense_add"), std::string::npos) << after_run.err;
  EXPECT_NE(after["source_hashes"]["jagged_dense_add"], before["source_hashes"]["jagged_dense_add"]);
  // Kernels in other folders are judged exactly as before the edit.
  for (const char* other : {"jagged_sum", "jagged_mean"}) {
    EXPECT_EQ(problems_of(after, other), problems_of(before, other)) << other;
    EXPECT_EQ(after["source_hashes"][other], before["source_hashes"][other]) << other;
  }
}

TEST(CliVerifyKernelEdit, ASourceRootThatIsNotACheckoutIsAUsageError) {
  TempDir tmp;
  const CliResult missing =
      run_cli({"verify", "--source-root", (tmp / "nowhere").string()}, tmp.path());
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("is not a folder"), std::string::npos) << missing.err;
  const CliResult empty = run_cli({"verify", "--source-root", tmp.path().string()}, tmp.path());
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_NE(empty.err.find("no kernels/ folder"), std::string::npos) << empty.err;
}

// verify takes the configs folder as --configs (fit's and emit's name) or --configs-dir, and a
// folder without a manifest names the path and the option.
TEST(CliVerify, AConfigsFolderWithoutAManifestNamesItAndTheOption) {
  TempDir tmp;
  for (const char* option : {"--configs", "--configs-dir"}) {
    const CliResult r = run_cli({"verify", option, tmp.path().string()}, tmp.path());
    EXPECT_EQ(r.exit_code, 2) << option << ": " << r.err;
    EXPECT_NE(r.err.find("no manifest at " + (tmp / "manifest.json").string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--configs DIR"), std::string::npos) << r.err;
  }
}

// A path the system refuses (here one over NAME_MAX) is bad input: exit 2 with the path and the
// system's reason, where std::filesystem's exception used to surface as "internal error" (exit 4).
TEST(CliErrors, APathTheSystemRefusesIsAUsageErrorNamingIt) {
  TempDir tmp;
  const std::string long_name = (tmp / std::string(300, 'y')).string();
  const std::string db = (fs::path(AOTUNE_SOURCE_DIR) / "configs" / "sm90" / "jagged_sum.json").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"verify", "--configs", long_name},
        std::vector<std::string>{"fit", "--kernel", "jagged_sum", "--arch", "sm90", "--configs", long_name},
        std::vector<std::string>{"verify", "--source-root", long_name},
        std::vector<std::string>{"merge", db, long_name, "-o", (tmp / "merged.json").string()}}) {
    const CliResult r = run_cli(args, tmp.path());
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(long_name), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("File name too long"), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << args[0] << ": " << r.err;
  }
}

// kernels/common is part of every kernel's hash, except the host-side input generator
// (host_data.*): input values never change a timing, so it may change without a re-tune, while an
// edit to a shared file the timings do depend on (row lengths) invalidates every kernel.
TEST(CliVerifyKernelEdit, TheInputGeneratorIsOutsideEveryHashAndOtherCommonFilesAreInside) {
  TempDir tmp;
  const fs::path tree = copy_source_tree(tmp);
  CliResult before_run;
  const nlohmann::json before = verify_json(tree, tmp, &before_run);
  ASSERT_FALSE(before["source_hashes"].empty()) << before_run.out;

  std::ofstream(tree / "kernels/common/host_data.cpp", std::ios::app)
      << "\nstatic_assert(true, \"a new input builder\");\n";
  CliResult generator_run;
  const nlohmann::json generator = verify_json(tree, tmp, &generator_run);
  EXPECT_EQ(generator["source_hashes"], before["source_hashes"]) << generator_run.out;

  std::ofstream(tree / "kernels/common/jagged_lengths.cpp", std::ios::app)
      << "\nstatic_assert(true, \"new row lengths\");\n";
  CliResult lengths_run;
  const nlohmann::json lengths = verify_json(tree, tmp, &lengths_run);
  for (const auto& [kernel, hash] : before["source_hashes"].items()) {
    EXPECT_NE(lengths["source_hashes"][kernel], hash) << kernel;
  }
}

// A kernel's heuristic features (<kernel>_features.cpp) are outside its hash too (they never change
// a timing); verify compares the features the databases store with this build's code instead, and
// names `refresh-features` as the fix.
TEST(CliVerifyKernelEdit, FeaturesAreOutsideTheHashAndStaleStoredFeaturesFailVerify) {
  TempDir tmp;
  const fs::path tree = copy_source_tree(tmp);
  CliResult before_run;
  const nlohmann::json before = verify_json(tree, tmp, &before_run);
  ASSERT_TRUE(problems_of(before, "jagged_dense_add").empty()) << before_run.out;

  std::ofstream(tree / "kernels/jagged_dense_add/jagged_dense_add_features.cpp", std::ios::app)
      << "\nstatic_assert(true, \"a features edit\");\n";
  CliResult features_run;
  const nlohmann::json features = verify_json(tree, tmp, &features_run);
  EXPECT_EQ(features["source_hashes"], before["source_hashes"]) << features_run.out;

  const fs::path db = tree / "configs/sm90/jagged_dense_add.json";
  auto j = nlohmann::ordered_json::parse(tuner_test::read_text(db));
  j["shapes"][1]["features"]["B"] = j["shapes"][1]["features"]["B"].get<double>() + 1;
  tuner_test::write_text(db, j.dump(2) + "\n");
  CliResult stale_run;
  const nlohmann::json stale = verify_json(tree, tmp, &stale_run);
  EXPECT_EQ(stale_run.exit_code, 1) << stale_run.err;
  bool named = false;
  for (const auto& p : stale["problems"]) {
    if (p["kernel"] != "jagged_dense_add") continue;
    const std::string what = p["problem"], fix = p["fix"];
    if (what.find("1 of " + std::to_string(j["shapes"].size()) + " shapes") != std::string::npos && what.find("'B'") != std::string::npos) {
      named = true;
      EXPECT_NE(fix.find("aot-runner refresh-features -k jagged_dense_add"), std::string::npos) << fix;
    }
  }
  EXPECT_TRUE(named) << stale_run.out;
}

}  // namespace
}  // namespace aotune
