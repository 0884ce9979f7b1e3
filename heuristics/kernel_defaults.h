// The safe default config of each kernel: legal for every problem the kernel accepts (one element
// per access, no halo limits), run when no tuned heuristic covers the GPU. Scored as
// "default_config" by `fit`, so the gain of tuning over it is always visible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aotune::heuristics {

struct DefaultConfig {
  std::string_view kernel;
  std::string_view config_id;
};

// Chosen from data among the configs legal for every problem, CLBlast-style: the lowest geomean
// slowdown against the per-shape best on the exhaustive H200 sweep of 2026-11-30 (configs/sm90,
// every cell measured): jagged_sum 2.67 and jagged_mean 2.77 (block_row.t256.v1: 2.86 / 2.96),
// jagged_dense_add 1.48 (row_block.t128.r1.v1: 1.53, flat.t256.v1: 1.56), causal_trailing_mean
// 1.46 (block.t256.v2.s16: 1.68, v4: 2.05; its re-sweep of aed3bd9). Only block/256/16-tile-segment
// configs have no halo limit there, so the trailing-mean default is one of those.
inline constexpr DefaultConfig kDefaultConfigs[] = {
    {"jagged_sum", "block_row.t512.v1"},
    {"jagged_mean", "block_row.t512.v1"},
    {"jagged_dense_add", "row_block.t256.r1.v1"},
    {"causal_trailing_mean", "block.t256.v1.s16"},
};

// Empty for a kernel without an entry.
constexpr std::string_view default_config_id(std::string_view kernel) {
  for (const auto& d : kDefaultConfigs) {
    if (d.kernel == kernel) return d.config_id;
  }
  return {};
}

// Position of the default config among `config_ids` (a kernel's space), 0 when it has none.
inline uint32_t default_config_index(std::string_view kernel,
                                     const std::vector<std::string>& config_ids) {
  const std::string_view id = default_config_id(kernel);
  for (std::size_t i = 0; i < config_ids.size(); ++i) {
    if (config_ids[i] == id) return static_cast<uint32_t>(i);
  }
  return 0;
}

}  // namespace aotune::heuristics
