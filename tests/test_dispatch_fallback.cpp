// The architecture fallback table: exact architecture, nearest older tuned one, newest tuned for a
// future architecture, the default for a device older than every tuned one.
#include <gtest/gtest.h>

#include <vector>

#include "aotune/arch_fallback.h"
#include "aotune/heuristic_store.h"
#include "kernels/common/errors.h"

namespace aotune {
namespace {

constexpr int kAllTuned[] = {80, 86, 89, 90, 100, 120};
constexpr int kOnlySm90[] = {90};

// The table is usable at compile time, like CUB's policy ladders.
static_assert(arch_for_device(90, kOnlySm90) == 90);
static_assert(arch_for_device(130, kAllTuned) == 120);
static_assert(arch_for_device(70, kAllTuned) == 0);

TEST(ArchFallback, EveryTunedArchitectureUsesItsOwnHeuristic) {
  for (const int arch : kAllTuned) EXPECT_EQ(arch_for_device(arch, kAllTuned), arch) << arch;
}

TEST(ArchFallback, AFutureArchitectureUsesTheNewestTunedOne) {
  EXPECT_EQ(arch_for_device(130, kAllTuned), 120);
  EXPECT_EQ(arch_for_device(130, kOnlySm90), 90);
}

TEST(ArchFallback, ADeviceOlderThanEveryTunedOneGetsTheDefault) {
  EXPECT_EQ(arch_for_device(70, kAllTuned), 0);
  EXPECT_EQ(arch_for_device(80, kOnlySm90), 0);
  EXPECT_EQ(arch_for_device(89, kOnlySm90), 0);
}

TEST(ArchFallback, FollowsTheLadderDownToTheNearestOlderTunedOne) {
  const int tuned[] = {80, 90};
  EXPECT_EQ(arch_for_device(120, tuned), 90);
  EXPECT_EQ(arch_for_device(100, tuned), 90);
  EXPECT_EQ(arch_for_device(89, tuned), 80);
  EXPECT_EQ(arch_for_device(86, tuned), 80);
  EXPECT_EQ(arch_for_device(87, tuned), 80);  // sm87 (Orin) is not on the ladder
}

TEST(ArchFallback, ChainListsEveryArchitectureTriedNewestFirst) {
  EXPECT_EQ(fallback_chain(120, kOnlySm90), (std::vector<int>{120, 100, 90}));
  EXPECT_EQ(fallback_chain(130, kOnlySm90), (std::vector<int>{130, 120, 100, 90}));
  EXPECT_EQ(fallback_chain(90, kOnlySm90), (std::vector<int>{90}));
  EXPECT_EQ(fallback_chain(89, kOnlySm90), (std::vector<int>{89, 86, 80}));  // none tuned: default
  EXPECT_EQ(fallback_chain(70, kAllTuned), (std::vector<int>{70}));
  const int off_ladder[] = {103};
  EXPECT_EQ(fallback_chain(120, off_ladder), (std::vector<int>{120, 103}));
}

TEST(ArchFallback, NamesArchitectures) {
  EXPECT_EQ(arch_name(90), "sm90");
  EXPECT_EQ(parse_arch_name("sm120"), 120);
  EXPECT_EQ(parse_arch_name("sm86"), 86);
  for (const char* bad : {"90", "sm", "sm9x", "compute_90", "sm9", ""}) {
    EXPECT_THROW(parse_arch_name(bad), InvalidArgument) << bad;
  }
}

TEST(ArchFallback, TheStoreFollowsTheSameRule) {
  std::vector<dispatch::KernelHeuristic> hs;
  for (const int arch : {80, 90}) {
    dispatch::KernelHeuristic h;
    h.kernel = "jagged_sum";
    h.arch = arch;
    hs.push_back(h);
  }
  const dispatch::HeuristicStore store(hs);
  EXPECT_EQ(store.tuned_archs("jagged_sum"), (std::vector<int>{90, 80}));
  const int tuned[] = {80, 90};
  for (const int device : {70, 80, 86, 89, 90, 100, 120, 130}) {
    const auto* h = store.for_device("jagged_sum", device);
    EXPECT_EQ(h ? h->arch : 0, arch_for_device(device, tuned)) << device;
  }
  EXPECT_EQ(store.for_device("jagged_mean", 90), nullptr);
}

}  // namespace
}  // namespace aotune
