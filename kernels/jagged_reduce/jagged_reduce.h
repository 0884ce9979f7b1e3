// jagged_sum and jagged_mean: per-row reductions of a jagged 2-D tensor, one implementation.
//   values [nnz, M] row-major, offsets [B+1] -> out [B, M]
//   sum:  out[b, :]   = sum of values[offsets[b] : offsets[b+1], :]
//   mean: out[b, :fc] = that sum / row length, with fc = feature_counts[b] (in [0, M]);
//         columns >= fc and empty rows are exactly 0 (Helion's jagged_mean semantics).
// Accumulation is fp32 for every storage type. Every Config computes the same function.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/dtype.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune {
class EncodedValues;  // kernels/common/host_data.h
}  // namespace aotune

namespace aotune::jagged_reduce {

enum class Op { sum, mean };

enum class Strategy {
  block_row,  // one block per (row, column tile); threads split the row's elements, then reduce
  group_row,  // one group of <= 32 lanes per row (slots x lanes along M), many rows per block:
              // short rows, many of them
  nnz_split,  // blocks take equal slices of all nnz elements, fp32 atomics, the last block of a
              // row spread over several finishes it (one launch): skewed rows
  flat_scan,  // narrow rows (M x element size divides 16 bytes): values read as one flat array of
              // 16-byte vectors, rows summed by a block-wide segmented scan, rows spread over
              // blocks finished as nnz_split's (one launch)
  flat_row,   // narrow rows (M x element size divides 16 bytes): one group of `slots` lanes (part
              // of a warp, or whole warps up to a block) per row, reading the row as flat
              // 16-byte vectors: uniform rows of 32 entries and more
  flat_split,  // narrow rows: flat_row's groups of `slots` lanes take the rows, except the few
               // long ones with live columns, which split blocks running beside them take in
               // equal ranges of the values (one launch, no waiting): one or a few rows holding
               // most of the data, with or without feature counts
};

// vec = 0 and (nnz_split) chunk = 0 are "auto": resolved() fills them from the problem at every
// call, so one config adapts where a fixed one would need the heuristic to pick among several.
struct Config {
  Strategy strategy = Strategy::block_row;
  int threads = 256;  // threads per block
  int vec = 1;        // elements per load along M (vec * sizeof(T) <= 16); 0: the widest legal
                      // (flat_scan, flat_row: always 0, their loads are 16 bytes along nnz)
  int chunk = 0;      // nnz_split: values elements (rows*M) per block, 0: about kAutoChunksPerSm
                      // blocks per SM (clamped to [kAutoChunkMin, kAutoChunkMax] elements);
                      // 0 for the other strategies
  int slots = 1;      // group_row: lane groups that split each row's elements (1-32), summed
                      // with warp shuffles; shortens each thread's serial walk of a short row.
                      // flat_row: lanes per row (a power of two from 2 that divides threads).
                      // 1 for the others
  friend bool operator==(const Config&, const Config&) = default;
};

// flat_scan: 16-byte vectors each thread loads per tile, 8 for a 4-byte type at M >= 2, else 4. A
// tile's bookkeeping (row starts, two block scans) costs the same whatever its size, so more
// entries per thread pay it less often: fp32 at M = 4 ran 0.86-0.90x the time with 8 (session 28,
// H200 A/B). At M = 1 fp32 8 vectors took 121 registers instead of 88 (a block fewer per SM at
// 128 threads) and ran 1.07-1.10x slower, up to 1.7x on small inputs (fewer, larger tiles); at
// M >= 2 the register count (98-100 at 4) already allowed only that many blocks. A 2-byte type
// already walks 16-32 entries per thread at 4 vectors, and 8 spills its unrolled walk.
constexpr int flat_scan_vectors(std::size_t element_bytes, int64_t M) { return element_bytes >= 4 && M >= 2 ? 8 : 4; }
// The largest flat_scan block (its shared arrays' size).
inline constexpr int kFlatScanMaxThreads = 512;
// flat_row: 16-byte vectors each lane has in flight per step of its row, and the largest block
// (the size of its shared array of warp sums).
inline constexpr int kFlatRowVectors = 4;
inline constexpr int kFlatRowMaxThreads = 1024;
// nnz_split: the largest block, which its register budget (__launch_bounds__) is set for.
inline constexpr int kNnzSplitMaxThreads = 256;
// flat_split: its block (both roles), its split blocks per SM (each keeps 256 x kFlatRowVectors x
// 16 bytes = 16 KB of a long row in flight, four of them 64 KB per SM), and the most split blocks
// on any GPU (so supports() can bound the grid without knowing the SM count).
inline constexpr int kFlatSplitThreads = 256;
inline constexpr int kFlatSplitBlocksPerSm = 4;
inline constexpr int kFlatSplitMaxSplitBlocks = 4096;
// A row takes the split blocks only past this many steps of its group (each step: kFlatRowVectors
// vectors per lane), or its group reads it in a few memory round trips, less than the atomics and
// the arrival of the split blocks' way cost.
inline constexpr int kFlatSplitMinSteps = 4;

// The auto chunk is one wave of nnz_split blocks: kAutoChunksPerSm per SM (3 with 16-byte loads,
// the kernel's __launch_bounds__ minimum), shared among the column tiles, in whole rows, clamped
// to [kAutoChunkMin, kAutoChunkMax] elements (resolve(), jagged_reduce_config.cpp). Measured in
// session 31's H200 A/B and shipped in session 32 with both jagged databases re-swept
// (docs/PERF.md): the former 262144-element cap gave 1.94 waves on 270 M values. Four per SM, not
// the former 32, since session 21: on the grid shapes where an nnz_split config is the best, the
// best fixed chunk sits at about 2-8 chunks per SM (median ~4), and 32 per SM made the auto chunk
// 1.26x (jagged_sum) / 1.22x (jagged_mean) slower than the best nnz_split config there.
inline constexpr int kAutoChunksPerSm = 4;
inline constexpr int64_t kAutoChunkMin = 8192;
inline constexpr int64_t kAutoChunkMax = int64_t{1} << 28;

struct Problem {
  Op op = Op::sum;
  int64_t B = 0;
  int64_t M = 0;
  int64_t nnz = 0;
  DType dtype = DType::f32;
  IndexType index = IndexType::i64;
  const void* values = nullptr;          // [nnz, M] of dtype
  const void* offsets = nullptr;         // [B+1] of index
  const void* feature_counts = nullptr;  // mean only, [B] of index; null means M for every row
  void* out = nullptr;                   // [B, M] of dtype
};

// The config space in its stable order (the index is the config's number in results databases).
const std::vector<Config>& config_space();
std::string config_id(const Config& c);
nlohmann::json to_json(const Config& c);
Config config_from_json(const nlohmann::json& j);

// Host-side checks of sizes and pointers; throws InvalidArgument naming the problem and the value.
void validate(const Problem& p);
// Device-side checks of offsets (and feature counts); opt-in, synchronises the stream.
void validate_device_data(const Problem& p, cudaStream_t stream);

// The concrete config `c` stands for on `p`: an auto vec becomes the widest of 8/4/2/1 that fits
// 16-byte loads, divides M and matches the alignment of values and out; an auto nnz_split chunk
// becomes nnz*M / (kAutoChunksPerSm x the current device's SMs, 132 without a device), clamped.
// Configs without an auto field come back unchanged. workspace_bytes() and launch() resolve first.
Config resolved(const Config& c, const Problem& p);

// Legal for every device: supports() resolves an auto chunk to kAutoChunkMin (the most chunks any
// device's resolution gives) and never touches CUDA, so a tuner's parent process can ask it before
// forking its GPU workers (a CUDA runtime initialised before fork() is unusable in the child).

Legality supports(const Config& c, const Problem& p);
// Scratch memory a config needs (16-byte aligned); pass at least this many bytes to launch(). The
// scratch must be all zero bytes when first passed: launch() leaves it all zero again, so a buffer
// kept between calls is zeroed once (at allocation), never per call.
std::size_t workspace_bytes(const Config& c, const Problem& p);

// How nnz_split cuts a problem: blocks of rows_per_chunk values elements (chunks of them, at least
// one) times col_tiles tiles of tx lanes along M. Shared by launch() and workspace_bytes().
struct NnzSplitGrid {
  int64_t rows_per_chunk = 1;
  int64_t chunks = 1;
  int tx = 1;
  int64_t col_tiles = 1;
};
NnzSplitGrid nnz_split_grid(const Config& c, const Problem& p);
// Values entries (rows of values) one flat_scan block takes: threads x 4 vectors of 16 bytes.
int64_t flat_scan_tile(const Config& c, const Problem& p);
// How flat_split cuts a problem on a GPU of `sms` SMs: row blocks of kFlatSplitThreads / slots rows
// each, and split blocks, one per range of `range` values entries (an equal share over
// kFlatSplitBlocksPerSm blocks per SM, at least one vector per thread), spread over the grid
// (flat_split_role).
// A row is long past long_len entries (at least a range, jagged_reduce_flat_split_plan.h).
struct FlatSplitGrid {
  int64_t row_blocks = 0;
  int64_t split_blocks = 0;
  int64_t range = 1;
  int64_t long_len = 0;
};
FlatSplitGrid flat_split_grid(const Config& c, const Problem& p, int64_t sms);
// Enqueues the op on `stream`. Requires supports(c, p).ok and validate(p) to have passed.
void launch(const Config& c, const Problem& p, void* workspace, cudaStream_t stream);

// Heuristic features from what a caller knows for free. The one definition used by training,
// generated headers and run-time dispatch alike.
Features features(DType dtype, int64_t B, int64_t M, int64_t nnz, int64_t max_len);

// Float64 reference on host data. `fc` empty means M for every row.
std::vector<double> reference(Op op, const std::vector<double>& values, const std::vector<int64_t>& offsets,
                              const std::vector<int64_t>& fc, int64_t M);

// The reference and its error scale (the same reduction of |values|: the magnitudes each output
// combined), in one pass over the values on every host thread.
struct Reference {
  std::vector<double> out;
  std::vector<double> scale;
};
Reference reference_with_scale(Op op, const std::vector<double>& values, const std::vector<int64_t>& offsets,
                               const std::vector<int64_t>& fc, int64_t M);
// The same from the values as the device holds them (the tuner's workload: no float64 copy of
// the inputs is made; each row entry is decoded as it is added). The same bits as the overload above
// on the decoded values.
Reference reference_with_scale(Op op, const EncodedValues& values, const std::vector<int64_t>& offsets,
                               const std::vector<int64_t>& fc, int64_t M);

}  // namespace aotune::jagged_reduce
