// Config space, ids, JSON, legality and host-side validation of jagged_dense_add.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "kernels/common/errors.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"

namespace aotune::jagged_dense_add {

namespace {

constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::row_block:
      return "row_block";
    case Strategy::flat:
      return "flat";
  }
  return "?";
}

Strategy parse_strategy(const std::string& s) {
  if (s == "row_block") return Strategy::row_block;
  if (s == "flat") return Strategy::flat;
  throw InvalidArgument("unknown jagged_dense_add strategy '" + s +
                        "' (expected row_block or flat)");
}

bool aligned(const void* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

std::string str(int64_t v) { return std::to_string(v); }

// The shape of a config itself, independent of any problem; empty when it is well formed.
std::string config_defect(const Config& c) {
  if (c.vec != 1 && c.vec != 2 && c.vec != 4 && c.vec != 8) {
    return "vec=" + str(c.vec) + " is not 1, 2, 4 or 8";
  }
  if (c.threads < 32 || c.threads > 1024 || c.threads % 32 != 0) {
    return "threads=" + str(c.threads) + " is not a multiple of 32 in [32, 1024]";
  }
  if (c.strategy == Strategy::row_block &&
      (c.rows_per_block < 1 || c.threads % c.rows_per_block != 0)) {
    return "rows_per_block=" + str(c.rows_per_block) + " does not divide threads=" + str(c.threads);
  }
  return {};
}

}  // namespace

const std::vector<Config>& config_space() {
  static const std::vector<Config> space = [] {
    // (threads, rows_per_block): lanes per row = threads / rows from 512 (long rows, one row per
    // block) down to 32 (a warp per row, 4 or 8 rows per block) for rows of a few hundred elements.
    const std::pair<int, int> row_blocks[] = {{128, 1}, {256, 1}, {512, 1}, {128, 4},
                                              {256, 4}, {256, 8}, {512, 8}};
    std::vector<Config> s;
    for (const auto& [threads, rows] : row_blocks)
      for (int vec : {1, 2, 4, 8}) s.push_back({Strategy::row_block, threads, rows, vec});
    // flat: rows shorter than a warp's span, where row_block would leave most lanes idle.
    for (int threads : {256, 512})
      for (int vec : {1, 2, 4, 8}) s.push_back({Strategy::flat, threads, 0, vec});
    return s;
  }();
  return space;
}

std::string config_id(const Config& c) {
  std::string id = std::string(strategy_name(c.strategy)) + ".t" + str(c.threads);
  if (c.strategy == Strategy::row_block) id += ".r" + str(c.rows_per_block);
  return id + ".v" + str(c.vec);
}

nlohmann::json to_json(const Config& c) {
  return {{"strategy", strategy_name(c.strategy)},
          {"threads", c.threads},
          {"rows_per_block", c.rows_per_block},
          {"vec", c.vec}};
}

Config config_from_json(const nlohmann::json& j) {
  Config c;
  try {
    c.strategy = parse_strategy(j.at("strategy").get<std::string>());
    c.threads = j.at("threads").get<int>();
    c.rows_per_block = c.strategy == Strategy::flat ? 0 : j.value("rows_per_block", 1);
    c.vec = j.at("vec").get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument("bad jagged_dense_add config " + j.dump() + ": " + e.what());
  }
  if (const std::string defect = config_defect(c); !defect.empty()) {
    throw InvalidArgument("bad jagged_dense_add config " + j.dump() + ": " + defect);
  }
  return c;
}

void validate(const Problem& p) {
  const std::string op = "jagged_dense_add: ";
  if (p.B < 0) throw InvalidArgument(op + "B must be >= 0, got " + str(p.B));
  if (p.N < 0) throw InvalidArgument(op + "N must be >= 0, got " + str(p.N));
  if (p.nnz < 0) throw InvalidArgument(op + "nnz must be >= 0, got " + str(p.nnz));
  int64_t BN = 0;
  if (__builtin_mul_overflow(p.B, p.N, &BN)) {
    throw InvalidArgument(op + "B*N overflows int64: B=" + str(p.B) + ", N=" + str(p.N));
  }
  if (p.nnz > BN) {
    throw InvalidArgument(op + "nnz=" + str(p.nnz) + " exceeds B*N=" + str(BN) +
                          ", so some row is longer than N=" + str(p.N));
  }
  if (p.max_len < -1 || p.max_len > p.N) {
    throw InvalidArgument(op + "max_len=" + str(p.max_len) +
                          " must be -1 (unknown) or in [0, N=" + str(p.N) + "]");
  }
  if (p.index == IndexType::i32 && p.nnz > std::numeric_limits<int32_t>::max()) {
    throw InvalidArgument(op + "nnz=" + str(p.nnz) +
                          " does not fit int32 offsets; use int64 offsets");
  }
  if (p.offsets == nullptr) {
    throw InvalidArgument(op + "offsets is a null pointer (B+1=" + str(p.B + 1) +
                          " entries expected)");
  }
  if (p.x == nullptr && p.nnz > 0)
    throw InvalidArgument(op + "x is a null pointer with nnz=" + str(p.nnz));
  if (p.y == nullptr && BN > 0)
    throw InvalidArgument(op + "y is a null pointer with B*N=" + str(BN));
  if (p.out == nullptr && BN > 0)
    throw InvalidArgument(op + "out is a null pointer with B*N=" + str(BN));
  const std::size_t s = dtype_size(p.dtype);
  const std::pair<const char*, const void*> data[] = {{"x", p.x}, {"y", p.y}, {"out", p.out}};
  for (const auto& [name, ptr] : data) {
    if (!aligned(ptr, s)) {
      throw InvalidArgument(op + name + " is not aligned to its " + str(static_cast<int64_t>(s)) +
                            "-byte elements: address " +
                            str(static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(ptr))));
    }
  }
  if (!aligned(p.offsets, index_size(p.index))) {
    throw InvalidArgument(op + "offsets is not aligned to its " +
                          str(static_cast<int64_t>(index_size(p.index))) +
                          "-byte entries: address " +
                          str(static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(p.offsets))));
  }
}

Legality supports(const Config& c, const Problem& p) {
  if (const std::string defect = config_defect(c); !defect.empty()) return Legality::no(defect);
  const std::size_t s = dtype_size(p.dtype);
  const std::size_t vec_bytes = static_cast<std::size_t>(c.vec) * s;
  if (vec_bytes > 16) {
    return Legality::no("vec=" + str(c.vec) + " x " + str(static_cast<int64_t>(s)) +
                        " bytes exceeds 16-byte accesses");
  }
  if (c.vec > 1) {
    // row_block's vectors start at each row (y + b*N), so N must keep them aligned; flat's tile
    // the whole [B*N] array, crossing rows where N is not a multiple (flat_rows_kernel).
    if (c.strategy == Strategy::row_block && p.N % c.vec != 0)
      return Legality::no("N=" + str(p.N) + " is not a multiple of vec=" + str(c.vec));
    // x is not checked: its rows start anywhere, so the kernel tests each row's alignment itself.
    if (!aligned(p.y, vec_bytes) || !aligned(p.out, vec_bytes)) {
      return Legality::no("y or out not aligned to " + str(static_cast<int64_t>(vec_bytes)) +
                          " bytes");
    }
  }
  if (c.strategy == Strategy::row_block &&
      (p.B + c.rows_per_block - 1) / c.rows_per_block > kMaxGridX) {
    return Legality::no("B=" + str(p.B) + " needs more than 2^31-1 blocks of " +
                        str(c.rows_per_block) + " rows");
  }
  return Legality::yes();
}

std::size_t workspace_bytes(const Config&, const Problem&) { return 0; }

}  // namespace aotune::jagged_dense_add
