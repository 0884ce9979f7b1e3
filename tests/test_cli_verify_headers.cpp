// `aot-runner verify`'s last check, the generated headers, on a small checkout of the test's own:
// every kernel's database timed by the simulated device's cost model on a small grid and marked
// real (so emit fits it), and the headers `emit` writes from them. The committed tree's verify
// takes minutes (a cross-validated fit of about a thousand shapes per kernel); this one takes
// seconds, so the header check and --tuning-only, which skips it, are tested on every run.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/heuristics_test_support.h"
#include "tests/tuner_cli_support.h"

namespace aotune {
namespace {

using tuner_test::CliResult;
using tuner_test::run_cli;
namespace fs = std::filesystem;

// configs/ (manifest for sm90 and a database per kernel), grids/ and generated/ (emit's headers).
void write_small_checkout(const fs::path& root) {
  test::write_manifest((root / "configs").string(), {"sm90"});
  for (const TunableKernel* k : all_kernels()) {
    const std::string name(k->name());
    tuner_test::write_grid(root / "grids", {{"kernel", name}, {"generators", test::small_grid(name)}});
    tuner::save_database((root / "configs" / "sm90" / (name + ".json")).string(),
                         test::cost_model_database(name, test::small_grid(name), "sm90", true));
  }
  const CliResult emit =
      run_cli({"emit", "--configs", (root / "configs").string(), "--out", (root / "generated").string()}, root);
  ASSERT_EQ(emit.exit_code, 0) << emit.err;
}

std::vector<std::string> verify_args(const fs::path& root, std::vector<std::string> extra) {
  std::vector<std::string> args = {"verify",     "--configs",        (root / "configs").string(),
                                   "--grid-dir", (root / "grids").string(), "--generated-dir",
                                   (root / "generated").string(), "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Whether some problem's text holds `what`.
bool has_problem(const nlohmann::json& report, const std::string& what) {
  for (const auto& p : report["problems"]) {
    if (p["problem"].get<std::string>().find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(CliVerify, AHeaderEditedByHandFailsVerifyAndTuningOnlyLeavesTheHeadersUnchecked) {
  tuner_test::TempDir tmp;
  write_small_checkout(tmp.path());
  const CliResult clean = run_cli(verify_args(tmp.path(), {}), tmp.path());
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  const auto clean_report = nlohmann::json::parse(clean.out);
  EXPECT_TRUE(clean_report["ok"].get<bool>());
  EXPECT_TRUE(clean_report["headers_checked"].get<bool>());

  const fs::path header = tmp / "generated" / "heuristic_sm90.h";
  ASSERT_TRUE(fs::exists(header));
  tuner_test::write_text(header, tuner_test::read_text(header) + "// an edit by hand\n");
  const CliResult edited = run_cli(verify_args(tmp.path(), {}), tmp.path());
  EXPECT_EQ(edited.exit_code, 1) << edited.err;
  const auto edited_report = nlohmann::json::parse(edited.out);
  EXPECT_FALSE(edited_report["ok"].get<bool>());
  EXPECT_TRUE(has_problem(edited_report, header.string() + " differs from what emit generates")) << edited.out;

  // --tuning-only refits nothing, so the edited header passes, and says it was not checked.
  const CliResult tuning_only = run_cli(verify_args(tmp.path(), {"--tuning-only"}), tmp.path());
  EXPECT_EQ(tuning_only.exit_code, 0) << tuning_only.err;
  const auto tuning_report = nlohmann::json::parse(tuning_only.out);
  EXPECT_TRUE(tuning_report["ok"].get<bool>());
  EXPECT_FALSE(tuning_report["headers_checked"].get<bool>());
  const CliResult text = run_cli({"verify", "--configs", (tmp / "configs").string(), "--grid-dir",
                                  (tmp / "grids").string(), "--tuning-only"},
                                 tmp.path());
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("generated headers not checked (--tuning-only)"), std::string::npos) << text.out;
}

TEST(CliVerify, TuningOnlyStillFailsOnAShapeTheDatabaseLacks) {
  tuner_test::TempDir tmp;
  write_small_checkout(tmp.path());
  const fs::path db = tmp / "configs" / "sm90" / "jagged_dense_add.json";
  auto j = nlohmann::ordered_json::parse(tuner_test::read_text(db));
  const std::string dropped = j["shapes"].back()["key"];
  j["shapes"].erase(j["shapes"].size() - 1);
  tuner_test::write_text(db, j.dump(2) + "\n");
  const CliResult r = run_cli(verify_args(tmp.path(), {"--tuning-only"}), tmp.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_FALSE(report["ok"].get<bool>());
  EXPECT_TRUE(has_problem(report, "cache miss: shape " + dropped)) << r.out;
  EXPECT_NE(r.err.find("aot-runner tune -k jagged_dense_add --resume"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aotune
