// Config space, ids, JSON, legality and host-side validation of jagged_sum / jagged_mean.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/common/device_props.h"
#include "kernels/common/errors.h"
#include "kernels/common/offsets_check.h"
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::jagged_reduce {

namespace {

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::block_row: return "block_row";
    case Strategy::group_row: return "group_row";
    case Strategy::nnz_split: return "nnz_split";
    case Strategy::flat_scan: return "flat_scan";
    case Strategy::flat_row: return "flat_row";
    case Strategy::flat_split: return "flat_split";
  }
  return "?";
}

Strategy parse_strategy(const std::string& s) {
  if (s == "block_row") return Strategy::block_row;
  if (s == "group_row") return Strategy::group_row;
  if (s == "nnz_split") return Strategy::nnz_split;
  if (s == "flat_scan") return Strategy::flat_scan;
  if (s == "flat_row") return Strategy::flat_row;
  if (s == "flat_split") return Strategy::flat_split;
  throw InvalidArgument("unknown jagged_reduce strategy '" + s + "'");
}

bool aligned(const void* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

// SMs the auto chunk divides the work over: the current device's, or an H200's where there is no
// usable device (host-side legality checks and tests; the chunk only changes speed, never results).
int sm_count_for_chunks() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error for later calls
    return 132;
  }
  return current_device_sm_count();
}

}  // namespace

const std::vector<Config>& config_space() {
  static const std::vector<Config> space = [] {
    std::vector<Config> s;
    // Auto vec (0) for block_row: its best vector is nearly always the widest legal one (session-5
    // databases), and a fixed width forces the heuristic to split on M's divisibility. nnz_split
    // keeps fixed widths (v2/v4 win there; v8 was best on 2 of 282 shapes, so it is gone) and gets
    // an auto chunk (0), whose fixed sizes decided a quarter of jagged_sum's held-out loss.
    for (int threads : {128, 256, 512})
      for (int vec : {0, 1, 2, 4, 8}) s.push_back({Strategy::block_row, threads, vec, 0});
    // group_row: its block size mattered little (t64/t128/t256 within 2 % of each other on most
    // shapes), its serial walk of each row a lot on B = 16384-32768 rows of 16-64 elements, so
    // the threads knob gave way to slots. Slots 8-32 are legal only where M takes at most 4
    // lanes (slots x lanes <= 32): there each of 1, 2, 4 slots about halved the time of rows of
    // 64-512 elements (session-14 database: B=8192 M=2 len<=256 f32 at v2, 82.1 / 46.5 / 27.8 us;
    // B=16384 M=1 len<=512 bf16 at v1, 185 / 108 / 60 us), and the trend had not stopped at 4.
    // vec=8 stops at 8 slots, and nnz_split's vec=1 takes only the smallest and the auto chunk:
    // without those four configs the session-18 databases' per-shape best moved by 1.0003 (at
    // most 1.06 on a shape), so they only added near-ties for the heuristic to split.
    for (int slots : {1, 2, 4, 8, 16, 32})
      for (int vec : {1, 2, 4, 8})
        if (vec < 8 || slots <= 8) s.push_back({Strategy::group_row, 128, vec, 0, slots});
    for (int chunk : {16384, 65536, 262144, 0})
      for (int vec : {1, 2, 4})
        if (vec > 1 || chunk == 16384 || chunk == 0) s.push_back({Strategy::nnz_split, 256, vec, chunk});
    // flat_scan, for M = 1-8: its one knob is the block (threads x 4 vectors of 16 bytes).
    for (int threads : {128, 256, 512}) s.push_back({Strategy::flat_scan, threads, 0, 0});
    // flat_row, for M = 1-8: lanes per row (slots) as group_row's slots, for the same reason (the
    // serial walk of each lane), from 4 for rows of a few vectors to a warp for rows of thousands,
    // then 2-16 warps in a block of 512 for rows of thousands of vectors (a warp keeps 2 KB of
    // its row in flight: too little to stream one row fast).
    for (int lanes : {4, 8, 16, 32}) s.push_back({Strategy::flat_row, 128, 0, 0, lanes});
    for (int lanes : {64, 128, 256, 512}) s.push_back({Strategy::flat_row, 512, 0, 0, lanes});
    // flat_split, for M = 1-8 with a few rows holding most of the data: flat_row's short-row
    // groups (the lanes per row the masked one_huge shapes' best row configs use) with the long
    // rows split over blocks. flat_scan spreads those shapes evenly too, but by elements, so a
    // long row whose columns are all masked leaves the live rows to a tenth of its blocks (3-7x
    // the row strategies' time on jagged_mean, docs/PERF.md Session 39).
    for (int lanes : {4, 8, 16, 32}) s.push_back({Strategy::flat_split, kFlatSplitThreads, 0, 0, lanes});
    return s;
  }();
  return space;
}

std::string config_id(const Config& c) {
  if (c.strategy == Strategy::flat_scan) return "flat_scan.t" + std::to_string(c.threads);
  if (c.strategy == Strategy::flat_row || c.strategy == Strategy::flat_split)
    return std::string(strategy_name(c.strategy)) + ".t" + std::to_string(c.threads) + ".s" + std::to_string(c.slots);
  std::string id = std::string(strategy_name(c.strategy)) + ".t" + std::to_string(c.threads) + ".v" +
                   (c.vec == 0 ? std::string("a") : std::to_string(c.vec));
  if (c.strategy == Strategy::nnz_split) id += ".c" + (c.chunk == 0 ? std::string("a") : std::to_string(c.chunk));
  if (c.strategy == Strategy::group_row) id += ".s" + std::to_string(c.slots);
  return id;
}

namespace {

// resolved(), with the auto chunk's SM count left to the caller.
Config resolve(const Config& c, const Problem& p, int64_t auto_chunk_sms) {
  Config r = c;
  const std::size_t s = dtype_size(p.dtype);
  if (r.vec == 0 && r.strategy != Strategy::flat_scan && r.strategy != Strategy::flat_row &&
      r.strategy != Strategy::flat_split) {
    r.vec = 1;
    for (int v : {8, 4, 2}) {
      if (v * s <= 16 && p.M % v == 0 && aligned(p.values, v * s) && aligned(p.out, v * s)) {
        r.vec = v;
        break;
      }
    }
  }
  if (r.strategy == Strategy::nnz_split && r.chunk == 0) {
    // One wave: as many chunks as the SMs hold blocks of this instance (nnz_split_kernel's
    // __launch_bounds__ minimum: 3 with 16-byte loads, else kAutoChunksPerSm), shared among the
    // column tiles, each a whole number of rows.
    const int64_t per_sm = r.vec * int64_t(s) >= 16 ? 3 : kAutoChunksPerSm;
    const int64_t lanes = (p.M + r.vec - 1) / r.vec;
    int64_t tx = 1;
    while (tx < r.threads && tx < lanes) tx *= 2;
    const int64_t col_tiles = (lanes + tx - 1) / tx;
    const int64_t chunks = std::max<int64_t>(1, per_sm * auto_chunk_sms / col_tiles);
    const int64_t rows = std::max<int64_t>(1, (p.nnz + chunks - 1) / chunks);
    r.chunk = static_cast<int>(std::clamp<int64_t>(rows * std::max<int64_t>(1, p.M), kAutoChunkMin, kAutoChunkMax));
  }
  return r;
}

}  // namespace

Config resolved(const Config& c, const Problem& p) {
  const bool auto_chunk = c.strategy == Strategy::nnz_split && c.chunk == 0;
  return resolve(c, p, auto_chunk ? sm_count_for_chunks() : 1);
}

nlohmann::json to_json(const Config& c) {
  return {{"strategy", strategy_name(c.strategy)}, {"threads", c.threads}, {"vec", c.vec}, {"chunk", c.chunk},
          {"slots", c.slots}};
}

Config config_from_json(const nlohmann::json& j) {
  return {parse_strategy(j.at("strategy").get<std::string>()), j.at("threads").get<int>(),
          j.at("vec").get<int>(), j.value("chunk", 0), j.value("slots", 1)};
}

void validate(const Problem& p) {
  const std::string op = p.op == Op::sum ? "jagged_sum" : "jagged_mean";
  if (p.B < 0) throw InvalidArgument(op + ": B must be >= 0, got " + std::to_string(p.B));
  if (p.M < 1) throw InvalidArgument(op + ": M must be >= 1, got " + std::to_string(p.M));
  if (p.nnz < 0) throw InvalidArgument(op + ": nnz must be >= 0, got " + std::to_string(p.nnz));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (p.nnz > kMax / p.M) {
    throw InvalidArgument(op + ": nnz*M overflows int64: nnz=" + std::to_string(p.nnz) + ", M=" + std::to_string(p.M));
  }
  if (p.B > kMax / p.M) {
    throw InvalidArgument(op + ": B*M overflows int64: B=" + std::to_string(p.B) + ", M=" + std::to_string(p.M));
  }
  if (p.index == IndexType::i32 && p.nnz > std::numeric_limits<int32_t>::max()) {
    throw InvalidArgument(op + ": nnz=" + std::to_string(p.nnz) + " does not fit int32 offsets");
  }
  if (p.offsets == nullptr) throw InvalidArgument(op + ": offsets is a null pointer (B+1=" + std::to_string(p.B + 1) + " entries expected)");
  if (p.values == nullptr && p.nnz > 0) throw InvalidArgument(op + ": values is a null pointer with nnz=" + std::to_string(p.nnz));
  if (p.out == nullptr && p.B > 0) throw InvalidArgument(op + ": out is a null pointer with B=" + std::to_string(p.B));
  if (p.op == Op::sum && p.feature_counts != nullptr) {
    throw InvalidArgument("jagged_sum takes no feature_counts (they belong to jagged_mean)");
  }
}

namespace {

// What both flat strategies need: one 16-byte vector holds whole entries (M x element size divides
// 16 bytes), values start on a vector and out on an entry (each row's outputs are one store).
Legality narrow_rows_legality(const std::string& name, const Problem& p) {
  const std::size_t s = dtype_size(p.dtype);
  const auto row_bytes = static_cast<std::size_t>(p.M) * s;
  if (row_bytes > 16 || 16 % row_bytes != 0) {
    return Legality::no(name + " needs M x element size to divide 16 bytes, got M=" + std::to_string(p.M) + " x " +
                        std::to_string(s) + " bytes");
  }
  if (!aligned(p.values, 16)) return Legality::no(name + " needs values aligned to 16 bytes");
  if (!aligned(p.out, row_bytes)) return Legality::no(name + " needs out aligned to " + std::to_string(row_bytes) + " bytes");
  return Legality::yes();
}

Legality flat_scan_supports(const Config& c, const Problem& p) {
  if (c.vec != 0 || c.chunk != 0 || c.slots != 1) {
    return Legality::no("flat_scan takes no vec, chunk or slots (got vec=" + std::to_string(c.vec) +
                        ", chunk=" + std::to_string(c.chunk) + ", slots=" + std::to_string(c.slots) + ")");
  }
  if (Legality narrow = narrow_rows_legality("flat_scan", p); !narrow.ok) return narrow;
  if (c.threads < 32 || c.threads > kFlatScanMaxThreads || c.threads % 32 != 0) {
    return Legality::no("flat_scan needs a multiple of 32 threads up to " + std::to_string(kFlatScanMaxThreads) +
                        ", got " + std::to_string(c.threads));
  }
  const int64_t tile = flat_scan_tile(c, p);
  if ((p.nnz + tile - 1) / tile > std::numeric_limits<int32_t>::max()) {
    return Legality::no("nnz=" + std::to_string(p.nnz) + " needs more than 2^31-1 flat_scan blocks");
  }
  return Legality::yes();
}

Legality flat_row_supports(const Config& c, const Problem& p) {
  if (c.vec != 0 || c.chunk != 0) {
    return Legality::no("flat_row takes no vec or chunk (got vec=" + std::to_string(c.vec) + ", chunk=" +
                        std::to_string(c.chunk) + ")");
  }
  if (c.threads < 32 || c.threads > kFlatRowMaxThreads || c.threads % 32 != 0) {
    return Legality::no("flat_row needs a multiple of 32 threads up to " + std::to_string(kFlatRowMaxThreads) +
                        ", got " + std::to_string(c.threads));
  }
  // threads is a multiple of 32, so a power of two dividing it is a group inside one warp (<= 32
  // lanes) or of whole warps (the kernel's shared-memory step).
  if (c.slots < 2 || (c.slots & (c.slots - 1)) != 0 || c.threads % c.slots != 0) {
    return Legality::no("flat_row needs lanes per row (slots) a power of two from 2 that divides its " +
                        std::to_string(c.threads) + " threads, got " + std::to_string(c.slots));
  }
  if (Legality narrow = narrow_rows_legality("flat_row", p); !narrow.ok) return narrow;
  const int64_t rows_per_block = c.threads / c.slots;
  if ((p.B + rows_per_block - 1) / rows_per_block > std::numeric_limits<int32_t>::max()) {
    return Legality::no("B=" + std::to_string(p.B) + " needs more than 2^31-1 flat_row blocks");
  }
  return Legality::yes();
}

Legality flat_split_supports(const Config& c, const Problem& p) {
  if (c.vec != 0 || c.chunk != 0) {
    return Legality::no("flat_split takes no vec or chunk (got vec=" + std::to_string(c.vec) + ", chunk=" +
                        std::to_string(c.chunk) + ")");
  }
  if (c.threads != kFlatSplitThreads) {
    return Legality::no("flat_split runs blocks of " + std::to_string(kFlatSplitThreads) + " threads, got " +
                        std::to_string(c.threads));
  }
  // A row's group stays inside one warp: the row blocks sum by shuffles alone.
  if (c.slots < 2 || c.slots > 32 || (c.slots & (c.slots - 1)) != 0) {
    return Legality::no("flat_split needs lanes per row (slots) a power of two from 2 to 32, got " +
                        std::to_string(c.slots));
  }
  if (Legality narrow = narrow_rows_legality("flat_split", p); !narrow.ok) return narrow;
  const int64_t rows_per_block = c.threads / c.slots;
  if ((p.B + rows_per_block - 1) / rows_per_block > std::numeric_limits<int32_t>::max() - kFlatSplitMaxSplitBlocks) {
    return Legality::no("B=" + std::to_string(p.B) + " needs more than 2^31-1 flat_split blocks");
  }
  return Legality::yes();
}

}  // namespace

Legality supports(const Config& auto_config, const Problem& p) {
  // An SM count this large clamps an auto chunk to kAutoChunkMin, without asking the device.
  const Config c = resolve(auto_config, p, std::numeric_limits<int32_t>::max());
  const std::size_t s = dtype_size(p.dtype);
  if (c.strategy == Strategy::flat_scan) return flat_scan_supports(c, p);
  if (c.strategy == Strategy::flat_row) return flat_row_supports(c, p);
  if (c.strategy == Strategy::flat_split) return flat_split_supports(c, p);
  if (c.vec * s > 16) {
    return Legality::no("vec=" + std::to_string(c.vec) + " x " + std::to_string(s) + " bytes exceeds 16-byte loads");
  }
  if (c.vec > 1) {
    if (p.M % c.vec != 0) {
      return Legality::no("M=" + std::to_string(p.M) + " is not a multiple of vec=" + std::to_string(c.vec));
    }
    if (!aligned(p.values, c.vec * s) || !aligned(p.out, c.vec * s)) {
      return Legality::no("values or out not aligned to " + std::to_string(c.vec * s) + " bytes");
    }
  }
  const int64_t lanes = (p.M + c.vec - 1) / c.vec;
  const int64_t tx = std::min<int64_t>(c.strategy == Strategy::group_row ? 32 : c.threads, lanes);
  const int64_t col_tiles = (lanes + tx - 1) / tx;
  if (col_tiles > 65535) return Legality::no("M=" + std::to_string(p.M) + " needs more than 65535 column tiles");
  if (c.slots != 1) {
    if (c.strategy != Strategy::group_row) return Legality::no("slots=" + std::to_string(c.slots) + " is a group_row knob");
    int group_lanes = 1;  // lanes along M, a power of two as the launch rounds them
    while (group_lanes < 32 && group_lanes < lanes) group_lanes *= 2;
    if (c.slots < 1 || (c.slots & (c.slots - 1)) != 0 || group_lanes * c.slots > 32 || c.threads % 32 != 0) {
      return Legality::no("group_row with slots=" + std::to_string(c.slots) + " needs slots x lanes <= 32 (one warp), got " +
                          std::to_string(group_lanes) + " lanes for M=" + std::to_string(p.M) + ", vec=" + std::to_string(c.vec));
    }
  }
  if (c.strategy == Strategy::nnz_split) {
    // Its row bookkeeping uses lane 0 of three warps; its block sums halve the row groups.
    if (c.threads < 128 || c.threads > kNnzSplitMaxThreads || (c.threads & (c.threads - 1)) != 0) {
      return Legality::no("nnz_split needs a power of two from 128 to " + std::to_string(kNnzSplitMaxThreads) +
                          " threads per block, got " + std::to_string(c.threads));
    }
    const int64_t rows_per_chunk = std::max<int64_t>(1, c.chunk / p.M);
    if ((p.nnz + rows_per_chunk - 1) / rows_per_chunk > std::numeric_limits<int32_t>::max()) {
      return Legality::no("nnz=" + std::to_string(p.nnz) + " needs more than 2^31-1 chunks");
    }
  }
  return Legality::yes();
}

NnzSplitGrid nnz_split_grid(const Config& auto_config, const Problem& p) {
  const Config c = resolved(auto_config, p);
  NnzSplitGrid g;
  const int64_t lanes = (p.M + c.vec - 1) / c.vec;
  while (g.tx < c.threads && g.tx < lanes) g.tx *= 2;  // a power of two, as block_row's
  g.col_tiles = (lanes + g.tx - 1) / g.tx;
  g.rows_per_chunk = std::max<int64_t>(1, c.chunk / p.M);
  g.chunks = std::max<int64_t>(1, (p.nnz + g.rows_per_chunk - 1) / g.rows_per_chunk);
  return g;
}

FlatSplitGrid flat_split_grid(const Config& c, const Problem& p, int64_t sms) {
  FlatSplitGrid g;
  const int64_t rows_per_block = c.threads / c.slots;  // supports(): slots divides threads
  g.row_blocks = (p.B + rows_per_block - 1) / rows_per_block;
  const int64_t entries_per_vector = std::max<int64_t>(1, static_cast<int64_t>(16 / dtype_size(p.dtype)) / std::max<int64_t>(1, p.M));
  const int64_t target = std::clamp<int64_t>(kFlatSplitBlocksPerSm * sms, 1, kFlatSplitMaxSplitBlocks);
  // At least one vector per thread: a few KB of long rows take a few blocks, not hundreds adding
  // a few entries each into one accumulator.
  g.range = std::max((p.nnz + target - 1) / target, int64_t{kFlatSplitThreads} * entries_per_vector);
  g.split_blocks = (p.nnz + g.range - 1) / g.range;  // at most target
  // Longer than a range (a range's block takes part of one long row only), and past a few steps
  // of the row's group (a shorter row costs its group less than the split blocks' atomics).
  g.long_len = std::max(g.range, int64_t{kFlatSplitMinSteps} * c.slots * kFlatRowVectors * entries_per_vector);
  return g;
}

int64_t flat_scan_tile(const Config& c, const Problem& p) {
  const auto entries_per_vector = static_cast<int64_t>(16 / (p.M * dtype_size(p.dtype)));
  return int64_t{c.threads} * flat_scan_vectors(dtype_size(p.dtype), p.M) * std::max<int64_t>(1, entries_per_vector);
}

namespace {

// The workspace of the strategies that spread rows over blocks: an fp32 accumulator [B, M], then
// `counters` arrival counters, rounded up to 16 bytes.
std::size_t accumulator_bytes(const Problem& p, int64_t counters) {
  const auto bytes = static_cast<std::size_t>(p.B * p.M) * sizeof(float) + static_cast<std::size_t>(counters) * sizeof(unsigned);
  return (bytes + 15) / 16 * 16;
}

}  // namespace

std::size_t workspace_bytes(const Config& c, const Problem& p) {
  if (p.B == 0) return 0;
  switch (c.strategy) {
    case Strategy::flat_scan: return accumulator_bytes(p, p.B);  // one counter per row
    case Strategy::flat_split: return accumulator_bytes(p, p.B);  // one counter per row, as flat_scan
    case Strategy::nnz_split: return accumulator_bytes(p, p.B * nnz_split_grid(c, p).col_tiles);  // per (row, column tile)
    case Strategy::block_row:
    case Strategy::group_row:
    case Strategy::flat_row: return 0;
  }
  return 0;
}

}  // namespace aotune::jagged_reduce
