// Device code of jagged_reduce's flat_row strategy. Included by jagged_reduce_launch_impl.cuh only.
//
// flat_row, for narrow rows: M x sizeof(T) divides 16 bytes (M = 1, 2, 4 for fp32; also 8 for
// 16-bit types). A row's len x M values are one contiguous run, so a group of `lanes` threads
// (a power of two: 2-32 lanes inside one warp, or 64-kFlatRowMaxThreads lanes, whole warps) reads it
// as 16-byte vectors, kFlatRowVectors of them in flight per lane, and the lanes' sums meet by warp
// shuffles, then (groups of several warps) in shared memory. group_row's lanes run along M instead: at
// M = 1 in fp32 each of its loads is 4 bytes, and a 1 GB shape of rows up to 4096 entries (B=65536
// M=1 f32) stayed at 3.2 TB/s behind the instruction count (session-18 database, block_row.t128.v1
// best). flat_scan reads 16-byte vectors too but pays a block-wide scan per tile to find rows;
// here every group knows its row, which suits uniform rows (flat_scan suits skewed ones).
// Groups of several warps are for long rows: a warp keeps 2 KB of a row in flight, so a row of
// 8192 bf16 entries took four rounds of memory latency and flat_scan was the best config there at
// 0.4-1.2 TB/s (session 23).
//
// Columns: values is 16-byte aligned (supports()) and a row starts at element offsets[b] x M, a
// multiple of M; M divides the elements per vector, so element k of any vector is column k % M.
// The row's elements before its first whole vector and after its last one (fewer than a vector
// each) are added one by one, into the vector slot their address gives them (same column).
// jagged_mean's rows with a feature count of 0 load nothing (their outputs are zeros).
#pragma once

#include <cstdint>

#include "kernels/common/device_types.cuh"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "kernels/jagged_reduce/jagged_reduce_kernels.cuh"

namespace aotune::jagged_reduce::device {

// acc[k] += x where k = slot (k < P): compile-time indices only, so acc stays in registers.
template <int P>
__device__ __forceinline__ void add_at(float (&acc)[P], int slot, float x) {
#pragma unroll
  for (int k = 0; k < P; ++k)
    if (k == slot) acc[k] += x;
}

// Elements [from, to) of values, fewer than a vector's worth, split over the group's lanes.
template <typename T, int P>
__device__ __forceinline__ void add_loose(float (&acc)[P], const T* __restrict__ values, int64_t from, int64_t to,
                                          int lane, int lanes) {
  for (int64_t e = from + lane; e < to; e += lanes) add_at<P>(acc, static_cast<int>(e % P), to_float(values[e]));
}

// This lane's column sums over the flat values elements [s, t) (whole entries: s and t are
// multiples of MC), read by `lanes` lanes as 16-byte vectors, kFlatRowVectors in flight per lane:
// col[c] for column c, before the lanes' sums meet. Shared by flat_row's groups and flat_split's
// row and split blocks.
template <typename T, int MC>
__device__ __forceinline__ void flat_walk(float (&col)[MC], const T* __restrict__ values, int64_t s, int64_t t,
                                          int lane, int lanes) {
  constexpr int P = 16 / sizeof(T);  // elements per vector
  static_assert(P % MC == 0, "M x sizeof(T) must divide 16");
  using V = Vec<T, P>;
  float acc[P] = {};  // acc[k]: this lane's sum of vector element k, that is of column k % MC
  const int64_t vs = (s + P - 1) / P, ve = max(vs, t / P);  // the whole vectors: [vs, ve)
  add_loose<T, P>(acc, values, s, min(t, vs * P), lane, lanes);
  add_loose<T, P>(acc, values, max(s, ve * P), t, lane, lanes);
  const V* __restrict__ src = reinterpret_cast<const V*>(values);
  int64_t i = vs + lane;
  // kFlatRowVectors independent loads in flight per lane before their adds.
  for (; i + (kFlatRowVectors - 1) * lanes < ve; i += kFlatRowVectors * lanes) {
    V x[kFlatRowVectors];
#pragma unroll
    for (int q = 0; q < kFlatRowVectors; ++q) x[q] = src[i + q * lanes];
#pragma unroll
    for (int q = 0; q < kFlatRowVectors; ++q) {
#pragma unroll
      for (int k = 0; k < P; ++k) acc[k] += to_float(x[q].v[k]);
    }
  }
  // The last partial step: its loads predicated, still all issued before the adds.
  if (i < ve) {
    V x[kFlatRowVectors];
#pragma unroll
    for (int q = 0; q < kFlatRowVectors; ++q) {
      if (i + q * lanes < ve) {
        x[q] = src[i + q * lanes];
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) x[q].v[k] = from_float<T>(0.0f);
      }
    }
#pragma unroll
    for (int q = 0; q < kFlatRowVectors; ++q) {
#pragma unroll
      for (int k = 0; k < P; ++k) acc[k] += to_float(x[q].v[k]);
    }
  }
#pragma unroll
  for (int k = 0; k < P; ++k) col[k % MC] += acc[k];
}

template <typename T, typename IndexT, int MC>
__global__ void flat_row_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                const IndexT* __restrict__ fc, T* __restrict__ out, int64_t B, int lanes, bool mean) {
  const int lane = threadIdx.x % lanes;
  const int64_t b = int64_t(blockIdx.x) * (blockDim.x / lanes) + threadIdx.x / lanes;
  int64_t rs = 0, re = 0, cols = 0;
  if (b < B) {
    rs = offsets[b];
    re = offsets[b + 1];
    cols = row_cols(fc, b, int64_t{MC});
  }
  // jagged_mean: a row with a feature count of 0 outputs zeros whatever its values, so none of
  // them are loaded. The row strategies skip each column past a row's feature count; here one
  // vector holds every column, so only whole rows can be skipped (at M = 1, the rows with fc = 0:
  // about half of them with random feature counts).
  const int64_t load_end = cols > 0 ? re : rs;
  // No early return: every lane of the warp takes part in the shuffles below.
  float col[MC] = {};
  flat_walk<T, MC>(col, values, rs * MC, load_end * MC, lane, lanes);
  const int warp_lanes = lanes < 32 ? lanes : 32;
  for (int o = 1; o < warp_lanes; o <<= 1) {  // lanes is a power of two, groups aligned inside the warp
#pragma unroll
    for (int c = 0; c < MC; ++c) col[c] += __shfl_xor_sync(0xffffffffu, col[c], o);
  }
  if (lanes > 32) {  // the same for every thread of the block, so all of them reach the barrier
    // Each warp's sum goes to shared memory; the group's first lane adds its other warps' sums in
    // warp order (the same order every run).
    __shared__ float warp_sums[kFlatRowMaxThreads / 32][MC];
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) {
#pragma unroll
      for (int c = 0; c < MC; ++c) warp_sums[warp][c] = col[c];
    }
    __syncthreads();
    if (lane == 0) {
      for (int w = 1; w < lanes / 32; ++w) {
#pragma unroll
        for (int c = 0; c < MC; ++c) col[c] += warp_sums[warp + w][c];
      }
    }
  }
  if (b < B && lane == 0) store<T, MC>(out, b, MC, 0, cols, row_scale(mean, re - rs), col);
}

}  // namespace aotune::jagged_reduce::device
