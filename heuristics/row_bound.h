// The one rule a heuristic takes from outside its database: a bandwidth bound on configs that
// reduce each row inside one thread block (jagged_sum / jagged_mean's block_row and group_row).
//
// Such a config cannot finish before its longest row has streamed through one block. The fastest
// any of them moved one row in the sm90 databases is 38-39 GB/s; at a generous 100 GB/s, when
// that row alone takes longer than the whole problem at the copy ceiling plus a launch, the config
// is at least ~2.6x off the ideal, where the configs that split rows over blocks (nnz_split) come
// within 1.1-1.5x on large shapes. On the session-8 databases no shape past the bound has a
// row-per-block config within 1.2x of its best (42 jagged_sum and 45 jagged_mean shapes), and
// where such a config is competitive the ratio is at most 0.65.
//
// The trees cannot learn this where the grid has no such shape: the peer benchmark's one_huge
// (B=2048 M=256 bf16, one 200000-element row of 102 MB among 2047 rows of about 1560) fell in a
// leaf learnt from long uniform rows and got block_row.t512 at 5.4 ms, against 0.57 ms for
// nnz_split. So the fitter's scoring (route()), the dispatch library and `explain` all pass over
// such configs when the bound holds and any other legal config exists. Header-only: the dispatch
// library uses it without the fitting code.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "heuristics/tree_node.h"

namespace aotune::heuristics {

inline constexpr double kOneBlockBytesPerUs = 100e3;  // 100 GB/s
inline constexpr double kCopyCeilingBytesPerUs = 4.3e6;  // the H200's copy ceiling (BENCH.md)
inline constexpr double kLaunchUs = 5.0;

// Whether some of `kernel`'s configs hold a row in one block (the only kernels the bound concerns).
inline bool has_row_per_block_configs(std::string_view kernel) {
  return kernel == "jagged_sum" || kernel == "jagged_mean";
}

// Whether config `id` of `kernel` is one of those: block_row (a block per row), group_row and
// flat_row (a group of lanes inside one warp per row). nnz_split and flat_scan spread rows over
// blocks. (Left out of this list in session 19, flat_row took a held-out one_huge shape at 73x.)
inline bool reduces_each_row_in_one_block(std::string_view kernel, std::string_view id) {
  return has_row_per_block_configs(kernel) &&
         (id.starts_with("block_row.") || id.starts_with("group_row.") || id.starts_with("flat_row."));
}

// The bound itself, on the jagged_reduce features (kernels/jagged_reduce, features()).
inline bool longest_row_past_bound(double max_row_elems, double elem_bytes, double log2_bytes) {
  const double row_us = max_row_elems * elem_bytes / kOneBlockBytesPerUs;
  const double ideal_us = std::exp2(log2_bytes) / kCopyCeilingBytesPerUs + kLaunchUs;
  return row_us > ideal_us;
}

// The same, with the features looked up by name: `at(i)` gives the i-th (name, value) of n.
// False for a kernel without these features or one whose configs the bound spares. No allocation:
// the dispatch library calls it on every jagged call.
template <typename At>
bool longest_row_past_bound_at(std::string_view kernel, std::size_t n, At&& at) {
  if (!has_row_per_block_configs(kernel)) return false;
  double row = -1, elem = -1, log2_bytes = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const auto [name, value] = at(i);
    if (name == "max_row_elems") row = value;
    if (name == "elem_bytes") elem = value;
    if (name == "log2_bytes") log2_bytes = value;
  }
  return row >= 0 && elem > 0 && log2_bytes >= 0 && longest_row_past_bound(row, elem, log2_bytes);
}

// On parallel name and value lists (the fitter's training set).
inline bool longest_row_past_bound(std::string_view kernel, const std::vector<std::string>& names,
                                   const double* values) {
  return longest_row_past_bound_at(kernel, names.size(), [&](std::size_t i) {
    return std::pair<std::string_view, double>(names[i], values[i]);
  });
}

// On a (name, value) list, as ProblemInfo and the dispatch library hold features.
inline bool longest_row_past_bound(std::string_view kernel,
                                   const std::vector<std::pair<std::string, double>>& features) {
  return longest_row_past_bound_at(kernel, features.size(), [&](std::size_t i) {
    return std::pair<std::string_view, double>(features[i].first, features[i].second);
  });
}

// choose_config(), passing over the configs `avoid` names while any other legal choice exists.
template <typename IsLegal, typename Avoid>
Choice choose_config_avoiding(const HeuristicView& h, const double* features, uint32_t default_config,
                              uint32_t space_size, IsLegal&& legal, Avoid&& avoid) {
  const Choice c = choose_config(h, features, default_config, space_size,
                                 [&](uint32_t i) { return legal(i) && !avoid(i); });
  return c.source == ChoiceSource::none ? choose_config(h, features, default_config, space_size, legal) : c;
}

}  // namespace aotune::heuristics
