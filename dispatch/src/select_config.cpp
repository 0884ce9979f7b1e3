#include "dispatch/src/select_config.h"

#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "aotune/arch_fallback.h"
#include "dispatch/src/library_log.h"
#include "heuristics/kernel_defaults.h"

namespace aotune::dispatch {

void warn_untuned_once(std::string_view kernel, int device_arch, const HeuristicStore& store) {
  static std::mutex mutex;
  static std::set<std::pair<std::string, int>, std::less<>> warned;
  {
    const std::lock_guard lock(mutex);
    if (!warned.emplace(std::string(kernel), device_arch).second) return;
  }
  const std::vector<int> tuned = store.tuned_archs(kernel);
  std::string list;
  for (const int a : tuned) list += (list.empty() ? "" : ", ") + arch_name(a);
  library_log().warn(
      "aotune: {} has no heuristic for {} or an older architecture (tuned: {}); running the safe "
      "default "
      "config {}, which may be far slower than a tuned choice",
      kernel, arch_name(device_arch), list.empty() ? "none" : list,
      heuristics::default_config_id(kernel));
}

void throw_no_legal_config(std::string_view kernel) {
  throw InvalidArgument(
      std::string(kernel) +
      ": no config of the kernel supports this problem (alignment or size limits)");
}

const std::vector<std::string>& config_ids(const TunableKernel& kernel) {
  static const std::map<const TunableKernel*, std::vector<std::string>> ids = [] {
    std::map<const TunableKernel*, std::vector<std::string>> m;
    for (const TunableKernel* k : all_kernels()) {
      std::vector<std::string>& v = m[k];
      for (std::size_t i = 0; i < k->num_configs(); ++i) v.push_back(k->config_id(i));
    }
    return m;
  }();
  return ids.at(&kernel);
}

const int64_t* memoized_forest_costs(const KernelHeuristic& h, const heuristics::HeuristicView& view,
                                     const double* x, std::size_t n) {
  // A set of kWays entries per heuristic, direct-mapped by uid: a store's heuristics have
  // consecutive uids, so up to kSlots kernels x architectures called in turn on one thread never
  // evict each other. The ways keep a heuristic's last kWays distinct shapes (the oldest filled
  // is replaced first), so a model whose layers call one kernel with two to four shapes in turn
  // (a causal_trailing_mean per (D, cf) pair, say) walks its forest once per shape, not per call
  // (PERF.md, Session 61). 8 x 4 x 1.1 KB of thread-local storage.
  struct Entry {
    uint64_t uid = 0;
    std::array<double, kMaxFeatures> x{};
    std::array<int64_t, heuristics::kMaxForestConfigs> cost{};
  };
  constexpr std::size_t kSlots = 8, kWays = 4;
  struct Set {
    std::array<Entry, kWays> ways{};
    std::size_t next = 0;  // the way to fill on the next miss
  };
  thread_local std::array<Set, kSlots> memo;
  Set& set = memo[h.uid % kSlots];
  // Bitwise: the same bits walk to the same leaves (a NaN included); -0.0 against 0.0 only misses.
  for (Entry& e : set.ways)
    if (e.uid == h.uid && std::memcmp(e.x.data(), x, n * sizeof(double)) == 0) return e.cost.data();
  Entry& e = set.ways[set.next];
  set.next = (set.next + 1) % kWays;
  heuristics::forest_costs(view, x, e.cost.data());
  std::memcpy(e.x.data(), x, n * sizeof(double));
  e.uid = h.uid;
  return e.cost.data();
}

uint32_t default_config_index(const TunableKernel& kernel) {
  const std::string_view id = heuristics::default_config_id(kernel.name());
  for (std::size_t i = 0; i < kernel.num_configs(); ++i) {
    if (kernel.config_id(i) == id) return static_cast<uint32_t>(i);
  }
  return 0;
}

}  // namespace aotune::dispatch
