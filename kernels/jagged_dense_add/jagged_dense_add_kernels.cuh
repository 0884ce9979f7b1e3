// Device kernels of jagged_dense_add and the typed launcher that picks one. Compile-time knobs are
// the storage type, the offsets type and the vector width; block shape and strategy are runtime.
// Included only by the per-dtype instance files (jagged_dense_add_launch_<dtype>.cu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/common/cuda_check.h"
#include "kernels/common/device_types.cuh"
#include "kernels/common/errors.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"

namespace aotune::jagged_dense_add::detail {

constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kMaxFlatBlocks = int64_t{1} << 20;  // grid-stride beyond ~270M threads

// out[c, c+V) = y[c, c+V) + the row's x there (0 past len). c is a multiple of V and c + V <= N;
// y_at and out_at are V-aligned (supports() checked). x_row starts anywhere, so x is read as one
// vector only when the row start is aligned (`x_vec_ok`) and all V elements lie inside the row.
template <typename T, int V>
__device__ __forceinline__ void add_vector(const T* __restrict__ x_row, bool x_vec_ok, int64_t len,
                                           const T* __restrict__ y_at, T* __restrict__ out_at,
                                           int64_t c) {
  using VecT = Vec<T, V>;
  const VecT yv = *reinterpret_cast<const VecT*>(y_at);
  float xs[V];
  if (c + V <= len && x_vec_ok) {
    const VecT xv = *reinterpret_cast<const VecT*>(x_row + c);
#pragma unroll
    for (int j = 0; j < V; ++j) xs[j] = to_float(xv.v[j]);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) xs[j] = c + j < len ? to_float(x_row[c + j]) : 0.0f;
  }
  VecT o;
#pragma unroll
  for (int j = 0; j < V; ++j) o.v[j] = from_float<T>(to_float(yv.v[j]) + xs[j]);
  *reinterpret_cast<VecT*>(out_at) = o;
}

template <typename T, int V>
__device__ __forceinline__ bool vector_aligned(const T* p) {
  return V == 1 || reinterpret_cast<std::uintptr_t>(p) % (V * sizeof(T)) == 0;
}

// Block (lanes, rows): threadIdx.y picks the row (blockIdx.x * rows + threadIdx.y), the lanes
// stride along N; grid.y tiles N (capped at 65535, so lanes also stride over grid.y tiles).
template <typename T, typename IndexT, int V>
__global__ void row_block_kernel(const T* __restrict__ x, const IndexT* __restrict__ offsets,
                                 const T* __restrict__ y, T* __restrict__ out, int64_t B,
                                 int64_t N) {
  const int64_t b = int64_t(blockIdx.x) * blockDim.y + threadIdx.y;
  if (b >= B) return;
  const int64_t start = static_cast<int64_t>(offsets[b]);
  const int64_t len = static_cast<int64_t>(offsets[b + 1]) - start;
  const T* x_row = x + start;
  const bool x_vec_ok = vector_aligned<T, V>(x_row);
  const T* y_row = y + b * N;
  T* out_row = out + b * N;
  const int64_t stride = int64_t(gridDim.y) * blockDim.x * V;
  for (int64_t c = (int64_t(blockIdx.y) * blockDim.x + threadIdx.x) * V; c < N; c += stride) {
    add_vector<T, V>(x_row, x_vec_ok, len, y_row + c, out_row + c, c);
  }
}

// One thread per V-element vector of out, grid-stride; the row is i / (N/V), with 32-bit division
// when every index fits (the common case, several times cheaper than 64-bit division).
template <typename T, typename IndexT, int V>
__global__ void flat_kernel(const T* __restrict__ x, const IndexT* __restrict__ offsets,
                            const T* __restrict__ y, T* __restrict__ out, int64_t B, int64_t N) {
  const int64_t lanes_per_row = N / V;
  const int64_t total = B * lanes_per_row;
  const bool narrow = total <= int64_t{UINT32_MAX};
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int64_t b = narrow ? int64_t(uint32_t(i) / uint32_t(lanes_per_row)) : i / lanes_per_row;
    const int64_t c = (i - b * lanes_per_row) * V;
    const int64_t start = static_cast<int64_t>(offsets[b]);
    const int64_t len = static_cast<int64_t>(offsets[b + 1]) - start;
    const T* x_row = x + start;
    add_vector<T, V>(x_row, vector_aligned<T, V>(x_row), len, y + i * V, out + i * V, c);
  }
}

// flat_kernel for N that V does not divide: a vector of the flat [B*N] out may hold the end of one
// row and the start of the next (or several rows when N < V), so each element finds its row by
// stepping from the vector's first one, and the B*N % V elements past the last whole vector are
// one element per thread. y and out are V-aligned at element 0 (supports() checked), so every
// vector of them is; x is read one element at a time, as add_vector does for a row off its
// alignment. Without it an odd N had only 1-element accesses (session 48: B=53722 N=1767 f32 at
// 0.48x torch.compile, whose kernel reads the flat arrays this way).
template <typename T, typename IndexT, int V>
__global__ void flat_rows_kernel(const T* __restrict__ x, const IndexT* __restrict__ offsets,
                                 const T* __restrict__ y, T* __restrict__ out, int64_t B,
                                 int64_t N) {
  using VecT = Vec<T, V>;
  const int64_t total = B * N;
  const int64_t vectors = total / V;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool narrow = total <= int64_t{UINT32_MAX};  // 32-bit division, as flat_kernel
  auto row_of = [&](int64_t e) { return narrow ? int64_t(uint32_t(e) / uint32_t(N)) : e / N; };
  for (int64_t i = first; i < vectors; i += step) {
    const int64_t e = i * V;
    int64_t b = row_of(e);
    int64_t c = e - b * N;
    int64_t start = static_cast<int64_t>(offsets[b]);
    int64_t len = static_cast<int64_t>(offsets[b + 1]) - start;
    const VecT yv = *reinterpret_cast<const VecT*>(y + e);
    VecT o;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (c == N) {  // this element starts the next row
        c = 0;
        ++b;
        start = static_cast<int64_t>(offsets[b]);
        len = static_cast<int64_t>(offsets[b + 1]) - start;
      }
      const float xv = c < len ? to_float(x[start + c]) : 0.0f;
      o.v[j] = from_float<T>(to_float(yv.v[j]) + xv);
      ++c;
    }
    *reinterpret_cast<VecT*>(out + e) = o;
  }
  for (int64_t e = vectors * V + first; e < total; e += step) {  // the last total % V elements
    const int64_t b = row_of(e);
    const int64_t c = e - b * N;
    const int64_t start = static_cast<int64_t>(offsets[b]);
    const int64_t len = static_cast<int64_t>(offsets[b + 1]) - start;
    out[e] = from_float<T>(to_float(y[e]) + (c < len ? to_float(x[start + c]) : 0.0f));
  }
}

template <typename T, typename IndexT, int V>
void launch_vec(const Config& c, const Problem& p, cudaStream_t stream) {
  const auto* x = static_cast<const T*>(p.x);
  const auto* offsets = static_cast<const IndexT*>(p.offsets);
  const auto* y = static_cast<const T*>(p.y);
  auto* out = static_cast<T*>(p.out);
  if (c.strategy == Strategy::row_block) {
    const int64_t lanes = c.threads / c.rows_per_block;
    const int64_t tiles = std::min<int64_t>((p.N / V + lanes - 1) / lanes, kMaxGridY);
    const dim3 grid(static_cast<unsigned>((p.B + c.rows_per_block - 1) / c.rows_per_block),
                    static_cast<unsigned>(tiles));
    const dim3 block(static_cast<unsigned>(lanes), static_cast<unsigned>(c.rows_per_block));
    row_block_kernel<T, IndexT, V><<<grid, block, 0, stream>>>(x, offsets, y, out, p.B, p.N);
  } else if (p.N % V == 0) {
    const int64_t total = p.B * (p.N / V);
    const int64_t blocks = std::min<int64_t>((total + c.threads - 1) / c.threads, kMaxFlatBlocks);
    flat_kernel<T, IndexT, V>
        <<<static_cast<unsigned>(blocks), c.threads, 0, stream>>>(x, offsets, y, out, p.B, p.N);
  } else {
    // One thread per whole vector; at least one for the tail (B*N < V leaves no whole vector).
    const int64_t threads_needed = std::max<int64_t>(p.B * p.N / V, 1);
    const int64_t blocks =
        std::min<int64_t>((threads_needed + c.threads - 1) / c.threads, kMaxFlatBlocks);
    flat_rows_kernel<T, IndexT, V>
        <<<static_cast<unsigned>(blocks), c.threads, 0, stream>>>(x, offsets, y, out, p.B, p.N);
  }
  AOTUNE_CUDA_CHECK_LAUNCH();
}

template <typename T, typename IndexT>
void launch_index(const Config& c, const Problem& p, cudaStream_t stream) {
  switch (c.vec) {
    case 1:
      return launch_vec<T, IndexT, 1>(c, p, stream);
    case 2:
      return launch_vec<T, IndexT, 2>(c, p, stream);
    case 4:
      return launch_vec<T, IndexT, 4>(c, p, stream);
    case 8:
      // Vec<float, 8> would be a 32-byte access; supports() rejects it before we get here.
      if constexpr (8 * sizeof(T) <= 16) return launch_vec<T, IndexT, 8>(c, p, stream);
      break;
  }
  throw InvalidArgument("jagged_dense_add: no kernel for vec=" + std::to_string(c.vec) + " with " +
                        std::to_string(sizeof(T)) + "-byte elements");
}

// Entry of each instance file: dispatch on the offsets type, then the vector width.
template <typename T>
void launch_typed(const Config& c, const Problem& p, cudaStream_t stream) {
  if (p.index == IndexType::i32) {
    launch_index<T, int32_t>(c, p, stream);
  } else {
    launch_index<T, int64_t>(c, p, stream);
  }
}

}  // namespace aotune::jagged_dense_add::detail
