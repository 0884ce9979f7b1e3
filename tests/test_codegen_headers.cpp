// Generated headers compile on their own: the committed ones, and one holding every config of every
// kernel (so each config binding's designated initialisers match the kernel's Config struct).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/header_writer.h"
#include "heuristics/generated/heuristic_archs.h"
#include "heuristics/kernel_defaults.h"
#include "heuristics/kernel_features.h"
#include "kernels/common/registry.h"
#include "tests/heuristics_test_support.h"

namespace aotune::codegen {
namespace {

namespace fs = std::filesystem;

// Compiles a file holding only `#include <header>` with the project's host compiler (syntax
// only, warnings as errors); empty on success, else the command and its output.
std::string compile_alone(const std::string& header, const test::TempDir& dir) {
  const std::string log = dir / "compile.log";
  const std::string tu = dir / "include_only.cpp";
  std::ofstream(tu) << "#include \"" << header << "\"\n";
  const std::string command =
      std::string(AOTUNE_HOST_CXX) + " -std=c++20 -Wall -Wextra -Werror -fsyntax-only -I" +
      AOTUNE_SOURCE_DIR + " -isystem " + AOTUNE_CUDA_INCLUDE_DIR + " " + tu + " > " + log + " 2>&1";
  if (std::system(command.c_str()) == 0) return {};
  std::ifstream in(log);
  return command + "\n" + std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(GeneratedHeaders, EachCommittedHeaderCompilesOnItsOwn) {
  test::TempDir dir;
  int headers = 0;
  for (const auto& entry :
       fs::directory_iterator(fs::path(AOTUNE_SOURCE_DIR) / "heuristics/generated")) {
    if (entry.path().extension() != ".h") continue;
    ++headers;
    EXPECT_EQ(compile_alone(entry.path().string(), dir), "") << entry.path();
  }
  EXPECT_GE(headers, 2);  // heuristic_archs.h and at least one architecture
}

// Every kernel tuned with its whole config space and a one-split tree.
ArchHeuristics every_config() {
  ArchHeuristics h;
  h.arch = "sm90";
  for (const TunableKernel* k : all_kernels()) {
    KernelEntry e;
    e.kernel = std::string(k->name());
    e.features = heuristics::current_feature_names(*k);
    e.default_config_id = std::string(heuristics::default_config_id(k->name()));
    DatabaseIdentity db;
    db.path = "configs/sm90/" + e.kernel + ".json";
    db.device = "Test GPU";
    e.database = db;
    e.scores = FitScores{};
    for (std::size_t c = 0; c < k->num_configs(); ++c) {
      e.config_ids.push_back(k->config_id(c));
      e.config_json.push_back(k->config_json(c));
      e.model.configs.push_back(static_cast<uint32_t>(c));
      e.model.fallback.push_back(static_cast<uint16_t>(c));
    }
    e.model.nodes = {{0, 1, 2, 2.5}, {-1, 0, 1, 0.0}, {-1, 1, 1, 0.0}};
    e.model.leaf_configs = {0, 1};
    h.kernels.push_back(std::move(e));
  }
  return h;
}

TEST(GeneratedHeaders, AHeaderWithEveryConfigOfEveryKernelCompiles) {
  test::TempDir dir;
  const std::string path = dir / "heuristic_sm90.h";
  std::ofstream(path) << render_header(every_config());
  EXPECT_EQ(compile_alone(path, dir), "");
}

TEST(GeneratedHeaders, CommittedTablesNameTheKernelsFeaturesInOrder) {
  // The dispatch library feeds features by position: a header whose list differs is unusable.
  auto check = [](auto tables) {
    using T = decltype(tables);
    const std::vector<std::string> now = heuristics::current_feature_names(find_kernel(T::kernel));
    ASSERT_EQ(T::features.size(), now.size()) << T::kernel;
    for (std::size_t i = 0; i < now.size(); ++i) EXPECT_EQ(T::features[i], now[i]) << T::kernel;
    EXPECT_EQ(T::configs.size(), T::config_ids.size());
  };
  auto each = [&]<typename... Tables>(heuristics::TableList<Tables...>) { (check(Tables{}), ...); };
#define AOTUNE_CHECK_ARCH(arch) each(generated::arch::kernels{});
  AOTUNE_GENERATED_ARCHS(AOTUNE_CHECK_ARCH)
#undef AOTUNE_CHECK_ARCH
}

}  // namespace
}  // namespace aotune::codegen
