// Host-side launch of one storage type: picks the kernel instance for (strategy, index type, vec)
// and sizes the grid. Each jagged_reduce_launch_<dtype>.cu instantiates it once, so the three
// dtypes compile in parallel.
#pragma once

#include <algorithm>
#include <atomic>
#include <string>
#include <type_traits>

#include "kernels/common/cuda_check.h"
#include "kernels/common/device_props.h"
#include "kernels/common/errors.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "kernels/jagged_reduce/jagged_reduce_flat_row.cuh"
#include "kernels/jagged_reduce/jagged_reduce_flat_split.cuh"
#include "kernels/jagged_reduce/jagged_reduce_kernels.cuh"

namespace aotune::jagged_reduce {

namespace detail {

inline int pow2_ceil(int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}


template <typename T, typename IndexT, int VEC>
void launch_vec(const Config& c, const Problem& p, void* workspace, cudaStream_t stream) {
  const auto* values = static_cast<const T*>(p.values);
  const auto* offsets = static_cast<const IndexT*>(p.offsets);
  const auto* fc = static_cast<const IndexT*>(p.feature_counts);
  auto* out = static_cast<T*>(p.out);
  const bool mean = p.op == Op::mean;
  const int64_t lanes = (p.M + VEC - 1) / VEC;
  switch (c.strategy) {
    case Strategy::block_row: {
      const int tx = std::min<int>(c.threads, pow2_ceil(lanes));
      const dim3 grid(static_cast<unsigned>(p.B), static_cast<unsigned>((lanes + tx - 1) / tx));
      const std::size_t smem = c.threads / tx > 1 ? std::size_t(c.threads) * VEC * sizeof(float) : 0;
      device::block_row_kernel<T, IndexT, VEC><<<grid, c.threads, smem, stream>>>(values, offsets, fc, out, p.M, tx, mean);
      break;
    }
    case Strategy::group_row: {
      const int tx = std::min<int>(32, pow2_ceil(lanes));
      const int rows_per_block = c.threads / (tx * c.slots);  // supports(): tx * slots <= 32
      const dim3 grid(static_cast<unsigned>((p.B + rows_per_block - 1) / rows_per_block),
                      static_cast<unsigned>((lanes + tx - 1) / tx));
      device::group_row_kernel<T, IndexT, VEC><<<grid, c.threads, 0, stream>>>(values, offsets, fc, out, p.B, p.M, tx,
                                                                            c.slots, mean);
      break;
    }
    case Strategy::nnz_split: {
      // One launch: the kernel drains its accumulator rows itself and leaves the workspace zero.
      const NnzSplitGrid g = nnz_split_grid(c, p);
      auto* acc = static_cast<float*>(workspace);
      auto* arrivals = reinterpret_cast<unsigned*>(acc + p.B * p.M);
      const auto run = [&](auto one_group) {
        device::nnz_split_kernel<T, IndexT, VEC, decltype(one_group)::value>
            <<<dim3(static_cast<unsigned>(g.chunks), static_cast<unsigned>(g.col_tiles)), c.threads,
               std::size_t(c.threads) * VEC * sizeof(float), stream>>>(values, offsets, fc, out, acc, arrivals, p.B,
                                                                       p.M, p.nnz, g.rows_per_chunk, g.tx, mean);
      };
      if (g.tx == c.threads) {
        run(std::true_type{});
      } else {
        run(std::false_type{});
      }
      break;
    }
    case Strategy::flat_scan:
    case Strategy::flat_row:
    case Strategy::flat_split:
      throw InvalidArgument("jagged_reduce: " + config_id(c) + " has no vec instances (launch_index sends it to its per-M launch)");
  }
  AOTUNE_CUDA_CHECK_LAUNCH();
}

// Blocks of `threads` threads one SM holds at once for this flat_scan instance, asked of the
// runtime once per block size (benign race: every thread computes the same value).
template <typename T, typename IndexT, int MC>
int flat_scan_blocks_per_sm(int threads) {
  static std::atomic<int> cache[kFlatScanMaxThreads / 32 + 1] = {};
  std::atomic<int>& slot = cache[threads / 32];
  int n = slot.load(std::memory_order_relaxed);
  if (n == 0) {
    AOTUNE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, device::flat_scan_kernel<T, IndexT, MC>,
                                                                    threads, 0));
    n = std::max(n, 1);
    slot.store(n, std::memory_order_relaxed);
  }
  return n;
}

// flat_scan: one instance per M (the entries per 16-byte vector are a compile-time count). As many
// blocks as the GPU holds at once, each walking an equal run of whole tiles.
template <typename T, typename IndexT, int MC>
void launch_flat_scan(const Config& c, const Problem& p, void* workspace, cudaStream_t stream) {
  const int64_t tile = flat_scan_tile(c, p);
  const int64_t tiles = std::max<int64_t>(1, (p.nnz + tile - 1) / tile);
  const int64_t resident = int64_t{flat_scan_blocks_per_sm<T, IndexT, MC>(c.threads)} * current_device_sm_count();
  const int64_t range = (tiles + resident - 1) / resident * tile;
  const int64_t blocks = std::max<int64_t>(1, (p.nnz + range - 1) / range);  // supports(): < 2^31
  auto* acc = static_cast<float*>(workspace);
  auto* arrivals = reinterpret_cast<unsigned*>(acc + p.B * p.M);
  device::flat_scan_kernel<T, IndexT, MC><<<static_cast<unsigned>(blocks), c.threads, 0, stream>>>(
      static_cast<const T*>(p.values), static_cast<const IndexT*>(p.offsets),
      static_cast<const IndexT*>(p.feature_counts), static_cast<T*>(p.out), acc, arrivals, p.B, p.nnz, range,
      p.op == Op::mean);
  AOTUNE_CUDA_CHECK_LAUNCH();
}

// flat_row: one instance per M, blockDim.x / slots rows per block (1 when a row takes the block).
template <typename T, typename IndexT, int MC>
void launch_flat_row(const Config& c, const Problem& p, cudaStream_t stream) {
  const int rows_per_block = c.threads / c.slots;  // supports(): slots, a power of two, divides threads
  const int64_t blocks = (p.B + rows_per_block - 1) / rows_per_block;  // supports(): < 2^31
  device::flat_row_kernel<T, IndexT, MC><<<static_cast<unsigned>(blocks), c.threads, 0, stream>>>(
      static_cast<const T*>(p.values), static_cast<const IndexT*>(p.offsets),
      static_cast<const IndexT*>(p.feature_counts), static_cast<T*>(p.out), p.B, c.slots, p.op == Op::mean);
  AOTUNE_CUDA_CHECK_LAUNCH();
}

// flat_split: one instance per M, its split blocks and row blocks interleaved in one 1-D grid
// (jagged_reduce_flat_split.cuh); the workspace is flat_scan's: an fp32 accumulator [B, M], then B
// arrival counters.
template <typename T, typename IndexT, int MC>
void launch_flat_split(const Config& c, const Problem& p, void* workspace, cudaStream_t stream) {
  const FlatSplitGrid g = flat_split_grid(c, p, current_device_sm_count());
  const int64_t blocks = g.split_blocks + g.row_blocks;  // supports(): < 2^31
  auto* acc = static_cast<float*>(workspace);
  auto* arrivals = reinterpret_cast<unsigned*>(acc + p.B * p.M);
  device::flat_split_kernel<T, IndexT, MC><<<static_cast<unsigned>(blocks), c.threads, 0, stream>>>(
      static_cast<const T*>(p.values), static_cast<const IndexT*>(p.offsets),
      static_cast<const IndexT*>(p.feature_counts), static_cast<T*>(p.out), acc, arrivals, p.B, c.slots,
      p.op == Op::mean, g.split_blocks, g.range, g.long_len);
  AOTUNE_CUDA_CHECK_LAUNCH();
}

// Calls f(std::integral_constant<int, M>{}) for the narrow M the flat strategies have instances
// of: M x sizeof(T) divides 16 bytes.
template <typename T, typename F>
void with_narrow_m(const Config& c, const Problem& p, F&& f) {
  switch (p.M) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 8:
      if constexpr (sizeof(T) * 8 <= 16) return f(std::integral_constant<int, 8>{});
      break;
  }
  throw InvalidArgument("jagged_reduce: " + config_id(c) + " needs M x element size to divide 16 bytes, got M=" +
                        std::to_string(p.M));
}

template <typename T, typename IndexT>
void launch_index(const Config& c, const Problem& p, void* workspace, cudaStream_t stream) {
  if (c.strategy == Strategy::flat_scan) {
    return with_narrow_m<T>(c, p, [&](auto mc) { launch_flat_scan<T, IndexT, decltype(mc)::value>(c, p, workspace, stream); });
  }
  if (c.strategy == Strategy::flat_row) {
    return with_narrow_m<T>(c, p, [&](auto mc) { launch_flat_row<T, IndexT, decltype(mc)::value>(c, p, stream); });
  }
  if (c.strategy == Strategy::flat_split) {
    return with_narrow_m<T>(c, p, [&](auto mc) { launch_flat_split<T, IndexT, decltype(mc)::value>(c, p, workspace, stream); });
  }
  switch (c.vec) {
    case 1: return launch_vec<T, IndexT, 1>(c, p, workspace, stream);
    case 2: return launch_vec<T, IndexT, 2>(c, p, workspace, stream);
    case 4: return launch_vec<T, IndexT, 4>(c, p, workspace, stream);
    case 8:
      if constexpr (sizeof(T) * 8 <= 16) return launch_vec<T, IndexT, 8>(c, p, workspace, stream);
      break;
  }
  throw InvalidArgument("jagged_reduce: vec=" + std::to_string(c.vec) + " is not supported for this dtype");
}

template <typename T>
void launch_typed(const Config& c, const Problem& p, void* workspace, cudaStream_t stream) {
  if (p.B == 0) return;  // nothing to write
  if (p.index == IndexType::i32) {
    launch_index<T, int32_t>(c, p, workspace, stream);
  } else {
    launch_index<T, int64_t>(c, p, workspace, stream);
  }
}

}  // namespace detail

}  // namespace aotune::jagged_reduce
