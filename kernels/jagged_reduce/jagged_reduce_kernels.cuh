// Device code of jagged_sum / jagged_mean. Included by the per-dtype launch files only.
// Layout reminder: row b's elements are values[offsets[b] .. offsets[b+1]), each M wide, so a row
// is one contiguous run of len_b * M values. Lanes run along M with `VEC`-wide loads.
#pragma once

#include <cstdint>

#include "kernels/common/device_types.cuh"

namespace aotune::jagged_reduce::device {

// Columns [c0, c0+VEC) of element e, or zeros past the first `cols` columns (never loaded: for
// jagged_mean they are masked out anyway, so skipping them saves bandwidth).
template <typename T, int VEC>
__device__ __forceinline__ void accumulate(float (&acc)[VEC], const T* __restrict__ values, int64_t e, int64_t M,
                                           int64_t c0, int64_t cols) {
  if (c0 >= cols) return;
  if constexpr (VEC == 1) {
    acc[0] += to_float(__ldg(values + e * M + c0));
  } else {
    const Vec<T, VEC> v = *reinterpret_cast<const Vec<T, VEC>*>(values + e * M + c0);
#pragma unroll
    for (int i = 0; i < VEC; ++i) acc[i] += to_float(v.v[i]);
  }
}

// Writes out[b, c0 .. c0+VEC): scale*acc where c < cols, exact 0 elsewhere (mean's masked columns).
template <typename T, int VEC>
__device__ __forceinline__ void store(T* __restrict__ out, int64_t b, int64_t M, int64_t c0, int64_t cols,
                                      float scale, const float (&acc)[VEC]) {
  if (c0 >= M) return;
  Vec<T, VEC> v;
#pragma unroll
  for (int i = 0; i < VEC; ++i) v.v[i] = from_float<T>(c0 + i < cols ? acc[i] * scale : 0.0f);
  if constexpr (VEC == 1) {
    out[b * M + c0] = v.v[0];
  } else {
    *reinterpret_cast<Vec<T, VEC>*>(out + b * M + c0) = v;
  }
}

template <typename IndexT>
__device__ __forceinline__ int64_t row_cols(const IndexT* fc, int64_t b, int64_t M) {
  return fc == nullptr ? M : static_cast<int64_t>(fc[b]);
}

__device__ __forceinline__ float row_scale(bool mean, int64_t len) {
  return mean ? (len > 0 ? 1.0f / static_cast<float>(len) : 0.0f) : 1.0f;
}

// block_row: block = (row b = blockIdx.x, column tile blockIdx.y). Threads: tx along M (TX lanes),
// ty along the row's elements (TY = blockDim.x / TX). Partial sums meet in shared memory.
template <typename T, typename IndexT, int VEC>
__global__ void block_row_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                 const IndexT* __restrict__ fc, T* __restrict__ out, int64_t M, int tx_lanes,
                                 bool mean) {
  extern __shared__ float partial[];  // [TY][TX*VEC]
  const int64_t b = blockIdx.x;
  const int tx = threadIdx.x % tx_lanes, ty = threadIdx.x / tx_lanes, ty_count = blockDim.x / tx_lanes;
  const int64_t c0 = (int64_t(blockIdx.y) * tx_lanes + tx) * VEC;
  const int64_t start = offsets[b], end = offsets[b + 1];
  const int64_t cols = row_cols(fc, b, M);
  float acc[VEC] = {};
  if (c0 < M) {
    int64_t e = start + ty;
    // Four independent loads in flight per thread before their adds.
    for (; e + 3 * ty_count < end; e += 4 * ty_count) {
      accumulate<T, VEC>(acc, values, e, M, c0, cols);
      accumulate<T, VEC>(acc, values, e + ty_count, M, c0, cols);
      accumulate<T, VEC>(acc, values, e + 2 * ty_count, M, c0, cols);
      accumulate<T, VEC>(acc, values, e + 3 * ty_count, M, c0, cols);
    }
    for (; e < end; e += ty_count) accumulate<T, VEC>(acc, values, e, M, c0, cols);
  }
  if (ty_count > 1) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) partial[(ty * tx_lanes + tx) * VEC + i] = acc[i];
    __syncthreads();
    for (int s = ty_count / 2; s > 0; s /= 2) {  // ty_count is a power of two
      if (ty < s) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) partial[(ty * tx_lanes + tx) * VEC + i] += partial[((ty + s) * tx_lanes + tx) * VEC + i];
      }
      __syncthreads();
    }
    if (ty != 0) return;
#pragma unroll
    for (int i = 0; i < VEC; ++i) acc[i] = partial[tx * VEC + i];
  }
  store<T, VEC>(out, b, M, c0, cols, row_scale(mean, end - start), acc);
}

// group_row: TX (<= 32) lanes per row, TY = blockDim.x / TX rows per block; each thread walks its
// row alone, so no shared memory or barrier. For many short rows.
template <typename T, typename IndexT, int VEC>
__global__ void group_row_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                 const IndexT* __restrict__ fc, T* __restrict__ out, int64_t B, int64_t M,
                                 int tx_lanes, bool mean) {
  const int tx = threadIdx.x % tx_lanes, ty = threadIdx.x / tx_lanes;
  const int64_t b = int64_t(blockIdx.x) * (blockDim.x / tx_lanes) + ty;
  if (b >= B) return;
  const int64_t c0 = (int64_t(blockIdx.y) * tx_lanes + tx) * VEC;
  if (c0 >= M) return;
  const int64_t start = offsets[b], end = offsets[b + 1];
  const int64_t cols = row_cols(fc, b, M);
  float acc[VEC] = {};
  int64_t e = start;
  for (; e + 3 < end; e += 4) {
    accumulate<T, VEC>(acc, values, e, M, c0, cols);
    accumulate<T, VEC>(acc, values, e + 1, M, c0, cols);
    accumulate<T, VEC>(acc, values, e + 2, M, c0, cols);
    accumulate<T, VEC>(acc, values, e + 3, M, c0, cols);
  }
  for (; e < end; ++e) accumulate<T, VEC>(acc, values, e, M, c0, cols);
  store<T, VEC>(out, b, M, c0, cols, row_scale(mean, end - start), acc);
}

// Row holding element e: the last b with offsets[b] <= e (skips empty rows). offsets[0] = 0 <= e.
template <typename IndexT>
__device__ __forceinline__ int64_t find_row(const IndexT* offsets, int64_t B, int64_t e) {
  int64_t lo = 0, hi = B;  // invariant: offsets[lo] <= e < offsets[hi]
  while (hi - lo > 1) {
    const int64_t mid = (lo + hi) / 2;
    if (static_cast<int64_t>(offsets[mid]) <= e) lo = mid; else hi = mid;
  }
  return lo;
}

// nnz_split: block blockIdx.x takes elements [x*rows_per_chunk, ...) of the whole tensor, whatever
// rows they belong to, so a huge row is spread over many blocks. Threads add into fp32 acc[B, M]
// (zeroed before) with atomics, once per row segment they touch; finalize_kernel converts.
template <typename T, typename IndexT, int VEC>
__global__ void nnz_split_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                 const IndexT* __restrict__ fc, float* __restrict__ acc_out, int64_t B, int64_t M,
                                 int64_t nnz, int64_t rows_per_chunk, int tx_lanes) {
  const int tx = threadIdx.x % tx_lanes, ty = threadIdx.x / tx_lanes, ty_count = blockDim.x / tx_lanes;
  const int64_t c0 = (int64_t(blockIdx.y) * tx_lanes + tx) * VEC;
  if (c0 >= M) return;
  const int64_t e_begin = int64_t(blockIdx.x) * rows_per_chunk;
  const int64_t e_end = min(nnz, e_begin + rows_per_chunk);
  int64_t e = e_begin + ty;
  if (e >= e_end) return;
  int64_t row = find_row(offsets, B, e);
  int64_t row_end = offsets[row + 1];
  int64_t cols = row_cols(fc, row, M);
  float acc[VEC] = {};
  for (; e < e_end; e += ty_count) {
    if (e >= row_end) {  // crossed into a later row: flush, then advance past empty rows
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        if (c0 + i < cols) atomicAdd(acc_out + row * M + c0 + i, acc[i]);
#pragma unroll
      for (int i = 0; i < VEC; ++i) acc[i] = 0;
      while (e >= row_end) row_end = offsets[++row + 1];
      cols = row_cols(fc, row, M);
    }
    accumulate<T, VEC>(acc, values, e, M, c0, cols);
  }
#pragma unroll
  for (int i = 0; i < VEC; ++i)
    if (c0 + i < cols) atomicAdd(acc_out + row * M + c0 + i, acc[i]);
}

template <typename T, typename IndexT>
__global__ void finalize_kernel(const float* __restrict__ acc, const IndexT* __restrict__ offsets,
                                const IndexT* __restrict__ fc, T* __restrict__ out, int64_t B, int64_t M, bool mean) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < B * M; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / M, c = i % M;
    const int64_t cols = row_cols(fc, b, M);
    const float scale = row_scale(mean, static_cast<int64_t>(offsets[b + 1]) - static_cast<int64_t>(offsets[b]));
    out[i] = from_float<T>(c < cols ? acc[i] * scale : 0.0f);
  }
}

}  // namespace aotune::jagged_reduce::device
