// The hot path shared by every kernel's entry point: find the heuristic for the device's
// architecture (or none), walk its tree on the features, and take the first legal config of the
// leaf's list, the fallback list, the default config or the whole space. No allocation on the
// tuned path; the store is shared, read-only, behind one short lock.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aotune/heuristic_store.h"
#include "dispatch/src/kernel_heuristic_check.h"
#include "dispatch/src/selection_log.h"
#include "heuristics/row_bound.h"
#include "heuristics/tree_node.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune::dispatch {

struct Selection {
  uint32_t config = 0;  // index in the kernel's config space
  heuristics::ChoiceSource source = heuristics::ChoiceSource::none;
  int arch_used = 0;  // architecture whose heuristic chose; 0: none applied (default config)
};

// Logs, once per (kernel, device architecture), that no tuned heuristic applies.
void warn_untuned_once(std::string_view kernel, int device_arch, const HeuristicStore& store);

[[noreturn]] void throw_no_legal_config(std::string_view kernel);

// forest_costs() of `x` (h's features, in order) on h's forest, remembered per thread: a call
// with the same heuristic and bit-identical features as one of that heuristic's last four
// distinct shapes on this thread reads them back instead of walking the trees again. A model
// calls a kernel with the same shape step after step (a dense kernel nearly always, a jagged one
// while its batch sizes repeat), or a few shapes in turn (its layers), and the walk is most of a
// forest's selection (PERF.md, Selection speed). Only the costs are
// kept: legality depends on the call's pointers and is checked on every call. h.uid must be set.
const int64_t* memoized_forest_costs(const KernelHeuristic& h, const heuristics::HeuristicView& view,
                                     const double* x, std::size_t n);

// The ids of every config of `kernel`, formatted once per process for all registered kernels: the
// row bound reads them on long-row calls, which then allocate nothing either.
const std::vector<std::string>& config_ids(const TunableKernel& kernel);

template <typename IsLegal>
Selection select_config(const HeuristicStore& store, std::string_view kernel, int device_arch,
                        const Features& features, uint32_t default_config, uint32_t space_size,
                        IsLegal&& legal) {
  const KernelHeuristic* h = store.for_device(kernel, device_arch);
  std::array<double, kMaxFeatures> x{};
  heuristics::HeuristicView view;
  if (h != nullptr && h->features.size() == features.size()) {
    for (std::size_t i = 0; i < features.size(); ++i) x[i] = features[i].second;
    view = h->view();
  } else {
    h = nullptr;
    warn_untuned_once(kernel, device_arch, store);
  }
  // Past the row bound (heuristics/row_bound.h; rare, and only where one row is long) the
  // configs that hold a row in one block or warp too slowly for it are passed over, as the
  // fitter's scoring did. The cheap check, at the slowest rate any config has, comes first.
  const bool bound = heuristics::longest_row_past_bound(kernel, features);
  const TunableKernel* k = bound ? &find_kernel(kernel) : nullptr;
  const heuristics::RowBoundFeatures row = bound ? heuristics::row_bound_features(features) : heuristics::RowBoundFeatures{};
  const int64_t* costs = h != nullptr && view.num_trees > 0 && h->uid != 0
                             ? memoized_forest_costs(*h, view, x.data(), features.size())
                             : nullptr;
  const heuristics::Choice c = heuristics::choose_config_avoiding(
      view, x.data(), default_config, space_size, legal,
      [&](uint32_t i) {
        return k != nullptr && heuristics::config_past_row_bound(kernel, config_ids(*k)[i], row);
      },
      costs);
  if (c.source == heuristics::ChoiceSource::none) throw_no_legal_config(kernel);
  const int arch_used = h != nullptr ? h->arch : 0;
  if (selection_log_on.load(std::memory_order_relaxed)) [[unlikely]] {
    process_selection_log().record(
        {.kernel = kernel,
         .device_arch = device_arch,
         .features = &features,
         .config_id = config_ids(find_kernel(kernel))[c.config],
         .source = c.source,
         .rank = c.rank,
         .arch_used = arch_used,
         .heuristic_source = h != nullptr ? std::string_view(h->source) : std::string_view()});
  }
  return {c.config, c.source, arch_used};
}

// Index of the kernel's safe default config (heuristics/kernel_defaults.h) in its space.
uint32_t default_config_index(const TunableKernel& kernel);

}  // namespace aotune::dispatch
