// Internal: how a config cuts a row into tiles and segments (shared by legality and the launcher),
// and the per-dtype launch entry points, one per instance file so the build parallelises.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"

namespace aotune::causal_trailing_mean::detail {

// A segment may recompute a halo of at most this many times its own length (beyond that the
// redundant reads dominate and a longer segment wins; the config is rejected, not timed), except
// for the longest-segment configs, which stay legal for every problem.
constexpr int64_t kMaxHaloRatio = 16;
// Most tiles in one segment: fp32 rounding inside a segment adds up tile by tile, so this bounds
// the error independently of T.
constexpr int kMaxSegTiles = 16;

// The widest window a thread- or flat-unit config sums term by term: each output costs min(cf, T)
// adds, and its rounding error stays within cf * eps * sum|window| like the direct path's.
constexpr int64_t kMaxThreadWindow = 32;
// The flat unit shares a vector's window terms between its V outputs (the shared-terms path), so
// a window costs min(cf, T) / V vector loads per vector (L1 hits: neighbours load the same ones)
// instead of min(cf, T) loads per output, and goes further. 128: short rows with prefix means
// (cf >= T) and windows of 33-128, which only the scanning units took before and ran at 0.3-0.9
// TB/s (T = 64-128, 32768-262144 rows; docs/PERF.md, Session 36). fp32 sums of up to 128 terms
// stay within 127 eps of the window's mean |x| (2e-5 relative is the fp32 tolerance).
constexpr int64_t kMaxFlatWindow = 128;

// The widest window a per-output unit sums term by term.
constexpr int64_t max_direct_window(Unit u) { return u == Unit::flat ? kMaxFlatWindow : kMaxThreadWindow; }

// Prefix means (cf >= T) of rows up to this many 16-byte vectors (512 f32 or 1024 16-bit
// elements) take the flat unit's warp-shared prefix path whatever the window: a warp sums the part
// of a row before its first vector once, at most this many vectors over its 32 lanes (4 each), so
// a vector costs at most 1 + 4 loads. Past 128 elements only the scanning units took these rows,
// at 5.9-7.3 us for rows of 140-360 where the flat unit's shorter code runs near the launch floor
// (docs/PERF.md, Session 54).
constexpr int64_t kMaxFlatPrefixVectors = 128;
constexpr int64_t max_flat_prefix_row(DType dtype) {
  return kMaxFlatPrefixVectors * (16 / static_cast<int64_t>(dtype_size(dtype)));
}

// Whether a per-output unit takes the problem: its window within the unit's direct limit, or, for
// the flat unit, a prefix mean of a row within max_flat_prefix_row.
constexpr bool per_output_takes(Unit u, int64_t cf, int64_t T, DType dtype) {
  return std::min(cf, T) <= max_direct_window(u) ||
         (u == Unit::flat && cf >= T && T <= max_flat_prefix_row(dtype));
}

// Units with no tiles or segments (one output, or one vector of outputs, per thread).
constexpr bool per_output_unit(const Config& c) { return c.unit == Unit::thread || c.unit == Unit::flat; }

// Threads that scan one segment together: the whole block, or one warp (not used by thread units).
constexpr int64_t unit_threads(const Config& c) { return c.unit == Unit::block ? c.threads : 32; }
// Elements per tile: each thread of the unit holds `vecs` 16-byte vectors.
constexpr int64_t tile_elems(const Config& c, DType dtype) {
  return unit_threads(c) * c.vecs * (16 / static_cast<int64_t>(dtype_size(dtype)));
}

// Elements per segment of a row of T (>= 1) elements.
constexpr int64_t segment_length(const Config& c, int64_t T, DType dtype) {
  return std::min<int64_t>(T, c.seg_tiles * tile_elems(c, dtype));
}

// The configs that accept every problem (the longest segments): legality never leaves a problem
// without a config.
constexpr bool always_legal(const Config& c) {
  return c.unit == Unit::block && c.threads == 256 && c.seg_tiles == kMaxSegTiles;
}

// Whether the instance files hold a kernel for this (unit, threads, vecs); the launcher's switch
// covers exactly these.
constexpr bool has_instance(const Config& c) {
  const bool threads_ok = c.threads == 128 || c.threads == 256;
  if (per_output_unit(c)) return threads_ok && c.vecs == 1 && c.seg_tiles == 1 && !c.persistent;
  const bool vecs_ok = c.vecs == 1 || c.vecs == 2 || c.vecs == 4;
  return threads_ok && vecs_ok && c.seg_tiles >= 1 && c.seg_tiles <= kMaxSegTiles;
}

void launch_f32(const Config& c, const Problem& p, cudaStream_t stream);
void launch_bf16(const Config& c, const Problem& p, cudaStream_t stream);
void launch_f16(const Config& c, const Problem& p, cudaStream_t stream);

}  // namespace aotune::causal_trailing_mean::detail
