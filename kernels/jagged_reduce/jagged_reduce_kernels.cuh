// Device code of jagged_sum / jagged_mean. Included by the per-dtype launch files only.
// Layout reminder: row b's elements are values[offsets[b] .. offsets[b+1]), each M wide, so a row
// is one contiguous run of len_b * M values. Lanes run along M with `VEC`-wide loads.
#pragma once

#include <cstdint>

#include "kernels/common/device_types.cuh"
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::jagged_reduce::device {

// Columns [c0, c0+VEC) of elements e, e + step, ..., e + (N-1) step, those before `end` only, all
// N loads issued before any add: a row's last (partial) group. Columns past the first `cols` (for
// jagged_mean, masked out anyway) are never loaded. That remainder used to be walked one load at
// a time, each waiting for the one before; on rows of 16-64 elements it was up to three of a
// thread's five round trips to memory. Lanes past `end` add exact zeros.
// (The full groups keep their unconditional loads: predicating every group cost up to 12 % on long
// rows, session 8 A/B.)
template <typename T, int VEC, int N = 4>
__device__ __forceinline__ void accumulate_tail(float (&acc)[VEC], const T* __restrict__ values, int64_t e,
                                                int64_t step, int64_t end, int64_t M, int64_t c0, int64_t cols) {
  if (c0 >= cols) return;
  Vec<T, VEC> v[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int64_t ek = e + k * step;
    if (ek < end) {
      if constexpr (VEC == 1) {
        v[k].v[0] = __ldg(values + ek * M + c0);
      } else {
        v[k] = *reinterpret_cast<const Vec<T, VEC>*>(values + ek * M + c0);
      }
    } else {
#pragma unroll
      for (int i = 0; i < VEC; ++i) v[k].v[i] = from_float<T>(0.0f);
    }
  }
#pragma unroll
  for (int k = 0; k < N; ++k) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) acc[i] += to_float(v[k].v[i]);
  }
}

// Loads group_row's row walk keeps in flight per thread: 8 for loads under 16 bytes, 4 for 16-byte
// ones (64 bytes either way, as nnz_split's kLoads). With 4 everywhere, a thread of a group_row
// config with 4- or 8-byte loads had 16-32 bytes in flight and waited on DRAM (session 26 A/B: 8
// took every such config to 0.5-0.95 of its time, and none slower).
template <typename T, int VEC>
constexpr int kRowLoads = VEC * sizeof(T) >= 16 ? 4 : 8;

// Columns [c0, c0+VEC) of elements e, e + step, ..., e + (N-1) step, all N loads issued before any
// add. Every element must exist (the full groups of a row walk).
template <typename T, int VEC, int N>
__device__ __forceinline__ void accumulate_group(float (&acc)[VEC], const T* __restrict__ values, int64_t e,
                                                 int64_t step, int64_t M, int64_t c0) {
  Vec<T, VEC> v[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if constexpr (VEC == 1) {
      v[k].v[0] = __ldg(values + (e + k * step) * M + c0);
    } else {
      v[k] = *reinterpret_cast<const Vec<T, VEC>*>(values + (e + k * step) * M + c0);
    }
  }
#pragma unroll
  for (int k = 0; k < N; ++k) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) acc[i] += to_float(v[k].v[i]);
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

// Brings the line holding *p into L1 without waiting for it (a hint: no register, no stall).
__device__ __forceinline__ void prefetch_l1(const void* p) { asm volatile("prefetch.global.L1 [%0];" ::"l"(p)); }

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
  // Columns past the row's feature count (jagged_mean) are never loaded, and a thread whose
  // columns all are does not walk the row at all: a long row with a feature count of 0 costs
  // nothing (walking it with the loads skipped still took one loop step per 4 elements).
  if (c0 < M && c0 < cols) {
    int64_t e = start + ty;
    // Four independent loads in flight per thread before their adds. (Eight under 16-byte loads, as
    // group_row below, measured mixed here in session 26: 0.4-0.8x on 2- and 4-byte loads, which are
    // rarely block_row's best vector, but up to 1.27x slower on f32 v2 and 1.05x on the best
    // block_row config of B=512 M=1024 len <= 128 f32.)
    for (; e + 3 * ty_count < end; e += 4 * ty_count) accumulate_group<T, VEC, 4>(acc, values, e, ty_count, M, c0);
    if (e < end) accumulate_tail<T, VEC>(acc, values, e, ty_count, end, M, c0, cols);
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

// group_row: a group of TX x SLOTS (<= 32, within one warp) threads per row, blockDim.x / (TX x
// SLOTS) rows per block. TX lanes run along M; the SLOTS lane groups take every SLOTS-th element of
// the row, so a thread walks len/SLOTS elements alone (no shared memory or barrier), and the slots'
// partials meet by warp shuffles. For many short rows: SLOTS > 1 shortens the chain of dependent
// loads each thread waits on, which is what limits rows of 16-64 elements.
template <typename T, typename IndexT, int VEC>
__global__ void group_row_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                 const IndexT* __restrict__ fc, T* __restrict__ out, int64_t B, int64_t M,
                                 int tx_lanes, int slots, bool mean) {
  const int group = tx_lanes * slots;
  const int in_group = threadIdx.x % group;
  const int slot = in_group / tx_lanes, tx = in_group % tx_lanes;
  const int64_t b = int64_t(blockIdx.x) * (blockDim.x / group) + threadIdx.x / group;
  const int64_t c0 = (int64_t(blockIdx.y) * tx_lanes + tx) * VEC;
  // No early return: every lane of the warp takes part in the shuffles below.
  const bool active = b < B && c0 < M;
  int64_t start = 0, end = 0, cols = 0;
  if (b < B) {
    start = offsets[b];
    end = offsets[b + 1];
    cols = row_cols(fc, b, M);
  }
  float acc[VEC] = {};
  if (active && c0 < cols) {  // masked columns walk nothing (block_row)
    int64_t e = start + slot;
    constexpr int L = kRowLoads<T, VEC>;
    for (; e + (L - 1) * slots < end; e += L * slots) accumulate_group<T, VEC, L>(acc, values, e, slots, M, c0);
    if (e < end) accumulate_tail<T, VEC, L>(acc, values, e, slots, end, M, c0, cols);
  }
  // Lanes tx, tx + tx_lanes, tx + 2 tx_lanes, ... hold the slots of one column: xor over the slot bits.
  for (int o = tx_lanes; o < group; o <<= 1) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  }
  if (active && slot == 0) store<T, VEC>(out, b, M, c0, cols, row_scale(mean, end - start), acc);
}

// The last row b with offsets[b] <= e (kStrict: offsets[b] < e), searched by the whole block at
// once: each round every thread probes kProbes of n = kProbes x blockDim.x evenly spaced rows (both
// loads in flight together) and __syncthreads_count tells how many lie at or before e, so the
// range shrinks by n + 1 per round (B = 10^6 at 128 threads and one probe: 3 rounds of one round
// trip each, where a binary search is 20 dependent loads). Every thread of the block calls it with
// the same e and gets the same row. Requires offsets[0] <= e < offsets[B], and for kStrict also
// offsets[0] < e. Without kStrict it is the row holding element e.
// Two probes suit flat_scan, whose block start is on its critical path: its cells measured 0.983
// (jagged_sum) and 0.991 (jagged_mean) of one probe's on the H200, even where the second probe
// saves no round (PERF.md "Session 29"), and taking it only where it saves one cost flat_scan<float,
// M = 1> 10 registers and those gains ("Session 30"). nnz_split keeps one: with two, its cells of
// shapes over 65 us read 2.3 % slower against block_row's in the same re-sweep ("Session 30").
template <int kProbes = 1, bool kStrict = false, typename IndexT>
__device__ __forceinline__ int64_t block_find_row(const IndexT* offsets, int64_t B, int64_t e) {
  static_assert(kProbes == 1 || kProbes == 2, "one or two probes per thread and round");
  int64_t lo = 0, hi = B;  // invariant: offsets[lo] <= e < offsets[hi] (kStrict: offsets[lo] < e <= offsets[hi])
  const int64_t n = kProbes * int64_t{blockDim.x};  // probes per round
  auto before = [&](int64_t p) {
    const int64_t o = static_cast<int64_t>(offsets[p]);
    return kStrict ? o < e : o <= e;
  };
  while (hi - lo > 1) {
    const int64_t r = hi - lo;
    // Probe k at lo + (k + 1) r / (n + 1), nondecreasing in k; this thread takes k = threadIdx.x
    // and, with two probes, k = threadIdx.x + blockDim.x. Both loads are issued before the first
    // barrier; with one probe, pb and b fold away (the same code as before the second probe).
    const int64_t pa = lo + (int64_t(threadIdx.x) + 1) * r / (n + 1);
    const int64_t pb = lo + (int64_t(threadIdx.x) + 1 + blockDim.x) * r / (n + 1);
    const bool a = pa < hi && before(pa), b = kProbes == 2 && pb < hi && before(pb);
    const int count = __syncthreads_count(a) + (kProbes == 2 ? __syncthreads_count(b) : 0);
    // The probes at or before e form a prefix (offsets ascend): the last of them is the new lo,
    // the first after them the new hi. Probes equal to lo count as "at or before" and are
    // harmless; when r <= n + 1 the probes cover every row in range, so the next range is 1 row.
    const int64_t new_lo = count > 0 ? lo + int64_t(count) * r / (n + 1) : lo;
    const int64_t new_hi = count < n ? lo + (int64_t(count) + 1) * r / (n + 1) : hi;
    lo = new_lo;
    hi = new_hi > new_lo ? new_hi : new_lo + 1;
  }
  return lo;
}

// Row holding element e, given a row lo with offsets[lo] <= e: a galloping search upward from lo,
// so a thread whose element is near e's block start (the usual case) needs one or two loads, and
// those hit the lines the block search just brought in. Requires e < offsets[B].
template <typename IndexT>
__device__ __forceinline__ int64_t find_row_from(const IndexT* offsets, int64_t B, int64_t e, int64_t lo) {
  int64_t step = 1, hi = lo + 1;
  while (hi < B && static_cast<int64_t>(offsets[hi]) <= e) {
    lo = hi;
    step *= 2;
    hi = min(B, lo + step);
  }
  while (hi - lo > 1) {  // offsets[lo] <= e < offsets[hi]
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(offsets[mid]) <= e) lo = mid; else hi = mid;
  }
  return lo;
}

// Reads acc[b, c0 .. c0+VEC) and leaves zeros behind (one atomic exchange per element, at L2,
// where the atomics that filled it were performed), then writes the row's outputs.
template <typename T, int VEC>
__device__ __forceinline__ void drain_row(float* __restrict__ acc_ws, T* __restrict__ out, int64_t b, int64_t M,
                                          int64_t c0, int64_t cols, float scale) {
  if (c0 >= M) return;
  float v[VEC];
#pragma unroll
  for (int i = 0; i < VEC; ++i) v[i] = c0 + i < cols ? atomicExch(acc_ws + b * M + c0 + i, 0.0f) : 0.0f;
  store<T, VEC>(out, b, M, c0, cols, scale, v);
}

// One block's arrival at a row spread over `others` + 1 blocks, after a __threadfence() that made
// its atomics visible device-wide: true for the last to arrive, which resets the counter for the
// next launch and may then read the others' sums (drain_row).
__device__ __forceinline__ bool arrive_last(unsigned* counter, unsigned others) {
  const bool last = atomicAdd(counter, 1u) == others;
  if (last) *counter = 0;
  __threadfence();  // the counter read is ordered before the reads of the other blocks' sums
  return last;
}

// Block-wide sum over the ty row groups of pooled[VEC] (one partial per thread), through
// part[blockDim.x * VEC] of shared memory; thread (ty = 0, tx) gets column tx's total in pooled.
// ty_count must be a power of two (supports() keeps nnz_split's threads one). Every thread calls it.
template <int VEC>
__device__ __forceinline__ void block_sum_over_rows(float (&pooled)[VEC], float* part, int tx, int ty,
                                                    int tx_lanes, int ty_count) {
#pragma unroll
  for (int i = 0; i < VEC; ++i) part[(ty * tx_lanes + tx) * VEC + i] = pooled[i];
  __syncthreads();
  for (int s = ty_count / 2; s > 0; s /= 2) {
    if (ty < s) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) part[(ty * tx_lanes + tx) * VEC + i] += part[((ty + s) * tx_lanes + tx) * VEC + i];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < VEC; ++i) pooled[i] = part[tx * VEC + i];
  __syncthreads();  // part is reused by the next call
}

// nnz_split, one launch. Block (x, y) takes elements [x*rows_per_chunk, ...) of the whole tensor,
// whatever rows they belong to (so a huge row is spread over many blocks), for column tile y.
//
// Phase 1: each thread adds its row segments into the fp32 accumulator acc_ws[B, M] with atomics,
// except for the two rows that can continue outside the chunk: the row holding the chunk's first
// element (head) and the one holding its last (tail). Their partials are first summed over the
// block in shared memory, so each adds one atomic per column per chunk. Without this, a huge row
// took one atomic per thread per column from every chunk it covers, all on the same M addresses,
// and that serialisation made small chunks up to 12x slower than the loads (session-4 sweep:
// B=1024 M=64 powerlaw, 2.5 ms instead of 0.2 ms). With one row group (ty_count = 1: M / VEC
// at least the block's threads) a row between the head and the tail is seen whole by its thread,
// which writes its output directly: on short-row chunks the atomics and the phase-2 drain, one
// dependent L2 round trip per row, were most of the time (ncu, session 16: jagged_sum B=8192
// M=256 one_huge bf16 at 606 GB/s, a third of warp cycles waiting on global loads).
// Phase 2: the rows the chunk touches are finished without a second kernel. A row that lies inside
// this chunk is drained by this block right away. A row spread over several chunks is drained by
// the last of its chunks to arrive: each bumps the row's arrival counter (per column tile) once,
// after a fence that makes its atomics visible, and the one that sees all the others finishes it.
// Empty rows get their zeros from the chunk holding their start position (the last chunk for rows
// that start at nnz; with nnz = 0 the grid is one block for that).
// The workspace (acc_ws, then arrivals[B * gridDim.y]) must be all zero before the first launch;
// every launch leaves it all zero again (drain_row and the reset of each counter), so a buffer
// kept between calls is zeroed once, and there is no separate zero-fill launch.
// Dynamic shared memory: blockDim.x * VEC floats.
// ONE_GROUP: the launch has one row group (tx_lanes == blockDim.x). Its own instance, because the
// direct stores made the shared code up to 1.4x slower on row-group shapes (session 17 A/B:
// jagged_sum B=16384 M=32 powerlaw f32, nnz_split.t256.v2.c262144 272 -> 386 us).
// Registers: capped so an SM holds as many blocks as before the cross-row batches of phase 1 (4
// of 256 threads, 3 with 16-byte loads); left to itself ptxas took up to 90 of them for
// bf16 vec=4 (64 before), a block fewer per SM and so fewer loads in flight on long rows.
template <typename T, typename IndexT, int VEC, bool ONE_GROUP>
__global__ void __launch_bounds__(kNnzSplitMaxThreads, VEC * sizeof(T) >= 16 ? 3 : 4) nnz_split_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                 const IndexT* __restrict__ fc, T* __restrict__ out, float* __restrict__ acc_ws,
                                 unsigned* __restrict__ arrivals, int64_t B, int64_t M, int64_t nnz,
                                 int64_t rows_per_chunk, int tx_lanes, bool mean) {
  extern __shared__ float part[];  // [ty_count][tx_lanes * VEC]
  __shared__ int64_t s_row[2];   // rows holding the chunk's first and last element
  __shared__ bool s_finish[2];   // whether this block drains s_row[k] (it came last)
  __shared__ int64_t s_r_lo;
  const int tx = threadIdx.x % tx_lanes, ty = ONE_GROUP ? 0 : threadIdx.x / tx_lanes;
  const int ty_count = ONE_GROUP ? 1 : blockDim.x / tx_lanes;
  const int64_t c0 = (int64_t(blockIdx.y) * tx_lanes + tx) * VEC;
  const int64_t chunk = blockIdx.x;
  const bool last_chunk = chunk + 1 == gridDim.x;
  const int64_t e_begin = chunk * rows_per_chunk;
  const int64_t e_end = min(nnz, e_begin + rows_per_chunk);

  // Phase 1. No early return: every thread reaches the barriers below. The threads that take the
  // chunk's first and last elements (lane 0 of their row group) leave the rows holding them in
  // shared memory, so phase 2 needs no search of its own.
  const int64_t last_ty = e_end > e_begin ? (e_end - 1 - e_begin) % ty_count : -1;
  float head[VEC] = {};  // this thread's part of the head row (row s_row[0]), if it left that row
  float tail[VEC] = {};  // its partial of the row it ended in
  int64_t tail_row = -1;
  int64_t e = e_begin + ty;
  // The head row by one block-wide search (uniform condition: every thread takes part), then each
  // thread's first row by a short search up from it.
  const int64_t first_row = e_begin < e_end ? block_find_row(offsets, B, e_begin) : 0;
  if (c0 < M && e < e_end) {
    int64_t row = find_row_from(offsets, B, e, first_row);
    if (ty == 0 && tx == 0) s_row[0] = row;
    // The first row this thread meets is the head row exactly when it starts at or before e_begin.
    int64_t row_start = offsets[row];
    bool in_head = row_start <= e_begin;
    int64_t row_end = offsets[row + 1];
    int64_t stop = min(row_end, e_end);
    int64_t cols = row_cols(fc, row, M);
    float acc[VEC] = {};
    // Hands this thread's partial of `row`, which it has just left, to the head sum, to the output
    // (ONE_GROUP: the only row group saw every element of the row, which lies inside the chunk: it
    // started after e_begin and ended before e, so its sum is complete and is written here, with
    // no atomics into acc_ws and no drain in phase 2), or to acc_ws; then clears acc.
    auto leave_row = [&]() {
      if (in_head) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) head[i] = acc[i];
        in_head = false;
      } else if (ONE_GROUP) {
        store<T, VEC>(out, row, M, c0, cols, row_scale(mean, row_end - row_start), acc);
      } else {
#pragma unroll
        for (int i = 0; i < VEC; ++i)
          if (c0 + i < cols) atomicAdd(acc_ws + row * M + c0 + i, acc[i]);
      }
#pragma unroll
      for (int i = 0; i < VEC; ++i) acc[i] = 0;
    };
    constexpr int kLoads = VEC * sizeof(T) >= 16 ? 4 : 8;
    while (e < e_end) {
      if (e >= row_end) {  // crossed into a later row: flush, then advance past empty rows
        leave_row();
        while (e >= row_end) {
          row_start = row_end;
          row_end = offsets[++row + 1];
        }
        stop = min(row_end, e_end);
        cols = row_cols(fc, row, M);
      }
      // The full groups of kLoads run while e < last; then a cross-row batch (below).
      const int64_t last = stop - (kLoads - 1) * ty_count;
      if (c0 >= cols && e < last) {
        // Every column of this thread masked (jagged_mean): nothing to load or add, so straight
        // to where the row group's other lanes leave their full groups (a row with a feature
        // count of 0 costs one step, not one per element). Not past it: the lanes of a row group
        // must meet every row crossing at the same element, or their walks over the offsets
        // diverge within the warp. (Jumping to the row's end, as before the cross-row batches,
        // is the likely cause of jagged_mean's short-row shapes running up to 1.7x slower with
        // them, session 25: not yet measured with this.)
        const int64_t step = int64_t{kLoads} * ty_count;
        e += (last - e + step - 1) / step * step;
        continue;
      }
      if (e < last) {  // independent loads in flight before their adds
        accumulate_group<T, VEC, kLoads>(acc, values, e, ty_count, M, c0);
        e += kLoads * ty_count;
      } else {
        // Fewer than kLoads of this thread's elements are left in the row: its next kCross
        // elements before e_end, whatever rows they fall in, with every load issued before any
        // add; the row boundaries among them come from the offsets the block's threads share in
        // L1. (This used to stop at the row's end: on chunks of many short rows each row then cost a
        // thread one dependent round trip to DRAM, and those chunks set the kernel's time on
        // skewed shapes: jagged_sum one_huge B=8192 M=16 bf16 at 1.2 TB/s, docs/PERF.md
        // session 25.) Eight of them for loads under 8 bytes, four otherwise: eight took ptxas
        // past the register cap (spills) at 8 bytes. All of them are loaded, the masked columns
        // of jagged_mean's later rows too (in bounds: values is dense [nnz, M]; and harmless:
        // every consumer of acc, the head sum, the direct store and the atomics, keeps only
        // columns under the row's feature count), so the loads go out before the rows are found,
        // while they fly. (Finding the rows first, to skip masked columns, walked the short rows
        // twice: jagged_mean one_huge B=8192 M=16 2.3x slower; keeping the rows found spilled.)
        // A row's own masked columns still skip it whole (above): a long row with a feature
        // count of 0 costs a thread one step.
        constexpr int kCross = VEC * sizeof(T) >= 8 ? 4 : 8;
        unsigned live = 0;
#pragma unroll
        for (int k = 0; k < kCross; ++k) live |= (e + k * ty_count < e_end ? 1u : 0u) << k;
        Vec<T, VEC> v[kCross];
#pragma unroll
        for (int k = 0; k < kCross; ++k) {
          const int64_t ek = e + k * ty_count;
          if (live >> k & 1u) {
            if constexpr (VEC == 1) {
              v[k].v[0] = __ldg(values + ek * M + c0);
            } else {
              v[k] = *reinterpret_cast<const Vec<T, VEC>*>(values + ek * M + c0);
            }
          } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i) v[k].v[i] = from_float<T>(0.0f);
          }
        }
#pragma unroll
        for (int k = 0; k < kCross; ++k) {
          const int64_t ek = e + k * ty_count;
          if (ek >= e_end) break;
          if (ek >= row_end) {
            leave_row();
            while (ek >= row_end) {
              row_start = row_end;
              row_end = offsets[++row + 1];
            }
            cols = row_cols(fc, row, M);
          }
#pragma unroll
          for (int i = 0; i < VEC; ++i) acc[i] += to_float(v[k].v[i]);
        }
        stop = min(row_end, e_end);
        e += kCross * ty_count;
      }
    }
#pragma unroll
    for (int i = 0; i < VEC; ++i) tail[i] = acc[i];
    tail_row = row;
    if (ty == last_ty && tx == 0) s_row[1] = row;  // it ended on element e_end - 1
  }
  __syncthreads();  // s_row[] are known

  // The tail row (s_row[1]) and the head row (s_row[0]) are summed over the block; a thread that
  // ended in an inner row adds that one itself. When head and tail are the same row, every
  // thread's part of it is in tail (none left it), so head is all zeros and skipped.
  const bool any = e_begin < e_end;
  const int64_t head_row = any ? s_row[0] : -1, last_row = any ? s_row[1] : -1;
  if (tail_row >= 0 && tail_row != last_row) {
    if (tail_row == head_row) {  // never left the head row: its whole part joins the head sum
#pragma unroll
      for (int i = 0; i < VEC; ++i) head[i] = tail[i];
    } else {
      const int64_t cols = row_cols(fc, tail_row, M);
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        if (c0 + i < cols) atomicAdd(acc_ws + tail_row * M + c0 + i, tail[i]);
    }
  }
  if (tail_row != last_row) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) tail[i] = 0;
  }
  if (ty_count > 1) block_sum_over_rows<VEC>(tail, part, tx, ty, tx_lanes, ty_count);
  if (any && ty == 0 && c0 < M) {
    const int64_t cols = row_cols(fc, last_row, M);
#pragma unroll
    for (int i = 0; i < VEC; ++i)
      if (c0 + i < cols) atomicAdd(acc_ws + last_row * M + c0 + i, tail[i]);
  }
  if (any && head_row != last_row) {  // uniform over the block
    if (ty_count > 1) block_sum_over_rows<VEC>(head, part, tx, ty, tx_lanes, ty_count);
    if (ty == 0 && c0 < M) {
      const int64_t cols = row_cols(fc, head_row, M);
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        if (c0 + i < cols) atomicAdd(acc_ws + head_row * M + c0 + i, head[i]);
    }
  }
  __threadfence();  // this thread's atomics are visible device-wide before the block reports
  __syncthreads();

  // Rows spread over several chunks: only the rows holding e_begin (s_row[0]) and e_end - 1
  // (s_row[1]) can be. Lane 0 of warps 0 and 1 report this chunk's arrival for them at the same
  // time; each learns whether its chunk came last. Lane 0 of warp 2 finds where the rows inside
  // the chunk start. (Blocks have at least 128 threads: supports().)
  auto chunk_of = [&](int64_t pos) { return pos / rows_per_chunk; };
  if (e_begin < e_end && threadIdx.x < 64 && threadIdx.x % 32 == 0) {
    const int k = threadIdx.x / 32;
    const int64_t r = s_row[k];
    bool finishes = r >= 0 && (k == 0 || r != s_row[0]);
    if (finishes) {
      const int64_t first = chunk_of(offsets[r]), last = chunk_of(static_cast<int64_t>(offsets[r + 1]) - 1);
      if (first == last) {
        finishes = false;  // inside this chunk after all: drained below with the others
      } else {
        finishes = arrive_last(arrivals + r * int64_t(gridDim.y) + blockIdx.y, static_cast<unsigned>(last - first));
      }
    }
    s_finish[k] = finishes;
  }
  if (threadIdx.x == 64) {
    // Smallest row ending at or after e_begin: back from the row holding e_begin over the rows
    // that end exactly there (one non-empty row and any empty ones), or row 0 when nnz = 0.
    int64_t r = 0;
    if (e_begin < e_end) {
      r = s_row[0];
      while (r > 0 && static_cast<int64_t>(offsets[r]) >= e_begin) --r;
    }
    s_r_lo = r;
  }
  __syncthreads();
  if (ty == 0) {
    for (int k = 0; k < 2; ++k) {
      const int64_t r = s_row[k];
      if (e_begin >= e_end || !s_finish[k]) continue;
      const int64_t len = static_cast<int64_t>(offsets[r + 1]) - static_cast<int64_t>(offsets[r]);
      drain_row<T, VEC>(acc_ws, out, r, M, c0, row_cols(fc, r, M), row_scale(mean, len));
    }
  }

  // Rows inside this chunk, and the empty rows it owns.
  for (int64_t r = s_r_lo + ty; r < B; r += ty_count) {
    const int64_t s = offsets[r], t = offsets[r + 1];
    if (s >= e_end && !(last_chunk && s == nnz)) break;  // rows start in order: nothing later is ours
    if (s == t) {
      const bool owned = s == nnz ? last_chunk : chunk_of(s) == chunk;
      if (owned && c0 < M) {
        const float zero[VEC] = {};
        store<T, VEC>(out, r, M, c0, row_cols(fc, r, M), 1.0f, zero);
      }
    } else if (s >= e_begin && t <= e_end && (!ONE_GROUP || r == head_row || r == last_row)) {
      // With one row group, phase 1 wrote every inner row itself; only the head and tail rows,
      // summed over the block, went through acc_ws.
      drain_row<T, VEC>(acc_ws, out, r, M, c0, row_cols(fc, r, M), row_scale(mean, t - s));
    }
  }
}


// flat_scan, for narrow rows: M x sizeof(T) divides 16 bytes (M = 1, 2, 4 for fp32; 1, 2, 4, 8
// for 16-bit types), so one 16-byte vector holds E = 16 / (M x sizeof(T)) whole entries. values
// is read as one flat array, flat_scan_vectors() vectors per thread, whatever rows they belong to: every
// load is 16 bytes, where the row strategies give each row (or slot) lanes along M and so issue
// M x sizeof(T)-byte loads (0.6-2.9 TB/s on M = 1-4, session 17).
//
// A block takes `range` entries (a whole number of tiles of blockDim.x x those vectors; as
// many blocks as the GPU holds at once) and walks them tile by tile, the next tile's loads in
// flight while it sums the current one. Per tile, a thread sums each run of its entries that lies
// in one row (a segment). A row that starts and ends inside the thread is complete and stored
// right away. The rest meet in a block-wide scan of (row, partial) pairs, reduce-by-key, which
// starts from the block's carry (the part of the row open at the end of the previous tile): each
// thread learns the part of the row it starts in that lies before it, and the thread where that
// row ends adds it and stores the row. A row spread over several blocks (it started before the
// block, or it goes on past it) goes through the fp32 workspace with nnz_split's protocol: each
// block adds its part once (the thread where the row ends in the block, or the block's last
// thread), bumps the row's arrival counter after a fence, and the last block to arrive drains the
// row, so the workspace is left zero and the op is one launch. Empty rows get their zeros from the
// tile holding their start position (rows starting at nnz: the last).
//
// A thread finds the row its first entry is in without a search of its own: the block walks the
// row starts in the tile once and marks, at each thread's slot, the last non-empty row starting at
// or before the thread's first entry and after the previous thread's; a max-scan over the threads
// fills in the threads that start inside a longer row.

// Block-wide inclusive max-scan of v (one value per thread); warp_tmp holds one value per warp.
__device__ __forceinline__ int64_t block_max_scan(int64_t v, int64_t* warp_tmp) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int o = 1; o < 32; o <<= 1) {
    const int64_t u = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v = max(v, u);
  }
  if (lane == 31) warp_tmp[warp] = v;
  __syncthreads();
  for (int w = 0; w < warp; ++w) v = max(v, warp_tmp[w]);
  __syncthreads();  // warp_tmp is reused
  return v;
}

// Block-wide scan of (key, val) pairs under "the sum of val over the contiguous run of equal
// keys", keys nondecreasing over the threads, after a carry (carry_key, carry_val) that comes
// before thread 0. Returns the exclusive result in (ex_key, ex_val) and the inclusive one in
// (key, val).
template <int MC>
__device__ __forceinline__ void block_segmented_scan(int64_t key, float (&val)[MC], int64_t& ex_key,
                                                     float (&ex_val)[MC], int64_t carry_key,
                                                     const float (&carry_val)[MC], int64_t* warp_key,
                                                     float* warp_val) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int o = 1; o < 32; o <<= 1) {  // warp inclusive: only equal keys combine
    const int64_t k = __shfl_up_sync(0xffffffffu, key, o);
#pragma unroll
    for (int c = 0; c < MC; ++c) {
      const float u = __shfl_up_sync(0xffffffffu, val[c], o);
      if (lane >= o && k == key) val[c] += u;
    }
  }
  if (lane == 31) {
    warp_key[warp] = key;
#pragma unroll
    for (int c = 0; c < MC; ++c) warp_val[warp * MC + c] = val[c];
  }
  __syncthreads();
  int64_t pk = carry_key;  // the carry, then the earlier warps' runs, in order
  float pv[MC];
#pragma unroll
  for (int c = 0; c < MC; ++c) pv[c] = carry_val[c];
  for (int w = 0; w < warp; ++w) {
    const bool same = warp_key[w] == pk;
    pk = warp_key[w];
#pragma unroll
    for (int c = 0; c < MC; ++c) pv[c] = (same ? pv[c] : 0.0f) + warp_val[w * MC + c];
  }
  __syncthreads();  // warp_key / warp_val are free again
  // Exclusive within the warp: lane - 1's inclusive, then joined to what came before the warp.
  const int64_t lk = __shfl_up_sync(0xffffffffu, key, 1);
  float lv[MC];
#pragma unroll
  for (int c = 0; c < MC; ++c) lv[c] = __shfl_up_sync(0xffffffffu, val[c], 1);
  if (lane == 0) {
    ex_key = pk;
#pragma unroll
    for (int c = 0; c < MC; ++c) ex_val[c] = pv[c];
  } else {
    ex_key = lk;
#pragma unroll
    for (int c = 0; c < MC; ++c) ex_val[c] = (pk == lk ? pv[c] : 0.0f) + lv[c];
  }
#pragma unroll
  for (int c = 0; c < MC; ++c)
    if (pk == key) val[c] += pv[c];
}

// Adds one block's part of row r = [s, t) (cols live columns) to acc_ws; the last of the row's
// blocks to arrive writes the output and leaves acc_ws and the counter zero. The row's blocks are
// numbered by entry / range: those from first_entry's to (t - 1)'s take part (flat_scan: from s;
// flat_split, whose blocks take rows at range starts only: from the first range start in the
// row). The caller has the row's bounds at hand: loading them here, after the fence, would add a
// round trip to every block's end.
template <typename T, int MC>
__device__ __forceinline__ void add_part_of_row(T* __restrict__ out, float* __restrict__ acc_ws,
                                                unsigned* __restrict__ arrivals, int64_t r, int64_t s, int64_t t,
                                                int64_t cols, int64_t first_entry, int64_t range, bool mean,
                                                const float (&part)[MC]) {
#pragma unroll
  for (int c = 0; c < MC; ++c)
    if (c < cols) atomicAdd(acc_ws + r * MC + c, part[c]);
  __threadfence();  // the adds are visible device-wide before the arrival
  const unsigned others = static_cast<unsigned>((t - 1) / range - first_entry / range);
  if (arrive_last(arrivals + r, others)) drain_row<T, MC>(acc_ws, out, r, MC, 0, cols, row_scale(mean, t - s));
}

// flat_scan: one block's part of row r = [s, t), spread over the blocks of `range` entries it meets.
template <typename T, typename IndexT, int MC>
__device__ __forceinline__ void flat_add_spread_row(const IndexT* __restrict__ fc, T* __restrict__ out,
                                                    float* __restrict__ acc_ws, unsigned* __restrict__ arrivals,
                                                    int64_t r, int64_t s, int64_t t, int64_t range, bool mean,
                                                    const float (&part)[MC]) {
  add_part_of_row<T, MC>(out, acc_ws, arrivals, r, s, t, row_cols(fc, r, int64_t{MC}), s, range, mean, part);
}

// Entries [t0, t0 + ENTRIES) of values (VECTORS vectors of PER_VEC elements, MC per entry), those
// before `end`; zeros past it.
template <typename T, int MC, int PER_VEC, int VECTORS>
__device__ __forceinline__ void flat_load(Vec<T, PER_VEC> (&v)[VECTORS], const T* __restrict__ values,
                                          int64_t t0, int64_t end) {
  constexpr int ENTRIES = PER_VEC / MC * VECTORS;
  if (t0 + ENTRIES <= end) {
    const auto* src = reinterpret_cast<const Vec<T, PER_VEC>*>(values + t0 * MC);
#pragma unroll
    for (int k = 0; k < VECTORS; ++k) v[k] = src[k];
  } else {
#pragma unroll
    for (int i = 0; i < ENTRIES * MC; ++i) {
      const int64_t x = t0 * MC + i;
      v[i / PER_VEC].v[i % PER_VEC] = x < end * MC ? values[x] : from_float<T>(0.0f);
    }
  }
}

template <typename T, typename IndexT, int MC>
__global__ void __launch_bounds__(kFlatScanMaxThreads)
    flat_scan_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets, const IndexT* __restrict__ fc,
                     T* __restrict__ out, float* __restrict__ acc_ws, unsigned* __restrict__ arrivals, int64_t B,
                     int64_t nnz, int64_t range, bool mean) {
  constexpr int kPerVec = 16 / sizeof(T);     // elements per vector
  constexpr int E = kPerVec / MC;             // entries per vector
  constexpr int kVectors = flat_scan_vectors(sizeof(T), MC);
  constexpr int kEntries = E * kVectors;  // entries per thread and tile
  static_assert(E * MC == kPerVec, "M x sizeof(T) must divide 16");
  __shared__ int64_t s_first[kFlatScanMaxThreads];  // marks, then each thread's first row
  __shared__ int64_t s_warp_key[kFlatScanMaxThreads / 32];
  __shared__ float s_warp_val[kFlatScanMaxThreads / 32 * MC];
  __shared__ int64_t s_r_lo;  // the first row the tile's walk over row starts looks at
  __shared__ int64_t s_carry_key;
  __shared__ float s_carry_val[MC];

  const int64_t tile = int64_t(blockDim.x) * kEntries;
  const int64_t bb = int64_t(blockIdx.x) * range, be = min(nnz, bb + range);
  const bool last_block = blockIdx.x + 1 == gridDim.x;
  const int64_t tiles = be > bb ? (be - bb + tile - 1) / tile : 1;

  // The first tile's loads, in flight while the block finds the first row its walk over row
  // starts looks at: the last row that starts before bb. Every later row starts at or after bb,
  // so the empty rows at bb (this block's) are among them; the row itself, when it ends at or
  // before bb, is only looked at (the walk marks and stores nothing for it). Block 0 starts at
  // row 0. With feature counts the block first needs the row holding bb, for the check below.
  Vec<T, kPerVec> v[kVectors];
  flat_load<T, MC, kPerVec, kVectors>(v, values, bb + int64_t(threadIdx.x) * kEntries, be);
  const int64_t r0 = bb < be ? (fc == nullptr ? (bb > 0 ? block_find_row<2, true>(offsets, B, bb) : 0)
                                              : block_find_row<2>(offsets, B, bb))
                             : 0;
  // A block whose whole range lies inside one row with a feature count of 0 (jagged_mean) has
  // nothing to add: every output of that row is 0. It does what the walk below would do for it
  // and loads nothing more: the empty rows it owns get their zeros, and the row gets this block's
  // arrival (the last of its blocks writes the zeros), or its zeros when it is exactly this range.
  // The other strategies walk nothing for masked columns either (session 21), so a long row with
  // fc = 0 costs a block one step here, not one pass over its tiles. Uniform over the block: every
  // thread reads the same offsets and count, so the return skips no barrier of anyone's.
  if (fc != nullptr && bb < be && static_cast<int64_t>(offsets[r0 + 1]) >= be && fc[r0] == 0) {
    if (threadIdx.x == 0) {
      const float zero[MC] = {};
      // Empty rows starting at bb (before r0): this block's, as in the walk's marking loop.
      for (int64_t r = r0 - 1; r >= 0 && static_cast<int64_t>(offsets[r]) >= bb; --r)
        store<T, MC>(out, r, MC, 0, row_cols(fc, r, int64_t{MC}), 1.0f, zero);
      const int64_t s = offsets[r0], t = offsets[r0 + 1];
      if (s < bb || t > be) {
        flat_add_spread_row<T, IndexT, MC>(fc, out, acc_ws, arrivals, r0, s, t, range, mean, zero);
      } else {
        store<T, MC>(out, r0, MC, 0, 0, 1.0f, zero);
      }
      // The last block also owns the empty rows at nnz (after r0, which then ends there).
      if (last_block)
        for (int64_t r = r0 + 1; r < B && static_cast<int64_t>(offsets[r]) == nnz; ++r)
          store<T, MC>(out, r, MC, 0, row_cols(fc, r, int64_t{MC}), 1.0f, zero);
    }
    return;
  }
  if (threadIdx.x == 0) {
    int64_t r = r0;  // with feature counts, back from the row holding bb over the empty rows at bb
    if (fc != nullptr)
      while (r > 0 && static_cast<int64_t>(offsets[r - 1]) >= bb) --r;
    s_r_lo = r;
    s_carry_key = -1;
#pragma unroll
    for (int c = 0; c < MC; ++c) s_carry_val[c] = 0.0f;
  }

  for (int64_t k = 0; k < tiles; ++k) {
    const int64_t tb = bb + k * tile, te = min(be, tb + tile);
    const bool last_tile = k + 1 == tiles;
    const int64_t t_begin = tb + int64_t(threadIdx.x) * kEntries;
    const int64_t t_end = min(te, t_begin + kEntries);
    const bool active = t_begin < t_end;
    Vec<T, kPerVec> next[kVectors];
    if (!last_tile) flat_load<T, MC, kPerVec, kVectors>(next, values, t_begin + tile, be);

    // Every row from s_r_lo that starts before te (and, in the last tile, at nnz): zeros for the
    // empty ones; a non-empty one is marked at the first thread whose first entry it holds.
    s_first[threadIdx.x] = -1;
    __syncthreads();  // s_r_lo and the carry are set, every mark is cleared
    for (int64_t base = s_r_lo;; base += blockDim.x) {
      const int64_t r = base + threadIdx.x;
      bool in = false;
      if (r < B) {
        const int64_t s = offsets[r];
        in = s < te || (last_block && last_tile && s == nnz);
        if (in) {
          // Its feature count into L1 as well: the walk reads it where the row ends, to store it.
          if (fc != nullptr) prefetch_l1(fc + r);
          const int64_t t = offsets[r + 1];
          if (s == t) {
            if (s >= tb) {  // (an empty row before tb was the previous tile's)
              const float zero[MC] = {};
              store<T, MC>(out, r, MC, 0, row_cols(fc, r, int64_t{MC}), 1.0f, zero);
            }
          } else {
            const int64_t j = s <= tb ? 0 : (s - tb + kEntries - 1) / kEntries;
            const int64_t j_next = t <= tb ? 0 : (t - tb + kEntries - 1) / kEntries;
            if (j < blockDim.x && j != j_next) s_first[j] = r;  // it holds thread j's first entry
          }
        }
      }
      // Row starts ascend, so the rows in the tile are a prefix of those looked at: when the
      // window's last row is not among them, no later one is. (Asking whether any row of the
      // window was in cost one more pass, a round trip to memory, on every tile with fewer rows
      // than the block has threads.)
      if (!__syncthreads_or(in && threadIdx.x + 1 == blockDim.x)) break;
    }
    const int64_t first_row = block_max_scan(s_first[threadIdx.x], s_warp_key);

    // The walk over this thread's entries, one segment per row.
    float acc[MC] = {}, head[MC] = {};
    int64_t row = active ? first_row : B;
    int64_t rs = 0, re = 0;
    if (active) {
      rs = offsets[row];
      re = offsets[row + 1];
    }
    const bool head_open = active && rs < t_begin;  // the first segment continues a row from before
    const int64_t head_rs = rs, head_re = re;
    bool first_seg = true, head_closed = false;
    auto walk = [&](auto whole_thread) {
#pragma unroll
      for (int i = 0; i < kEntries; ++i) {
        const int64_t e = t_begin + i;
        if (!decltype(whole_thread)::value && e >= t_end) break;
        if (e >= re) {  // the segment before e ended its row
          if (first_seg && head_open) {
#pragma unroll
            for (int c = 0; c < MC; ++c) head[c] = acc[c];
            head_closed = true;
          } else {
            store<T, MC>(out, row, MC, 0, row_cols(fc, row, int64_t{MC}), row_scale(mean, re - rs), acc);
          }
          first_seg = false;
#pragma unroll
          for (int c = 0; c < MC; ++c) acc[c] = 0.0f;
          do {
            ++row;
            rs = re;
            re = offsets[row + 1];
          } while (e >= re);
        }
#pragma unroll
        for (int c = 0; c < MC; ++c) acc[c] += to_float(v[(i * MC + c) / kPerVec].v[(i * MC + c) % kPerVec]);
      }
    };
    if (t_begin + kEntries <= te) {
      walk(std::true_type{});
    } else if (active) {
      walk(std::false_type{});
    }
    const bool last_closed = active && re <= t_end;
    if (active) {
      if (first_seg && head_open) {
#pragma unroll
        for (int c = 0; c < MC; ++c) head[c] = acc[c];
        head_closed = last_closed;
      } else if (last_closed) {
        store<T, MC>(out, row, MC, 0, row_cols(fc, row, int64_t{MC}), row_scale(mean, re - rs), acc);
      }
    }

    // The threads' last segments, summed per row over the tile after the carry: each thread learns
    // the part of its first row before it (ex_*), the tile's last thread that of its last row.
    const int64_t carry_key = s_carry_key;
    float carry_val[MC];
#pragma unroll
    for (int c = 0; c < MC; ++c) carry_val[c] = s_carry_val[c];
    int64_t ex_key;
    float ex_val[MC];
    block_segmented_scan<MC>(row, acc, ex_key, ex_val, carry_key, carry_val, s_warp_key, s_warp_val);
    if (head_open && head_closed) {
      if (ex_key == first_row) {
#pragma unroll
        for (int c = 0; c < MC; ++c) head[c] += ex_val[c];
      }
      if (head_rs < bb) {  // the row started in an earlier block
        flat_add_spread_row<T, IndexT, MC>(fc, out, acc_ws, arrivals, first_row, head_rs, head_re, range, mean, head);
      } else {
        store<T, MC>(out, first_row, MC, 0, row_cols(fc, first_row, int64_t{MC}), row_scale(mean, head_re - head_rs),
                     head);
      }
    }
    if (active && threadIdx.x + 1 == blockDim.x) {  // only the last tile of the last block has idle threads
      if (last_tile && !last_closed) {  // the row goes on past be
        flat_add_spread_row<T, IndexT, MC>(fc, out, acc_ws, arrivals, row, rs, re, range, mean, acc);
      } else {  // the next tile starts from this row; its part so far is the carry, if still open
        s_r_lo = row;
        s_carry_key = last_closed ? -1 : row;
#pragma unroll
        for (int c = 0; c < MC; ++c) s_carry_val[c] = acc[c];
      }
    }
#pragma unroll
    for (int q = 0; q < kVectors; ++q) v[q] = next[q];
  }
}

}  // namespace aotune::jagged_reduce::device
