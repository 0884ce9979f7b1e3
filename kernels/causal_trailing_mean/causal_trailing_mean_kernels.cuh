// Device kernels of causal_trailing_mean and the typed launcher that picks one. Compile-time knobs
// are the storage type, the block size, the scanning unit (block or warp) and the items per thread;
// the segment length is runtime. Included only by the per-dtype instance files
// (causal_trailing_mean_launch_<dtype>.cu).
//
// Algorithm: each row is cut into segments, each segment into tiles of UNIT*ITEMS elements. With
// S(t) = S(t-1) + x[t] - x[t-cf] (the second term only for t >= cf) and S(s0-1) the halo sum of
// x[max(0, s0-cf) .. s0-1], a segment is an inclusive scan of d[t] = x[t] - x[t-cf] seeded by its
// halo, and out[t] = S(t) / min(t+1, cf). d is formed in fp64 (exact for every storage type) and
// the scan runs in fp64, so no rounding error accumulates along T (BENCH.md, Numerics), and S(t)
// stays accurate even when the window's values are tiny next to their neighbours (an fp32 scan
// fails there: 1e-6 computed as 0.7 + (1e-6 - 0.7) is off by up to 2^-25, over 1e-2 relative).
// Work items (row, segment) are numbered linearly and taken grid-stride, so no grid dimension
// limits any shape (rows * segments may exceed 2^31 or 65535 freely).
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <string>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_launch.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/device_types.cuh"
#include "kernels/common/errors.h"

namespace aotune::causal_trailing_mean::detail {

// How a launch cuts the rows: `work` = rows * nseg items, item w is segment w % nseg of row w / nseg.
struct RowCut {
  int64_t T = 0;
  int64_t cf = 1;
  int64_t seg_len = 1;
  int64_t nseg = 1;
  int64_t work = 0;
};

constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

// Shared-memory slot of tile element j: one pad word per 32 keeps both the striped (global-facing)
// and the blocked (ITEMS consecutive per thread) accesses free of bank conflicts.
__device__ __forceinline__ int padded(int j) { return j + (j >> 5); }

__device__ __forceinline__ double warp_inclusive_scan(double v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const double y = __shfl_up_sync(kFullMask, v, o);
    if (lane >= o) v += y;
  }
  return v;
}

// Butterfly: every lane ends with the same bits.
__device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

// Cooperative steps of one scanning unit: the whole block (UNIT == blockDim.x) or one warp
// (UNIT == 32). Block units use UNIT/32 doubles of shared scratch; the caller syncs the unit
// between one use of the scratch and the next.
template <int UNIT>
struct UnitOps {
  static constexpr int kWarps = UNIT / 32;

  __device__ static void sync() {
    if constexpr (UNIT == 32) {
      __syncwarp();
    } else {
      __syncthreads();
    }
  }

  // Exclusive prefix of v over the unit's threads; `total` gets the unit's sum, the same bits in
  // every thread (all add the warp totals in one order).
  __device__ static double exclusive_scan(double v, double& total, double* scratch) {
    const int lane = threadIdx.x & 31;
    const double inclusive = warp_inclusive_scan(v);
    double exclusive = __shfl_up_sync(kFullMask, inclusive, 1);
    if (lane == 0) exclusive = 0.0;
    if constexpr (UNIT == 32) {
      total = __shfl_sync(kFullMask, inclusive, 31);
      return exclusive;
    } else {
      const int warp = threadIdx.x >> 5;
      if (lane == 31) scratch[warp] = inclusive;
      __syncthreads();
      double before = 0.0, all = 0.0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        const double s = scratch[w];
        if (w < warp) before += s;
        all += s;
      }
      total = all;
      return before + exclusive;
    }
  }

  // Sum of v over the unit, the same bits in every thread.
  __device__ static double sum(double v, double* scratch) {
    v = warp_sum(v);
    if constexpr (UNIT == 32) {
      return v;
    } else {
      if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
      __syncthreads();
      double all = 0.0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) all += scratch[w];
      return all;
    }
  }
};

// Sum of xr[h0 .. h1) over the unit in fp64 (the window sum ending just before a segment).
template <typename T, int UNIT>
__device__ double halo_sum(const T* __restrict__ xr, int64_t h0, int64_t h1, int lane,
                           double* scratch) {
  double acc = 0.0;
  int64_t i = h0 + lane;
  for (; i + 3 * UNIT < h1; i += 4 * UNIT) {  // four loads in flight per thread
    const float v0 = to_float(xr[i]);
    const float v1 = to_float(xr[i + UNIT]);
    const float v2 = to_float(xr[i + 2 * UNIT]);
    const float v3 = to_float(xr[i + 3 * UNIT]);
    acc += (double(v0) + double(v1)) + (double(v2) + double(v3));
  }
  for (; i < h1; i += UNIT) acc += double(to_float(xr[i]));
  return UnitOps<UNIT>::sum(acc, scratch);
}

// x, out: [rows, T] row-major. Units take work items in order, so the segments of one row run side
// by side and their halo and lagged reads mostly hit L2.
template <typename T, int BLOCK, int UNIT, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    trailing_mean_kernel(const T* __restrict__ x, T* __restrict__ out, RowCut cut) {
  static_assert(BLOCK % 32 == 0 && (UNIT == 32 || UNIT == BLOCK), "a unit is a warp or the block");
  using Ops = UnitOps<UNIT>;
  constexpr int kUnits = BLOCK / UNIT;
  constexpr int kTile = UNIT * ITEMS;
  constexpr int kPadded = kTile + kTile / 32;
  // x[t] and x[t-cf] travel apart (as fp32, exact for every storage type) so that their
  // difference is formed exactly in fp64 after the transpose.
  __shared__ float s_a[kUnits][kPadded];
  __shared__ float s_b[kUnits][kPadded];
  __shared__ double s_scratch[BLOCK / 32];

  const int unit = threadIdx.x / UNIT;
  const int lane = threadIdx.x % UNIT;
  float* const a = s_a[unit];
  float* const b = s_b[unit];
  const float inv_cf = 1.0f / static_cast<float>(cut.cf);

  for (int64_t w = int64_t(blockIdx.x) * kUnits + unit; w < cut.work;
       w += int64_t(gridDim.x) * kUnits) {
    const int64_t row = cut.nseg == 1 ? w : w / cut.nseg;  // whole rows skip the 64-bit division
    const int64_t s0 = (w - row * cut.nseg) * cut.seg_len;
    const int64_t s1 = min64(cut.T, s0 + cut.seg_len);
    const T* const xr = x + row * cut.T;
    T* const outr = out + row * cut.T;
    double carry = 0.0;  // S(t0 - 1)
    if (s0 > 0) carry = halo_sum<T, UNIT>(xr, max64(0, s0 - cut.cf), s0, lane, s_scratch);

    for (int64_t t0 = s0; t0 < s1; t0 += kTile) {
      const int n = static_cast<int>(min64(kTile, s1 - t0));
      Ops::sync();  // the previous tile's stores have read the shared tile
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {  // striped: coalesced global loads
        const int j = k * UNIT + lane;
        float va = 0.0f, vb = 0.0f;
        if (j < n) {
          const int64_t t = t0 + j;
          va = to_float(xr[t]);
          if (t >= cut.cf) vb = to_float(xr[t - cut.cf]);
        }
        a[padded(j)] = va;
        b[padded(j)] = vb;
      }
      Ops::sync();

      double local[ITEMS];  // blocked: this thread's ITEMS consecutive elements
      double run = 0.0;
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const int j = lane * ITEMS + k;
        run += double(a[padded(j)]) - double(b[padded(j)]);
        local[k] = run;
      }
      double tile_total = 0.0;
      const double prefix = carry + Ops::exclusive_scan(run, tile_total, s_scratch);
      carry += tile_total;
      // Every blocked read must precede these writes: a block unit's scan holds a barrier already.
      if constexpr (UNIT == 32) __syncwarp();
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const int j = lane * ITEMS + k;
        const int64_t t = t0 + j;
        const float s = static_cast<float>(prefix + local[k]);
        a[padded(j)] = t + 1 < cut.cf ? s / static_cast<float>(t + 1) : s * inv_cf;
      }
      Ops::sync();
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {  // striped: coalesced global stores
        const int j = k * UNIT + lane;
        if (j < n) outr[t0 + j] = from_float<T>(a[padded(j)]);
      }
    }
  }
}

template <typename T, int BLOCK, int UNIT, int ITEMS>
void run_kernel(const Problem& p, const RowCut& cut, cudaStream_t stream) {
  constexpr int64_t kUnits = BLOCK / UNIT;
  const int64_t blocks = std::min<int64_t>((cut.work + kUnits - 1) / kUnits, INT_MAX);
  trailing_mean_kernel<T, BLOCK, UNIT, ITEMS><<<static_cast<unsigned>(blocks), BLOCK, 0, stream>>>(
      static_cast<const T*>(p.x), static_cast<T*>(p.out), cut);
  AOTUNE_CUDA_CHECK_LAUNCH();
}

[[noreturn]] inline void no_instance(const Config& c) {
  throw InvalidArgument("causal_trailing_mean: no compiled kernel for config " + config_id(c));
}

template <typename T, int BLOCK, int UNIT>
void dispatch_items(const Config& c, const Problem& p, const RowCut& cut, cudaStream_t stream) {
  switch (c.items) {
    case 1: return run_kernel<T, BLOCK, UNIT, 1>(p, cut, stream);
    case 2: return run_kernel<T, BLOCK, UNIT, 2>(p, cut, stream);
    case 4: return run_kernel<T, BLOCK, UNIT, 4>(p, cut, stream);
    case 8: return run_kernel<T, BLOCK, UNIT, 8>(p, cut, stream);
    case 16:
      if constexpr (UNIT != 32) return run_kernel<T, BLOCK, UNIT, 16>(p, cut, stream);
      break;
    default: break;
  }
  no_instance(c);
}

// Requires supports(c, p) and B*D*T > 0.
template <typename T>
void launch_typed(const Config& c, const Problem& p, cudaStream_t stream) {
  RowCut cut;
  cut.T = p.T;
  cut.cf = p.cf;
  cut.seg_len = segment_length(c, p.T);
  cut.nseg = (p.T + cut.seg_len - 1) / cut.seg_len;
  cut.work = p.B * p.D * cut.nseg;  // <= B*D*T, which validate() bounded
  const bool warp = c.unit == Unit::warp;
  switch (c.threads) {
    case 128:
      return warp ? dispatch_items<T, 128, 32>(c, p, cut, stream)
                  : dispatch_items<T, 128, 128>(c, p, cut, stream);
    case 256:
      return warp ? dispatch_items<T, 256, 32>(c, p, cut, stream)
                  : dispatch_items<T, 256, 256>(c, p, cut, stream);
    default: no_instance(c);
  }
}

}  // namespace aotune::causal_trailing_mean::detail
