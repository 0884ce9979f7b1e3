// Device code of jagged_reduce's flat_split strategy. Included by jagged_reduce_launch_impl.cuh only.
//
// flat_split, for narrow rows (as flat_row: M x sizeof(T) divides 16 bytes) where one or a few
// rows hold most of the data. One launch, two roles by block index, neither waiting for the other:
// - Split blocks (flat_split_grid().split_blocks, spread over the grid by flat_split_role): split
//   block j searches the offsets for the row holding values entry j x range; when that row is
//   long (past long_len entries, live columns) it reads its part of it (jagged_reduce_flat_split_plan.h) as flat_row reads a row,
//   with the whole block's lanes, sums it over the block and adds the sums into the row's fp32
//   accumulator; the last block of a row to arrive writes its outputs and leaves the accumulator
//   and the counter zero (flat_scan's drain). Otherwise it is done after the search.
// - Row blocks (the rest) run flat_row's groups of `lanes` lanes, one row each, and leave the long
//   rows to the split blocks.
// Why: flat_scan spreads such shapes evenly too, but over all entries, so on jagged_mean a long
// row whose feature count is 0 leaves the live short rows to a tenth of its blocks: 3-7x the row
// strategies' time on the masked one_huge shapes, its worst held-out picks (docs/PERF.md, Session
// 39). Here a masked long row costs nothing (flat_row's fc = 0 skip; its split blocks find it
// masked), and a live one is spread over every SM.
// The first version (session 40) listed the long rows from the row blocks and had the split
// blocks wait for every row block (a ticket per block, a spin on a counter): it ran 3-6 us over
// flat_row's time and serialised the two roles; the second (split blocks first in the grid, no
// waiting) ran 0.74x the first's time on jagged_mean's grid (PERF.md, Session 41).
#pragma once

#include <cstdint>

#include "kernels/common/device_types.cuh"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "kernels/jagged_reduce/jagged_reduce_flat_row.cuh"
#include "kernels/jagged_reduce/jagged_reduce_flat_split_plan.h"
#include "kernels/jagged_reduce/jagged_reduce_kernels.cuh"

namespace aotune::jagged_reduce::device {

// Sums col[] over the block's threads; thread 0 gets the totals. Every thread calls it.
template <int MC>
__device__ __forceinline__ void flat_split_block_sum(float (&col)[MC]) {
  __shared__ float warp_sums[kFlatSplitThreads / 32][MC];
  for (int o = 1; o < 32; o <<= 1) {
#pragma unroll
    for (int c = 0; c < MC; ++c) col[c] += __shfl_xor_sync(0xffffffffu, col[c], o);
  }
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
#pragma unroll
    for (int c = 0; c < MC; ++c) warp_sums[warp][c] = col[c];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) {  // warp order: the same every run
#pragma unroll
      for (int c = 0; c < MC; ++c) col[c] += warp_sums[w][c];
    }
  }
}

// Row blocks: flat_row's walk, a long row (the split blocks') neither summed nor stored.
template <typename T, typename IndexT, int MC>
__device__ __forceinline__ void flat_split_rows(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                                const IndexT* __restrict__ fc, T* __restrict__ out, int64_t B,
                                                int lanes, bool mean, int64_t block, int64_t long_len) {
  const int lane = threadIdx.x % lanes;
  const int64_t b = block * (blockDim.x / lanes) + threadIdx.x / lanes;
  int64_t rs = 0, re = 0, cols = 0;
  if (b < B) {
    rs = offsets[b];
    re = offsets[b + 1];
    cols = row_cols(fc, b, int64_t{MC});
  }
  const bool split = flat_split_is_long(re - rs, cols, long_len);
  // A masked row loads nothing (flat_row), nor does a long one (the split blocks sum it).
  const int64_t load_end = cols > 0 && !split ? re : rs;
  float col[MC] = {};  // no early return: every lane of the warp takes part in the shuffles
  flat_walk<T, MC>(col, values, rs * MC, load_end * MC, lane, lanes);
  for (int o = 1; o < lanes; o <<= 1) {  // supports(): lanes <= 32, a power of two
#pragma unroll
    for (int c = 0; c < MC; ++c) col[c] += __shfl_xor_sync(0xffffffffu, col[c], o);
  }
  if (b < B && !split && lane == 0) store<T, MC>(out, b, MC, 0, cols, row_scale(mean, re - rs), col);
}

// Split block j: its part of the long row holding entry j x range, if that row is long.
template <typename T, typename IndexT, int MC>
__device__ __forceinline__ void flat_split_long_part(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                                     const IndexT* __restrict__ fc, T* __restrict__ out,
                                                     float* __restrict__ acc_ws, unsigned* __restrict__ arrivals,
                                                     int64_t B, bool mean, int64_t j, int64_t range,
                                                     int64_t long_len) {
  const int64_t lo = j * range;  // < nnz = offsets[B] (flat_split_grid)
  const int64_t r = block_find_row<2>(offsets, B, lo);
  const int64_t rs = offsets[r], re = offsets[r + 1];
  const int64_t cols = row_cols(fc, r, int64_t{MC});
  if (!flat_split_is_long(re - rs, cols, long_len)) return;  // the same for every thread: no barrier follows
  const FlatSplitPart part = flat_split_part(rs, re, lo, range);
  float col[MC] = {};
  flat_walk<T, MC>(col, values, part.from * MC, part.to * MC, static_cast<int>(threadIdx.x),
                   static_cast<int>(blockDim.x));
  flat_split_block_sum<MC>(col);
  // The row's blocks: those whose range starts in it (flat_split_others counts them).
  if (threadIdx.x == 0)
    add_part_of_row<T, MC>(out, acc_ws, arrivals, r, rs, re, cols, flat_split_first_start(rs, range), range, mean, col);
}

template <typename T, typename IndexT, int MC>
__global__ void __launch_bounds__(kFlatSplitThreads)
    flat_split_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets, const IndexT* __restrict__ fc,
                      T* __restrict__ out, float* __restrict__ acc_ws, unsigned* __restrict__ arrivals, int64_t B,
                      int lanes, bool mean, int64_t split_blocks, int64_t range, int64_t long_len) {
  // The roles interleaved over the grid (flat_split_role): every wave holds row blocks.
  const FlatSplitRole role = flat_split_role(blockIdx.x, split_blocks, gridDim.x);
  if (role.split) {
    flat_split_long_part<T, IndexT, MC>(values, offsets, fc, out, acc_ws, arrivals, B, mean, role.index, range,
                                        long_len);
  } else {
    flat_split_rows<T, IndexT, MC>(values, offsets, fc, out, B, lanes, mean, role.index, long_len);
  }
}

}  // namespace aotune::jagged_reduce::device
