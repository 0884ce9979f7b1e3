// jagged_dense_add: a 1-D jagged tensor added onto the leading columns of a dense one.
//   x [nnz], offsets [B+1], y [B, N] row-major with N >= every row length -> out [B, N]
//   out[b, n] = y[b, n] + x[offsets[b] + n]  for n <  len_b = offsets[b+1] - offsets[b]
//   out[b, n] = y[b, n]                      for len_b <= n < N
// x, y and out share one dtype; arithmetic is fp32. out may equal y (in place); it must not overlap
// x. Every Config computes the same function.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/common/dtype.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune::jagged_dense_add {

enum class Strategy {
  row_block,  // 2-D blocks: rows_per_block rows, threads/rows_per_block lanes along N per row
  flat,  // grid-stride over all B*N/vec vectors, row found by division: short rows, many of them;
         // where vec does not divide N a vector crosses rows (any N takes every vec)
};

struct Config {
  Strategy strategy = Strategy::row_block;
  int threads = 256;       // threads per block
  int rows_per_block = 1;  // row_block only: rows sharing a block (divides threads); 0 for flat
  int vec = 1;             // elements per y/out access (vec * sizeof(T) <= 16)
  friend bool operator==(const Config&, const Config&) = default;
};

struct Problem {
  int64_t B = 0;
  int64_t N = 0;
  int64_t nnz = 0;
  int64_t max_len = -1;  // longest row if the caller knows it (checked against N), -1 if not
  DType dtype = DType::f32;
  IndexType index = IndexType::i64;
  const void* x = nullptr;        // [nnz] of dtype
  const void* offsets = nullptr;  // [B+1] of index
  const void* y = nullptr;        // [B, N] of dtype
  void* out = nullptr;            // [B, N] of dtype
};

// The config space in its stable order (the index is the config's number in results databases).
const std::vector<Config>& config_space();
std::string config_id(const Config& c);
nlohmann::json to_json(const Config& c);
// Throws InvalidArgument naming the bad field (unknown strategy, vec not 1/2/4/8, ...).
Config config_from_json(const nlohmann::json& j);

// Host-side checks of sizes and pointers; throws InvalidArgument naming the problem and the value.
void validate(const Problem& p);
// Device-side checks of offsets (start 0, end nnz, non-decreasing, no row longer than N); opt-in,
// synchronises the stream.
void validate_device_data(const Problem& p, cudaStream_t stream);

Legality supports(const Config& c, const Problem& p);
// Scratch memory a config needs: none (kept for the common kernel interface).
std::size_t workspace_bytes(const Config& c, const Problem& p);
// Enqueues the op on `stream` as one launch (none when B*N == 0). Requires validate(p) to have
// passed; throws InvalidArgument when supports(c, p) does not hold.
void launch(const Config& c, const Problem& p, void* workspace, cudaStream_t stream);

// Heuristic features from what a caller knows for free. The one definition used by training,
// generated headers and run-time dispatch alike.
Features features(DType dtype, int64_t B, int64_t N, int64_t nnz, int64_t max_len);

// Float64 reference on host data: y is [B, N] with B = offsets.size() - 1.
std::vector<double> reference(const std::vector<double>& x, const std::vector<int64_t>& offsets,
                              const std::vector<double>& y, int64_t N);

}  // namespace aotune::jagged_dense_add
