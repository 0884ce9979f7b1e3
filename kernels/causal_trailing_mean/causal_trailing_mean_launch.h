// Internal: how a config cuts a row into tiles and segments (shared by legality and the launcher),
// and the per-dtype launch entry points, one per instance file so the build parallelises.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"

namespace aotune::causal_trailing_mean::detail {

// A segment may recompute a halo of at most this many times its own length (beyond that the
// redundant reads dominate and a longer segment always wins; the config is rejected, not timed).
constexpr int64_t kMaxHaloRatio = 16;
// Longest segment in tiles a config may ask for (keeps seg_tiles * tile far from overflow).
constexpr int64_t kMaxSegTiles = int64_t{1} << 20;

// Threads that scan one segment together: the whole block, or one warp.
constexpr int64_t unit_threads(const Config& c) { return c.unit == Unit::block ? c.threads : 32; }
constexpr int64_t tile_elems(const Config& c) { return unit_threads(c) * c.items; }

// Elements per segment of a row of T (>= 1) elements: the whole row when seg_tiles == 0.
constexpr int64_t segment_length(const Config& c, int64_t T) {
  return c.seg_tiles == 0 ? T : std::min<int64_t>(T, c.seg_tiles * tile_elems(c));
}

// Whether the instance files hold a kernel for this (unit, threads, items); the launcher's switch
// covers exactly these.
constexpr bool has_instance(const Config& c) {
  const bool threads_ok = c.threads == 128 || c.threads == 256;
  const bool items_ok = c.items == 1 || c.items == 2 || c.items == 4 || c.items == 8 ||
                        (c.items == 16 && c.unit == Unit::block);
  return threads_ok && items_ok && c.seg_tiles >= 0 && c.seg_tiles <= kMaxSegTiles;
}

void launch_f32(const Config& c, const Problem& p, cudaStream_t stream);
void launch_bf16(const Config& c, const Problem& p, cudaStream_t stream);
void launch_f16(const Config& c, const Problem& p, cudaStream_t stream);

}  // namespace aotune::causal_trailing_mean::detail
