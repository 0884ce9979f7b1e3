// The heuristics compiled in from heuristics/generated/ load, match their kernels, and are what
// the process-wide store serves when no override directory is set.
#include <gtest/gtest.h>

#include <cstdlib>

#include "aotune/arch_fallback.h"
#include "aotune/heuristic_store.h"
#include "heuristics/generated/heuristic_archs.h"
#include "kernels/common/registry.h"

namespace aotune::dispatch {
namespace {

std::size_t tuned_tables() {
  std::size_t n = 0;
  auto count = [&]<typename... Tables>(heuristics::TableList<Tables...>) {
    ((n += Tables::tree.empty() ? 0 : 1), ...);
  };
#define AOTUNE_COUNT_ARCH(arch) count(generated::arch::kernels{});
  AOTUNE_GENERATED_ARCHS(AOTUNE_COUNT_ARCH)
#undef AOTUNE_COUNT_ARCH
  return n;
}

TEST(CompiledHeuristics, EveryTunedTableLoadsWithoutWarnings) {
  std::vector<std::string> warnings;
  const std::vector<KernelHeuristic> compiled = compiled_heuristics(&warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(compiled.size(), tuned_tables());
  for (const KernelHeuristic& h : compiled) {
    const TunableKernel& kernel = find_kernel(h.kernel);
    ASSERT_EQ(h.configs.size(), h.config_ids.size());
    for (std::size_t i = 0; i < h.configs.size(); ++i) {
      EXPECT_EQ(kernel.config_id(h.configs[i]), h.config_ids[i]) << h.kernel;
    }
    EXPECT_EQ(h.source, "compiled");
  }
}

TEST(CompiledHeuristics, AreWhatTheStoreServesWithoutOverrides) {
  ::unsetenv("AOTUNE_HEURISTIC_DIR");
  reload_heuristics();
  const auto store = current_store();
  for (const KernelHeuristic& h : compiled_heuristics(nullptr)) {
    const KernelHeuristic* served = store->for_device(h.kernel, h.arch);
    ASSERT_NE(served, nullptr) << h.kernel;
    EXPECT_EQ(served->arch, h.arch);
    EXPECT_EQ(served->source, "compiled");
  }
}

}  // namespace
}  // namespace aotune::dispatch
