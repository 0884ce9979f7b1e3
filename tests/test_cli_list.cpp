// The CLI's `list` command, run as a user would run it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "aotune/aotune_c.h"
#include "kernels/common/registry.h"
#include "tests/process_support.h"

namespace aotune {
namespace {

TEST(CliList, JsonListsEveryRegisteredKernelWithAtLeast24Configs) {
  int status = -1;
  const std::string out = test::command_output(std::string(AOT_RUNNER_PATH) + " list --json", &status);
  ASSERT_EQ(status, 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j.size(), all_kernels().size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    EXPECT_EQ(j[i]["kernel"], all_kernels()[i]->name());
    EXPECT_GE(j[i]["configs"].get<int>(), 24) << j[i]["kernel"];
  }
}

TEST(CliList, VersionPrintsTheLibraryVersionWithoutACommand) {
  int status = -1;
  const std::string out = test::command_output(std::string(AOT_RUNNER_PATH) + " --version", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out.rfind("aot-runner " + std::to_string(AOTUNE_VERSION_MAJOR) + "." +
                          std::to_string(AOTUNE_VERSION_MINOR) + "." +
                          std::to_string(AOTUNE_VERSION_PATCH) + " (CUDA runtime ",
                      0),
            0u)
      << out;
}

TEST(CliList, AnUnknownSubcommandExitsWithTheUsageCode) {
  int status = -1;
  test::command_output(std::string(AOT_RUNNER_PATH) + " frobnicate 2>&1", &status);
  EXPECT_EQ(status, 2);
}

}  // namespace
}  // namespace aotune
