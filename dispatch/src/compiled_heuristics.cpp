// The heuristics compiled in from heuristics/generated/: every architecture's header, every
// kernel's table struct, turned into checked KernelHeuristics once.
#include <fmt/core.h>

#include <string>
#include <string_view>
#include <vector>

#include "aotune/arch_fallback.h"
#include "aotune/heuristic_store.h"
#include "dispatch/src/kernel_heuristic_check.h"
#include "heuristics/leaf_cost_text.h"
// Absent only in a tree where the generated files were deleted to rebuild aot-runner after a
// kernel change broke them (the aggregates no longer compile); `aot-runner emit` recreates them.
#if __has_include("heuristics/generated/heuristic_archs.h")
#include "heuristics/generated/heuristic_archs.h"
#else
#define AOTUNE_GENERATED_ARCHS(X)
#endif
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"

namespace aotune::dispatch {

namespace {

template <typename Tables>
void add_kernel(std::vector<KernelHeuristic>& out, std::vector<std::string>* warnings, int arch) {
  // Untuned kernels have empty tables: nothing to add, and nothing to instantiate for them.
  if constexpr (!Tables::tree.empty()) {
    KernelHeuristic h;
    h.kernel = std::string(Tables::kernel);
    h.arch = arch;
    h.source = "compiled";
    try {
      for (const std::string_view f : Tables::features) h.features.emplace_back(f);
      for (std::size_t i = 0; i < Tables::configs.size(); ++i) {
        // The aggregate is what runs; its id (found through the kernel's own config_id) must be
        // the one the table was emitted with, or the header is stale against the kernel code.
        const std::string id = config_id(Tables::configs[i]);
        if (id != Tables::config_ids[i]) {
          throw InvalidArgument(fmt::format("config {} is {} but the table names it {}", i, id,
                                            Tables::config_ids[i]));
        }
        h.config_ids.push_back(id);
      }
      h.nodes.assign(Tables::tree.begin(), Tables::tree.end());
      h.leaf_configs.assign(Tables::leaf_configs.begin(), Tables::leaf_configs.end());
      h.fallback.assign(Tables::fallback.begin(), Tables::fallback.end());
      h.roots.assign(Tables::roots.begin(), Tables::roots.end());
      const std::string_view costs(Tables::leaf_values, sizeof(Tables::leaf_values) - 1);  // less the NUL
      if (!heuristics::decode_leaf_costs(costs, h.leaf_values) || h.leaf_values.size() != Tables::num_leaf_values) {
        throw InvalidArgument(fmt::format("its leaf_values text ({} characters) is not {} costs of {} characters",
                                          costs.size(), Tables::num_leaf_values, heuristics::kLeafCostChars));
      }
      resolve_and_check(h, find_kernel(h.kernel));
      out.push_back(std::move(h));
    } catch (const Error& e) {
      if (warnings) {
        warnings->push_back(fmt::format(
            "compiled heuristic {} for {} is unusable (regenerate it with aot-runner emit): {}",
            arch_name(arch), Tables::kernel, e.what()));
      }
    }
  }
}

template <typename... Tables>
void add_arch(std::vector<KernelHeuristic>& out, std::vector<std::string>* warnings,
              const char* arch, heuristics::TableList<Tables...>) {
  const int number = parse_arch_name(arch);
  (add_kernel<Tables>(out, warnings, number), ...);
}

}  // namespace

std::vector<KernelHeuristic> compiled_heuristics(std::vector<std::string>* warnings) {
  std::vector<KernelHeuristic> out;
  (void)warnings;  // unused when no architecture is generated
#define AOTUNE_ADD_GENERATED_ARCH(arch) add_arch(out, warnings, #arch, generated::arch::kernels{});
  AOTUNE_GENERATED_ARCHS(AOTUNE_ADD_GENERATED_ARCH)
#undef AOTUNE_ADD_GENERATED_ARCH
  return out;
}

}  // namespace aotune::dispatch
