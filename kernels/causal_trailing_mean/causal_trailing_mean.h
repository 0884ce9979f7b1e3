// causal_trailing_mean: the mean of the last cf elements (fewer at the start) along T.
//   x [B, D, T] contiguous, window cf >= 1 -> out [B, D, T] of the same dtype
//   out[b, d, t] = (sum of x[b, d, max(0, t-cf+1) .. t]) / min(t+1, cf)
// Any T and any cf (cf > T means every output is the mean of its whole prefix). Every row of T
// elements is independent. Small windows are summed directly; larger ones run a window sum along
// segments of at most 16 tiles, each seeded by an fp64 halo sum, so the error does not grow with T.
// Every Config computes the same function.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/dtype.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune::causal_trailing_mean {

enum class Unit {
  block,  // one block scans a segment of a row: long rows
  warp,   // one warp scans a segment of a row, threads/32 rows per block: short rows, many of them
  thread,  // one thread per output sums its window straight from memory (O(cf) loads each, cf at
           // most detail::kMaxThreadWindow): tiny, latency-bound problems, where the scanning
           // kernels' longer code and cross-lane steps cost more than the arithmetic they save
  flat,    // one thread per 16-byte vector of outputs over the flat [B*D*T] array, its window terms
           // from its own vector and the ones before it (window at most detail::kMaxFlatWindow,
           // or prefix means of rows up to detail::max_flat_prefix_row): many short rows,
           // whatever T is, with no per-row work item
};

struct Config {
  Unit unit = Unit::block;
  int threads = 256;   // threads per block (128 or 256)
  int vecs = 2;        // 16-byte vectors per thread per tile (1, 2 or 4); a tile is unit-threads *
                       // vecs * (16 / element size) elements (thread unit: 1, no tiles)
  int seg_tiles = 4;   // tiles per independent segment, 1..16 (each starts with a halo sum; thread
                       // unit: 1, no segments)
  // false: one work item (row segment) per scanning unit, the grid covers all of them. true: the
  // grid is what the GPU holds at once and each unit walks many items, loading its next item's
  // first tile while it scans the current one's last.
  bool persistent = false;
  friend bool operator==(const Config&, const Config&) = default;
};

struct Problem {
  int64_t B = 0;
  int64_t D = 0;
  int64_t T = 0;
  int64_t cf = 1;  // window length
  DType dtype = DType::f32;
  const void* x = nullptr;  // [B, D, T] of dtype
  void* out = nullptr;      // [B, D, T] of dtype; must not overlap x
};

// The config space in its stable order (the index is the config's number in results databases).
const std::vector<Config>& config_space();
std::string config_id(const Config& c);
nlohmann::json to_json(const Config& c);
// Throws InvalidArgument naming the bad field (unknown unit, missing field, ...).
Config config_from_json(const nlohmann::json& j);

// Host-side checks of sizes and pointers; throws InvalidArgument naming the problem and the value.
void validate(const Problem& p);

Legality supports(const Config& c, const Problem& p);
// Scratch memory a config needs: none (kept for the common kernel interface).
std::size_t workspace_bytes(const Config& c, const Problem& p);
// Enqueues the op on `stream` as one launch (none when B*D*T == 0). Requires validate(p) to have
// passed; throws InvalidArgument when supports(c, p) does not hold.
void launch(const Config& c, const Problem& p, void* workspace, cudaStream_t stream);

// Heuristic features from what a caller knows for free. The one definition used by training,
// generated headers and run-time dispatch alike.
Features features(DType dtype, int64_t B, int64_t D, int64_t T, int64_t cf);

// Float64 reference on host data: x holds rows * T values, row-major. Throws InvalidArgument when
// the sizes disagree or cf < 1.
std::vector<double> reference(const std::vector<double>& x, int64_t rows, int64_t T, int64_t cf);

}  // namespace aotune::causal_trailing_mean
