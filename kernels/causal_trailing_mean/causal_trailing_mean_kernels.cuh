// Device kernel of causal_trailing_mean and the typed launcher that picks an instance. Compile-time
// knobs are the storage type, the block size, the scanning unit (block or warp) and the 16-byte
// vectors per thread per tile; the segment length is runtime. The thread unit (one output per
// thread, tiny problems) has a small kernel of its own at the end. Included only by the per-dtype
// instance files (causal_trailing_mean_launch_<dtype>.cu).
//
// Layout. A row is cut into segments of seg_tiles tiles; a tile is UNIT threads * VECS vectors of
// V = 16/sizeof(T) elements. Inside a tile each warp owns a contiguous stretch, and inside that a
// chunk k covers 32*V elements with lane l holding elements l*V .. l*V+V-1: every global load and
// store is one coalesced 16-byte access per thread (scalar accesses for the few elements before a
// row's first 16-byte boundary and past a partial tile's last whole vector), and each thread's
// elements are consecutive, so the scan needs no transpose.
//
// Two ways to compute, chosen by the window (uniform over the launch):
//  - cf <= V ("direct"): each output sums its window straight from registers (its own vector plus
//    the one before, from the neighbouring lane). Error <= cf * eps * sum|window|.
//  - cf > V ("running window"): S(t) = S(t-1) + x[t] - x[t-cf]. Each segment starts from its halo
//    sum S(s0-1), formed in fp64 from the cf elements before it; inside the segment the
//    differences d[t] = x[t] - x[t-cf] are scanned (thread-sequential, warp shuffles, then across
//    the warps of a block) and the tile totals carried in fp64. For fp32 data every sum is fp64
//    and S(t) is rounded once, so an output's error is its own rounding; for 16-bit data the scan
//    inside a warp chunk is fp32, whose rounding (relative to the chunk's window sums) stays far
//    below a 16-bit output's. A segment holds at most kMaxSegTiles tiles: the error is bounded
//    whatever T is (BENCH.md, Numerics).
//    x[t-cf] comes from a shared-memory ring of the last two tiles (cf <= tile) or from global
//    memory (cf > tile, mostly L2 hits).
// Work items (row, segment) are numbered linearly and taken grid-stride, so no grid dimension
// limits any shape.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_launch.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/device_props.h"
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

template <typename Scalar>
__device__ __forceinline__ Scalar warp_inclusive_scan(Scalar v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const Scalar y = __shfl_up_sync(kFullMask, v, o);
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

// Cooperative steps of one scanning unit: the whole block (UNIT == blockDim.x) or one warp.
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

  // Sum of v over the unit in fp64, the same bits in every thread. Uses kWarps doubles of
  // `scratch`; the caller syncs the unit before the scratch is written again.
  __device__ static double sum(double v, double* scratch) {
    v = warp_sum(v);
    if constexpr (UNIT == 32) {
      return v;
    } else {
      if ((threadIdx.x & 31) == 0) scratch[(threadIdx.x % UNIT) >> 5] = v;
      __syncthreads();
      double all = 0.0;
#pragma unroll
      for (int w = 0; w < kWarps; ++w) all += scratch[w];
      return all;
    }
  }
};

template <typename T>
constexpr int kVec = 16 / static_cast<int>(sizeof(T));

template <typename T>
struct alignas(16) Raw {
  T v[kVec<T>];
};

// The V elements of one vector as floats. bf16 is the top half of an fp32, so each 32-bit word
// gives its two elements with one shift and one mask; __bfloat162float per element compiled to a
// PRMT and an IMAD per odd element (ncu: conversions were a quarter of a bf16 tile's IMADs).
template <typename T>
__device__ __forceinline__ void unpack(const Raw<T>& r, float (&f)[kVec<T>]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const uint32_t* const w = reinterpret_cast<const uint32_t*>(&r);
#pragma unroll
    for (int j = 0; j < kVec<T> / 2; ++j) {
      f[2 * j] = __uint_as_float(w[j] << 16);
      f[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
    }
  } else {
#pragma unroll
    for (int v = 0; v < kVec<T>; ++v) f[v] = to_float(r.v[v]);
  }
}

// One 16-byte store with the streaming hint (outputs are never read again here). An intrinsic, not
// a struct assignment: with the assignment, nvcc merged the vector path's store with the scalar
// path's per-element stores that follow the same `if`, and emitted the first vector of every
// warp-unit tile as 4-8 narrow stores (st.global.u16 / .f32; all of them for vecs = 1). ncu on
// warp.t128.v2.s4 bf16 counted 7 store instructions for that vector instead of 1.
template <typename T>
__device__ __forceinline__ void store_streaming(T* p, const Raw<T>& r) {
  __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&r));
}

// One 16-byte load through the read-only path; p is 16-byte aligned.
template <typename T>
__device__ __forceinline__ Raw<T> load_vector(const T* p) {
  Raw<T> r;
  *reinterpret_cast<uint4*>(&r) = __ldg(reinterpret_cast<const uint4*>(p));
  return r;
}

// lagged[v] = ring element (i + v) as float, for a ring position i whose remainder i % V is the same
// for every thread of the launch (i = t - cf with t a multiple of V, so OFF = (-cf) mod V): two
// aligned 16-byte shared-memory reads and a funnel shift per word, where V scalar reads would each
// conflict 4-way on the banks (lanes are 16 bytes apart). The switch below is on a launch-uniform
// value, so it never diverges.
template <typename T, int RING_VECS, int OFF>
__device__ __forceinline__ void lag_vector_at(const Raw<T>* ring, int vi, float (&lagged)[kVec<T>]) {
  constexpr int kByte = OFF * static_cast<int>(sizeof(T));
  constexpr int kWord = kByte / 4, kShift = 8 * (kByte % 4);
  uint32_t w[8];
  *reinterpret_cast<uint4*>(&w[0]) = *reinterpret_cast<const uint4*>(&ring[vi]);
  if constexpr (OFF > 0) {
    *reinterpret_cast<uint4*>(&w[4]) = *reinterpret_cast<const uint4*>(&ring[(vi + 1) & (RING_VECS - 1)]);
  }
  Raw<T> r;
  uint32_t* const rw = reinterpret_cast<uint32_t*>(&r);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if constexpr (kShift == 0) {
      rw[j] = w[kWord + j];
    } else {
      rw[j] = __funnelshift_r(w[kWord + j], w[kWord + j + 1], kShift);
    }
  }
  unpack(r, lagged);
}

template <typename T, int RING_VECS, int OFF = 0>
__device__ __forceinline__ void lag_vector_switch(const Raw<T>* ring, int vi, int off, float (&lagged)[kVec<T>]) {
  if constexpr (OFF < kVec<T>) {
    if (off == OFF) return lag_vector_at<T, RING_VECS, OFF>(ring, vi, lagged);
    lag_vector_switch<T, RING_VECS, OFF + 1>(ring, vi, off, lagged);
  }
}

// `i`: ring position of the first lagged element (0 <= i < RING_VECS * V).
template <typename T, int RING_VECS>
__device__ __forceinline__ void lag_vector(const Raw<T>* ring, uint32_t i, float (&lagged)[kVec<T>]) {
  constexpr uint32_t V = kVec<T>;
  lag_vector_switch<T, RING_VECS>(ring, static_cast<int>(i / V), static_cast<int>(i % V), lagged);
}

// f(std::integral_constant<int, off>{}) for the launch-uniform lag offset off = (-cf) mod 8 of
// 16-bit elements, so an interior tile is compiled once per offset and picks its lagged vectors
// with no per-vector branch chain: one jump-table branch per tile instead. lag_vector's chain of
// compares and branches ran for every vector: for cf = 100 on bf16, five compares, five branches
// and a convergence barrier per 8 elements, ~12 % of an interior tile's instructions in the SASS of
// warp.t128.v2, on rows that are issue-bound. Used where it measured faster (session 12, A/B of
// every config in one run, two rounds each): 16-bit elements with 2 or 4 vectors per thread
// (block.t128.v2 0.81-0.89x, warp v4 0.90-0.99x, best config per shape 0.95x on 8x512x16384
// cf=100 and 64x128x8192 cf=12 bf16). With one vector per tile the jump costs what the chain did
// (warp v1 1.03-1.09x), and on f32 (V = 4, a chain of at most four) block units lost up to 19 %.
template <typename F>
__device__ __forceinline__ void with_lag_offset8(int off, F&& f) {
  switch (off) {
    case 0: f(std::integral_constant<int, 0>{}); break;
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 5: f(std::integral_constant<int, 5>{}); break;
    case 6: f(std::integral_constant<int, 6>{}); break;
    default: f(std::integral_constant<int, 7>{}); break;
  }
}

// sums[v] = x[v] + x[v-1] + ... + x[v-CF+1] over w = prev ++ cur (V elements each). CF is a
// template parameter so every index is known at compile time: no predicate or 64-bit bounds
// compare per term (the row start is handled by zeros in prev). Neighbouring windows share their
// terms, so the sums are built from blocks: pairs p[j] = w[j] + w[j+1], quads q[j] = p[j] + p[j+2],
// octets r[j] = q[j] + q[j+4], and each window adds at most one block of each size (the binary
// digits of CF). For bf16 (V = 8) and CF = 8 that is about 31 adds per vector instead of 56; the
// blocks are sums of the window's own elements, so the error stays within CF * eps * sum|window|.
template <int V, int CF>
__device__ __forceinline__ void direct_window_sums_cf(const float (&prev)[V], const float (&cur)[V],
                                                      float (&sums)[V]) {
  static_assert(CF >= 1 && CF <= 8 && CF <= V, "direct windows are at most one vector of 8");
  constexpr int W = 2 * V;
  float w[W], p[W], q[W], r[W];
#pragma unroll
  for (int j = 0; j < W; ++j) w[j] = j < V ? prev[j] : cur[j - V];
#pragma unroll
  for (int j = 0; j < W; ++j) p[j] = j + 1 < W ? w[j] + w[j + 1] : 0.0f;
#pragma unroll
  for (int j = 0; j < W; ++j) q[j] = j + 3 < W ? p[j] + p[j + 2] : 0.0f;
#pragma unroll
  for (int j = 0; j < W; ++j) r[j] = j + 7 < W ? q[j] + q[j + 4] : 0.0f;
#pragma unroll
  for (int v = 0; v < V; ++v) {
    int at = v + V - CF + 1;  // w index of the window's oldest element (>= 1)
    float s = 0.0f;
    if constexpr ((CF & 8) != 0) { s = r[at]; at += 8; }
    if constexpr ((CF & 4) != 0) { s = (CF & 8) != 0 ? s + q[at] : q[at]; at += 4; }
    if constexpr ((CF & 2) != 0) { s = (CF & 12) != 0 ? s + p[at] : p[at]; at += 2; }
    if constexpr ((CF & 1) != 0) { s = (CF & 14) != 0 ? s + w[at] : w[at]; }
    sums[v] = s;
  }
}

// cf in [1, V], uniform over the launch: the switch never diverges.
template <int V, int CF = 1>
__device__ __forceinline__ void direct_window_sums(int cf, const float (&prev)[V], const float (&cur)[V],
                                                   float (&sums)[V]) {
  if constexpr (CF <= V) {
    if (cf == CF) return direct_window_sums_cf<V, CF>(prev, cur, sums);
    direct_window_sums<V, CF + 1>(cf, prev, cur, sums);
  }
}

// x, out: [rows, T] row-major. DIRECT (cf <= V) and the running window are separate instances:
// each carries only its own path, so neither pays the other's registers or code size (code that
// matters for tiny, latency-bound calls, whose instructions come from a cold cache). So are WHOLE
// launches, where every tile of every row is whole and 16-byte aligned (T a multiple of the tile,
// x and out aligned): they compile no head, no partial tile and no scalar path. With those in the
// one instance, aligned rows of 256 MB and more ran 1-2.5 % slower than before heads existed
// (session 13); as an instance of their own, 64x512x2048 cf=100 bf16 went from 80.2 to 73.0 us
// and 8x512x16384 from 74.7 to 72.6 (best config, session 14 A/B against the kernel without
// heads): the bf16 rows are issue-bound, and every check and branch left out counts.
template <typename T, int BLOCK, int UNIT, int VECS, bool DIRECT, bool WHOLE>
__global__ void __launch_bounds__(BLOCK)
    trailing_mean_kernel(const T* __restrict__ x, T* __restrict__ out, RowCut cut) {
  static_assert(BLOCK % 32 == 0 && (UNIT == 32 || UNIT == BLOCK), "a unit is a warp or the block");
  using Ops = UnitOps<UNIT>;
  constexpr int V = kVec<T>;
  constexpr int kUnits = BLOCK / UNIT;
  constexpr int kWarps = UNIT / 32;
  constexpr int kChunk = 32 * V;         // elements of one warp-wide vector access
  constexpr int kWarpSpan = VECS * kChunk;
  constexpr int kTile = UNIT * VECS * V;  // elements per tile (a power of two)
  constexpr int kRing = 2 * kTile;        // the current tile and the one before
  static_assert((kTile & (kTile - 1)) == 0, "ring indexing needs a power-of-two tile");
  __shared__ Raw<T> s_ring_raw[kUnits][kRing / V];
  // Sums of d across chunks, warps and tiles: fp64 for fp32 data, fp32 for 16-bit data. Each is a
  // difference of two window sums that may be far larger than the window an output ends up with,
  // and in fp32 their roundings added up past the f32 tolerance on small windows inside large
  // tiles (block units with 4 vectors per thread, T=16384 cf=8; docs/TESTING.md, session 7). A
  // 16-bit output's own rounding (2^-8 relative) dwarfs them, and on the issue-bound bf16 rows the
  // fp64 adds cost 2-3 % (session 8 A/B), so those keep fp32.
  using Wide = std::conditional_t<sizeof(T) == 4, double, float>;
  constexpr bool kWideSums = sizeof(Wide) == 8;
  __shared__ Wide s_warp_total[kUnits][kWarps];
  __shared__ double s_scratch[kUnits][kWarps];

  const int unit = threadIdx.x / UNIT;
  const int tid = threadIdx.x % UNIT;
  const int lane = threadIdx.x & 31;
  const int warp = tid >> 5;
  T* const ring = reinterpret_cast<T*>(s_ring_raw[unit]);
  const int64_t cf = cut.cf;
  constexpr bool direct = DIRECT;
  const bool lag_in_ring = cf <= kTile;
  // Ring offset of every lagged vector: t0 - phase (below) and e0 are multiples of V, so
  // (t0 - phase + e0 - cf) mod V is.
  const int lag_off = static_cast<int>((V - cf % V) % V);
  constexpr bool kLagOffsetTiles = V == 8 && VECS >= 2;  // where it measured faster: with_lag_offset8
  const float inv_cf = 1.0f / static_cast<float>(cf);

  // Work item w: segment w % nseg of row w / nseg.
  // A row whose length is not a multiple of V starts the rows after it off a 16-byte boundary
  // (T = 1500 bf16: every other row). Such a segment's first `head` < V elements, up to the next
  // boundary, are computed one output per thread before its tiles (below), and its tiles start
  // from there: every tile is then 16-byte aligned in x and out, so a tile's vector check is one
  // compare. Without heads those rows took the scalar path throughout (B=64 D=512 T=1500 bf16:
  // 2.0-2.3 TB/s against 3.4-3.5 for aligned rows of the same size; as a tile of its own, the
  // head cost block units with tiles longer than the row a second pass over their tile). But a
  // running window's head cost short rows more than their vectors saved (session 14, best config
  // against the scalar path: T = 100, 250 and 500 bf16 at 1.22, 1.21 and 1.05x, T = 1500 at
  // 0.78x; loading heads ahead or summing them in fp32 changed nothing, and the partial tiles'
  // vectors were not the cost), so rows under kHeadRowBytes keep the scalar path there.
  // `vectors`: x and out share the offset and a head is taken where one is needed (else every
  // tile is scalar and head = 0). `phase` = s0 + head, the element at ring position 0, so a tile's
  // ring slots are vector-aligned too (ring position of element t = (t - phase) mod kRing).
  struct Item {
    const T* xr;
    T* outr;
    int64_t s0, s1;
    int head;
    uint32_t phase;
    bool vectors;
  };
  constexpr int64_t kHeadRowBytes = 2048;
  const bool heads = DIRECT || cut.T * int64_t{sizeof(T)} >= kHeadRowBytes;  // direct heads measured cheap
  auto item_at = [&](int64_t w) {
    const int64_t row = cut.nseg == 1 ? w : w / cut.nseg;  // whole rows skip the 64-bit division
    const int64_t s0 = (w - row * cut.nseg) * cut.seg_len;
    const int64_t s1 = min64(cut.T, s0 + cut.seg_len);
    const T* const xr = x + row * cut.T;
    T* const outr = out + row * cut.T;
    if constexpr (WHOLE) return Item{xr, outr, s0, s1, 0, 0u, true};  // no head; phase 0 is as good as s0
    const auto off_x = static_cast<unsigned>(reinterpret_cast<uintptr_t>(xr + s0) & 15u);
    const auto off_out = static_cast<unsigned>(reinterpret_cast<uintptr_t>(outr + s0) & 15u);
    const bool vectors = off_x == off_out && off_x % sizeof(T) == 0 && (off_x == 0 || heads);
    const int head = vectors ? static_cast<int>(min64(((16u - off_x) & 15u) / sizeof(T), s1 - s0)) : 0;
    return Item{xr, outr, s0, s1, head, static_cast<uint32_t>(s0 + head), vectors};
  };

  // Aligned tiles are loaded one tile ahead into `next`, so each thread has the next tile's 16-byte
  // loads in flight while it scans the current one: within an item, and from an item's last tile
  // into the first tile of the unit's next item (so short rows keep loads in flight too; the first
  // tile's loads also overlap the halo). A partial tile loads its whole vectors; the elements past
  // them (fewer than V, in one thread) and the tiles of a segment whose x and out differ in
  // alignment take the scalar path when they are reached. An item's head is loaded with its first
  // tile (lane i of every warp: element i), so it costs no round trip of its own. (That did not
  // cure short odd rows: loaded when reached or ahead, heads cost them 18-22 %, see kHeadRowBytes.)
  Raw<T> next[VECS];
  bool next_vec = false;
  T next_head = from_float<T>(0.0f);
  auto prefetch = [&](const Item& it, int64_t t) {
    const int64_t left = it.s1 - t;
    next_vec = WHOLE || (it.vectors && left > 0);
    if (!next_vec) return;
#pragma unroll
    for (int k = 0; k < VECS; ++k) {
      const int e0 = warp * kWarpSpan + k * kChunk + lane * V;
      if (WHOLE || left >= kTile || e0 + V <= left)
        *reinterpret_cast<uint4*>(&next[k]) = __ldg(reinterpret_cast<const uint4*>(it.xr + t + e0));
    }
  };
  auto prefetch_item = [&](const Item& it) {
    if constexpr (WHOLE) {
      prefetch(it, it.s0);
    } else {
      prefetch(it, it.s0 + it.head);
      if (lane < it.head) next_head = it.xr[it.s0 + lane];
    }
  };
  const int64_t stride = int64_t(gridDim.x) * kUnits;
  if (int64_t(blockIdx.x) * kUnits + unit < cut.work) prefetch_item(item_at(int64_t(blockIdx.x) * kUnits + unit));

  for (int64_t w = int64_t(blockIdx.x) * kUnits + unit; w < cut.work; w += stride) {
    const Item item = item_at(w);
    const int64_t s0 = item.s0, s1 = item.s1;
    const T* const xr = item.xr;
    T* const outr = item.outr;

    // S(s0 - 1): the halo, summed in fp64 and (when the lag is served from the ring) placed there.
    double carry = 0.0;
    const int head = WHOLE ? 0 : item.head;
    const T head_raw = next_head;  // lane i: element s0 + i (i < head), loaded with the first tile
    if (!direct && (s0 > 0 || head > 0)) {
      Ops::sync();  // the previous item's last tile has read the ring
      if (s0 > 0) {
        const int64_t h = min64(cf, s0);
        double acc = 0.0;
        for (int64_t i = tid; i < h; i += UNIT) {
          const int64_t t = s0 - h + i;
          const T raw = xr[t];
          if (lag_in_ring) ring[(static_cast<uint32_t>(t) - item.phase) & (kRing - 1)] = raw;
          acc += double(to_float(raw));
        }
        carry = Ops::sum(acc, s_scratch[unit]);  // its barrier also publishes the ring writes
      }
      // The head: every thread forms the same running sum over it (the same bits in every thread,
      // so no barrier); thread i writes output i and its ring slot (published by the first tile's
      // barrier, before any lag is read). Its elements come from the lanes that loaded them; the
      // lagged ones exist only for a segment past the row's first cf elements (s0 > 0, after a
      // halo), and are all loaded before the first add: a loop that waited for each in turn cost
      // short odd rows up to 1.3x (session 13, 64x256x100 cf=256 bf16: 16.4 -> 21.6 us).
      const T* const hx = xr + s0;
      float in[V - 1], lagged[V - 1];
#pragma unroll
      for (int i = 0; i < V - 1; ++i) {
        const float xi = to_float(__shfl_sync(kFullMask, head_raw, i));
        in[i] = i < head ? xi : 0.0f;
        lagged[i] = i < head && s0 + i >= cf ? to_float(hx[i - cf]) : 0.0f;
      }
      double run = carry, mine = 0.0;
#pragma unroll
      for (int i = 0; i < V - 1; ++i) {
        run += double(in[i]) - double(lagged[i]);
        if (i == tid) mine = run;
      }
      if (tid < head) {  // lane tid of warp 0, which holds element tid
        const int64_t t = s0 + tid;
        if (lag_in_ring) ring[(static_cast<uint32_t>(t) - item.phase) & (kRing - 1)] = head_raw;
        const float sum = static_cast<float>(mine);
        outr[t] = from_float<T>(t + 1 < cf ? sum / static_cast<float>(t + 1) : sum * inv_cf);
      }
      carry = run;
    } else if (direct && head > 0) {
      // The head of a direct window: thread i < head writes output i, its cf <= V terms from the
      // lanes below it, or from global memory for those before a segment's start (s0 > 0).
      const int64_t t = s0 + tid;
      const int terms = static_cast<int>(min64(cf, t + 1));
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const float below = to_float(__shfl_sync(kFullMask, head_raw, (lane - j) & 31));
        if (tid < head && j < terms) sum += lane >= j ? below : to_float(xr[t - j]);
      }
      if (tid < head) outr[t] = from_float<T>(terms < cf ? sum / static_cast<float>(terms) : sum * inv_cf);
    }
    if (!WHOLE && s0 + head >= s1 && w + stride < cut.work) {
      prefetch_item(item_at(w + stride));  // an item with no tile: the following item's loads, here
    }

    for (int64_t t0 = s0 + head; t0 < s1; t0 += kTile) {
      const int n = WHOLE ? kTile : static_cast<int>(min64(kTile, s1 - t0));
      const bool vec = WHOLE || next_vec;  // this tile's prefetch ran one tile ago (or before the halo)
      Raw<T> cur[VECS];
#pragma unroll
      for (int k = 0; k < VECS; ++k) cur[k] = next[k];
      if (t0 + kTile < s1) {
        prefetch(item, t0 + kTile);
      } else if (w + stride < cut.work) {
        prefetch_item(item_at(w + stride));
      } else {
        next_vec = false;
      }
      Ops::sync();  // the previous tile's readers of the ring slot and totals are done

      // The rest of the tile, compiled twice: for an interior tile of the running window (whole
      // aligned vectors, every lagged element in the ring and at or after the row start, every
      // window full: t0 >= cf) without any of those checks, and for any tile with them (a partial
      // tile's whole vectors take the vector path). ncu on the 268 MB bf16 rows
      // (warp.t128.v2.s16) counted ~410 instructions per steady-state tile (SM 81 %, DRAM 48 %:
      // issue-bound), many of them these checks, 64-bit index arithmetic and element conversions.
      // Session 9 A/B, best config: 0.95 on those rows, 0.94 on f32 ones.
      // lag_off_tag: std::integral_constant<int, (-cf) mod V> for the interior tiles of instances
      // that compile one per offset (kLagOffsetTiles: their lagged vectors all sit at that offset
      // in the ring), -1 elsewhere (the offset is found per vector).
      auto tile = [&](auto interior_tag, auto lag_off_tag) {
        constexpr bool F = decltype(interior_tag)::value;
        // Vector k of this thread is whole and aligned (loaded by the prefetch).
        auto whole = [&](int e0) { return F || WHOLE || (vec && e0 + V <= n); };
        [[maybe_unused]] constexpr int kLagOff = decltype(lag_off_tag)::value;  // running window only
        const uint32_t r0 = static_cast<uint32_t>(t0) - (WHOLE ? 0u : item.phase);  // ring position of t0 (low bits)
        float a[VECS][V];
#pragma unroll
        for (int k = 0; k < VECS; ++k) {
          const int e0 = warp * kWarpSpan + k * kChunk + lane * V;
          T* const slot = ring + ((r0 + e0) & (kRing - 1));
          if (whole(e0)) {
            const Raw<T> r = cur[k];
            if (!direct) *reinterpret_cast<Raw<T>*>(slot) = r;
            unpack(r, a[k]);
          } else {
#pragma unroll
            for (int v = 0; v < V; ++v) {
              const T raw = e0 + v < n ? xr[t0 + e0 + v] : from_float<T>(0.0f);
              if (!direct) slot[v] = raw;
              a[k][v] = to_float(raw);
            }
          }
        }
        Ops::sync();

        float o[VECS][V];
        if constexpr (DIRECT) {
          // Window from registers: this thread's vector and the V elements before it (the lane
          // below's vector; lane 0 takes the previous chunk's lane 31, or the ring / global memory
          // for a warp's first chunk).
#pragma unroll
          for (int k = 0; k < VECS; ++k) {
            const int e0 = warp * kWarpSpan + k * kChunk + lane * V;
            float prev[V];
#pragma unroll
            for (int v = 0; v < V; ++v) {
              const float below = __shfl_up_sync(kFullMask, a[k][v], 1);
              const float wrap = k > 0 ? __shfl_sync(kFullMask, a[k > 0 ? k - 1 : 0][v], 31) : 0.0f;
              prev[v] = lane > 0 ? below : wrap;
            }
            if (lane == 0 && k == 0 && e0 < n) {  // a warp wholly past a partial tile reads nothing
              const int64_t t = t0 + e0;
#pragma unroll
              for (int v = 0; v < V; ++v) {
                const int64_t tp = t - V + v;
                prev[v] = tp >= 0 ? to_float(xr[tp]) : 0.0f;
              }
            }
            // prev holds zeros before the row's start, so every window is a plain sum of cf terms.
            direct_window_sums<V>(static_cast<int>(cf), prev, a[k], o[k]);
            if (t0 + e0 + 1 >= cf) {  // past the ramp: every window is full, no division
#pragma unroll
              for (int v = 0; v < V; ++v) o[k][v] *= inv_cf;
            } else {
#pragma unroll
              for (int v = 0; v < V; ++v) {
                const int64_t t = t0 + e0 + v;
                o[k][v] = t + 1 < cf ? o[k][v] / static_cast<float>(t + 1) : o[k][v] * inv_cf;
              }
            }
          }
        } else {
          // Running window: scan the differences inside the tile, every sum in Wide (above).
          Wide chunk_base = 0;      // sum of d over this warp's earlier chunks
          Wide before_vec[VECS];    // sum of d over the tile's elements before each vector
          Wide r[VECS][V];          // sum of d over the thread's vector up to each element
#pragma unroll
          for (int k = 0; k < VECS; ++k) {
            const int e0 = warp * kWarpSpan + k * kChunk + lane * V;
            float lagged[V];
            const int64_t tl = t0 + e0 - cf;  // x index lagging this thread's first element
            if (F || (whole(e0) && lag_in_ring && tl >= 0)) {
              const uint32_t lag_pos = (r0 + e0 - static_cast<uint32_t>(cf)) & (kRing - 1);
              if constexpr (kLagOff >= 0) {
                lag_vector_at<T, kRing / V, kLagOff>(s_ring_raw[unit], static_cast<int>(lag_pos / V), lagged);
              } else {
                lag_vector<T, kRing / V>(s_ring_raw[unit], lag_pos, lagged);
              }
            } else {
#pragma unroll
              for (int v = 0; v < V; ++v) {
                const int64_t t = t0 + e0 + v;
                lagged[v] = 0.0f;
                if (e0 + v < n && t >= cf) {
                  lagged[v] = lag_in_ring ? to_float(ring[(r0 + e0 + v - static_cast<uint32_t>(cf)) & (kRing - 1)])
                                          : to_float(xr[t - cf]);
                }
              }
            }
            Wide run = 0;
#pragma unroll
            for (int v = 0; v < V; ++v) {
              run += Wide(a[k][v]) - Wide(lagged[v]);
              r[k][v] = run;
            }
            const Wide inclusive = warp_inclusive_scan(run);
            const Wide exclusive = __shfl_up_sync(kFullMask, inclusive, 1);
            // The sum of d before this thread's vector, added once per vector in the epilogue
            // (not once per element here: with V = 8 the per-element adds were a quarter of the
            // scan's arithmetic, and bf16 windows are issue-bound rather than bandwidth-bound).
            before_vec[k] = chunk_base + (lane > 0 ? exclusive : Wide(0));
            chunk_base += __shfl_sync(kFullMask, inclusive, 31);
          }
          Wide warp_before = 0, tile_total = chunk_base;
          if constexpr (kWarps > 1) {
            if (lane == 31) s_warp_total[unit][warp] = chunk_base;
            Ops::sync();
            tile_total = 0;
#pragma unroll
            for (int i = 0; i < kWarps; ++i) {
              const Wide wt = s_warp_total[unit][i];
              if (i < warp) warp_before += wt;
              tile_total += wt;
            }
          }
#pragma unroll
          for (int k = 0; k < VECS; ++k) {
            const int e0 = warp * kWarpSpan + k * kChunk + lane * V;
            // S(t) = offset + r(t), offset = carry + warp_before + before_vec = S(first element of
            // the vector - 1), itself a window sum, formed once per vector.
            if constexpr (kWideSums) {
              // fp32 data: S(t) in fp64, rounded once to fp32, so the output's error is its own
              // rounding, whatever the windows around it hold. In fp32 the offset and the scan
              // were rounded to the chunk's largest window sums, and a window of small values
              // among large ones (B=30 D=1498 T=1697 cf=6 f32, session 49) missed the f32
              // tolerance: 2.07e-5 of its own magnitude.
              const double offset = carry + double(warp_before + before_vec[k]);
#pragma unroll
              for (int v = 0; v < V; ++v) o[k][v] = static_cast<float>(offset + double(r[k][v]));
              if (F || t0 + e0 + 1 >= cf) {  // past the ramp: every window is full, no division
#pragma unroll
                for (int v = 0; v < V; ++v) o[k][v] *= inv_cf;
              } else {
#pragma unroll
                for (int v = 0; v < V; ++v) {
                  const int64_t t = t0 + e0 + v;
                  o[k][v] = t + 1 < cf ? o[k][v] / static_cast<float>(t + 1) : o[k][v] * inv_cf;
                }
              }
            } else {
              // 16-bit data: S(t) in fp32, whose rounding (relative to the chunk's window sums)
              // stays far below a 16-bit output's own. One fused multiply-add per element (was
              // three adds and a multiply): bf16 windows are issue-bound.
              const float offset = static_cast<float>(carry) + float(warp_before + before_vec[k]);
              if (F || t0 + e0 + 1 >= cf) {  // past the ramp: every window is full, no division
                const float scaled_offset = offset * inv_cf;
#pragma unroll
                for (int v = 0; v < V; ++v)
                  o[k][v] = __fmaf_rn(float(r[k][v]), inv_cf, scaled_offset);
              } else {
#pragma unroll
                for (int v = 0; v < V; ++v) {
                  const int64_t t = t0 + e0 + v;
                  const float s = offset + float(r[k][v]);
                  o[k][v] = t + 1 < cf ? s / static_cast<float>(t + 1) : s * inv_cf;
                }
              }
            }
          }
          carry += double(tile_total);
        }

#pragma unroll
        for (int k = 0; k < VECS; ++k) {
          const int e0 = warp * kWarpSpan + k * kChunk + lane * V;
          if (whole(e0)) {
            Raw<T> r;
#pragma unroll
            for (int v = 0; v < V; ++v) r.v[v] = from_float<T>(o[k][v]);
            store_streaming(outr + t0 + e0, r);
          } else {
#pragma unroll
            for (int v = 0; v < V; ++v) {
              if (e0 + v < n) outr[t0 + e0 + v] = from_float<T>(o[k][v]);
            }
          }
        }
      };
      if constexpr (!DIRECT) {
        if ((WHOLE || (vec && n == kTile)) && lag_in_ring && t0 >= cf) {
          if constexpr (kLagOffsetTiles) {
            with_lag_offset8(lag_off, [&](auto off) { tile(std::true_type{}, off); });
          } else {
            tile(std::true_type{}, std::integral_constant<int, -1>{});
          }
          continue;
        }
      }
      tile(std::false_type{}, std::integral_constant<int, -1>{});
    }
  }
}

// Launches kernel<Index> through launch(Index{}) with 32-bit indices when fits32 (no index the
// kernel forms can wrap), else 64-bit: a 64-bit modulo (t = i % T) is a library call of ~70
// dependent instructions, a visible part of a 4 us call.
template <typename Launch>
void launch_with_index(bool fits32, Launch&& launch) {
  if (fits32) {
    launch(uint32_t{});
  } else {
    launch(int64_t{});
  }
  AOTUNE_CUDA_CHECK_LAUNCH();
}

// Thread unit: one thread per output, its window summed term by term from global memory (L1 hits
// after the first of the overlapping windows). No tiles, ring, scan or halo: a few dozen
// instructions, which is what a tiny call pays for when its code and data come from a cold cache.
// Elements are numbered linearly over all rows, so the terms never leave the output's row (j <= t).
// All W loads are issued before the first add (those past the window are predicated off and add
// exact zeros): a runtime-length loop waited for each L1 hit in turn, after the first load's miss.
// Index is 32-bit where the element count allows, so t = i % T is not a 64-bit division (a
// library call of ~70 dependent instructions, a visible part of a 4 us call).
// Requires min(cf, T) <= W for W <= kMaxThreadWindow (supports(), run_thread_instance()). W above
// kMaxThreadWindow is the flat unit's fallback for pointers off a 16-byte boundary only: it sums
// any window in a plain loop (a W-register array of predicated loads would spill), in fp64 since
// prefix means reach max_flat_prefix_row terms (run_flat_window()), slow but exact.
template <typename T, int BLOCK, int W, typename Index>
__global__ void __launch_bounds__(BLOCK)
    trailing_mean_thread_kernel(const T* __restrict__ x, T* __restrict__ out, Index n, Index T_len, int cf) {
  const float inv_cf = 1.0f / static_cast<float>(cf);
  const Index stride = static_cast<Index>(gridDim.x) * BLOCK;
  for (Index i = static_cast<Index>(blockIdx.x) * BLOCK + threadIdx.x; i < n; i += stride) {
    const Index t = i % T_len;
    const int terms = t + 1 < static_cast<Index>(cf) ? static_cast<int>(t + 1) : cf;
    float s = 0.0f;
    if constexpr (W <= kMaxThreadWindow) {
      float v[W];
#pragma unroll
      for (int j = 0; j < W; ++j) v[j] = j < terms ? to_float(__ldg(x + (i - j))) : 0.0f;
#pragma unroll
      for (int j = 0; j < W; ++j) s += v[j];
    } else {
      double acc = 0.0;
      for (int j = 0; j < terms; ++j) acc += to_float(__ldg(x + (i - j)));
      s = static_cast<float>(acc);
    }
    out[i] = from_float<T>(terms < cf ? s / static_cast<float>(terms) : s * inv_cf);
  }
}

template <typename T, int BLOCK, int W>
void run_thread_window(const Problem& p, cudaStream_t stream) {
  const int64_t n = p.B * p.D * p.T;  // > 0, bounded by validate()
  const int64_t blocks = std::min<int64_t>((n + BLOCK - 1) / BLOCK, INT_MAX);
  // A window longer than the row is the row (T <= W then): T + 1 keeps every output
  // on the divide-by-(t+1) ramp, exactly as cf does, and fits an int.
  const int cf = static_cast<int>(std::min<int64_t>(p.cf, p.T + 1));
  // No wrap: a thread's last i is at most n - 1, and the loop still forms i + stride (stride =
  // blocks * BLOCK) before it stops; a wrapped i < n would write outputs a second time.
  launch_with_index((n - 1) + blocks * BLOCK <= int64_t{UINT32_MAX}, [&](auto zero) {
    using Index = decltype(zero);
    trailing_mean_thread_kernel<T, BLOCK, W, Index><<<static_cast<unsigned>(blocks), BLOCK, 0, stream>>>(
        static_cast<const T*>(p.x), static_cast<T*>(p.out), static_cast<Index>(n), static_cast<Index>(p.T), cf);
  });
}

template <typename T, int BLOCK>
void run_thread_instance(const Problem& p, cudaStream_t stream) {
  static_assert(kMaxThreadWindow == 32, "the window instances below cover 1..kMaxThreadWindow");
  if (std::min<int64_t>(p.cf, p.T) <= 8) return run_thread_window<T, BLOCK, 8>(p, stream);
  run_thread_window<T, BLOCK, 32>(p, stream);
}

// The flat units' store of one vector's V outputs at flat index i0: one streaming 16-byte store,
// or element by element where the array ends inside the vector (whole is i0 + V <= n).
template <typename T, typename Index>
__device__ __forceinline__ void store_flat_vector(T* out, Index i0, Index n, bool whole, const float (&o)[kVec<T>]) {
  Raw<T> r;
#pragma unroll
  for (int v = 0; v < kVec<T>; ++v) r.v[v] = from_float<T>(o[v]);
  if (whole) {
    store_streaming(out + i0, r);
  } else {
#pragma unroll
    for (int j = 0; j < kVec<T>; ++j) {
      if (i0 + j < n) out[i0 + j] = r.v[j];
    }
  }
}

// The flat unit's narrowest window instance. Every vector holds at most 8 elements, so a window
// min(cf, T) above it leaves cf > V and T > V: only this instance meets cf < V or T < V.
constexpr int kMinFlatWindow = 8;
static_assert(kVec<float> <= kMinFlatWindow && kVec<__nv_bfloat16> <= kMinFlatWindow && kVec<__half> <= kMinFlatWindow,
              "windows past kMinFlatWindow must hold whole vectors");

// Flat unit: the [rows * T] array as one flat array, one thread per 16-byte vector of V outputs,
// clipped at the row start (t = flat index mod T): no work item per row, so rows much shorter than
// a tile cost no more than long ones, and every load and store of the thread's own vector is one
// coalesced 16-byte access whatever T is (the scanning kernels walk one short row per warp or
// block: 64x256x100 bf16 ran at 380 GB/s). Requires x and out 16-byte aligned (run_flat_window
// takes the thread kernel otherwise) and min(cf, T) <= W. W is 8 (kMinFlatWindow), 16, 32, 64 or
// 128 (kMaxFlatWindow); past 8 the window is at least a vector and the rows longer than one
// (min(cf, T) > 8 >= V), so only the shared-terms path below is compiled for them.
//
// The kernel is bound by integer/select work, not memory (ncu, session 16: 256x128x64 cf=32 bf16
// at 68 % SM and 5 % DRAM throughput, 143 instructions per output, ALU the busiest pipe), so the
// common case shares the window's terms between the thread's V outputs. With cf >= V and T >= V
// (at most one row start inside the vector, at position p = T - t0):
//   out[v] = P[v] + Q[v] for v < p (outputs still in the row of t0), P[v] for v >= p,
// where P is the vector's own prefix sum, restarted at p, and Q[v] = x[lo_v .. i0-1] with
// lo_v = max(i0 + v - cf + 1, row start): Q[V-1] takes min(cf - V, t0) elements from the W - V
// before the vector, and Q[v] = Q[v+1] + x[i0 + v - cf + 1] (one scalar load, mostly an L1 hit)
// while that element is inside the row. Every output is still a plain sum of its terms (no
// subtraction, so the rounding is relative to the terms' magnitudes as in the direct path):
// (W - V) + 3V adds per vector instead of V * W predicated ones. Other windows and rows shorter
// than a vector sum each output's terms one by one (the general path below).
template <typename T, int BLOCK, int W, typename Index>
__global__ void __launch_bounds__(BLOCK)
    trailing_mean_flat_kernel(const T* __restrict__ x, T* __restrict__ out, Index n, Index T_len, int cf) {
  constexpr int V = kVec<T>;
  static_assert(W % V == 0, "the window reaches back whole vectors");
  const float inv_cf = 1.0f / static_cast<float>(cf);
  const bool shared_terms = cf >= V && T_len >= static_cast<Index>(V);  // uniform over the launch
  const Index nvec = (n + V - 1) / V;
  const Index stride = static_cast<Index>(gridDim.x) * BLOCK;
  for (Index vec = static_cast<Index>(blockIdx.x) * BLOCK + threadIdx.x; vec < nvec; vec += stride) {
    const Index i0 = vec * V;
    const bool whole = i0 + V <= n;
    float f[V];
    if (whole) {
      unpack(load_vector(x + i0), f);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) f[j] = i0 + j < n ? to_float(x[i0 + j]) : 0.0f;
    }
    const Index t0 = i0 % T_len;
    float o[V];
    // Past W = 8 the launch routes only windows min(cf, T) > 8 >= V here, so shared_terms holds
    // and the general path below is compiled for W = 8 alone (at W = 32 its 40-float window took
    // the instance from 32-47 registers to 56-64, half the resident warps, for code never run).
    if (W > kMinFlatWindow || shared_terms) {
      // t0 <= T - 1, so p >= 1; p >= V means the vector holds no row start.
      const Index p = T_len - t0;
      // nq <= W - V, the elements loaded below: either cf <= W, or cf = T + 1 = W + 1 (a window
      // past a row of exactly W), and then T % V == 0, so no row starts inside the vector and
      // t0 <= T - V.
      const int nq = static_cast<Index>(cf - V) < t0 ? cf - V : static_cast<int>(t0);
      float q = 0.0f;
#pragma unroll
      for (int k = 0; k < (W - V) / V; ++k) {  // vector k before the own one: elements m = kV .. kV+V-1 back
        if (nq > V * k) {  // then i0 >= t0 > V*k, and i0 is a multiple of V: the vector is in the array
          float g[V];
          unpack(load_vector(x + (i0 - V * (k + 1))), g);
#pragma unroll
          for (int j = V - 1; j >= 0; --j) q += V * k + (V - 1 - j) < nq ? g[j] : 0.0f;
        }
      }
      float qv[V];
      qv[V - 1] = q;
#pragma unroll
      for (int v = V - 2; v >= 0; --v) {
        // Element i0 + v - cf + 1 (before i0, as cf >= V) is in the row when t0 + v + 1 >= cf.
        qv[v] = qv[v + 1] + (t0 + static_cast<Index>(v + 1) >= static_cast<Index>(cf) ? to_float(__ldg(x + (i0 + v + 1 - cf))) : 0.0f);
      }
      float run = 0.0f;
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const bool new_row = static_cast<Index>(v) >= p;
        if (static_cast<Index>(v) == p) run = 0.0f;
        run += f[v];
        // In Index: t0 + v reaches 2^31 on rows that long (an int here gave wrong divisors there).
        const Index t = new_row ? static_cast<Index>(v) - p : t0 + static_cast<Index>(v);  // < T
        const float s = new_row ? run : run + qv[v];
        o[v] = t + 1 < static_cast<Index>(cf) ? __fdividef(s, static_cast<float>(t + 1)) : s * inv_cf;
      }
    } else if constexpr (W == kMinFlatWindow) {
      float w[W + V];  // w[k] = x[i0 - W + k]; zeros before the array (never summed: clipped below)
#pragma unroll
      for (int k = 0; k < W / V; ++k) {
        const Index back = static_cast<Index>(W - V * k);
        float g[V] = {};
        if (i0 >= back) unpack(load_vector(x + (i0 - back)), g);
#pragma unroll
        for (int j = 0; j < V; ++j) w[V * k + j] = g[j];
      }
#pragma unroll
      for (int j = 0; j < V; ++j) w[W + j] = f[j];
#pragma unroll
      for (int v = 0; v < V; ++v) {
        Index t = t0 + v;
        while (t >= T_len) t -= T_len;  // a vector may cross row starts (more than one when T < V)
        const int terms = t + 1 < static_cast<Index>(cf) ? static_cast<int>(t + 1) : cf;
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < W; ++j) s += j < terms ? w[W + v - j] : 0.0f;
        o[v] = terms < cf ? s / static_cast<float>(terms) : s * inv_cf;
      }
    }
    store_flat_vector(out, i0, n, whole, o);
  }
}

// Flat unit, prefix means (cf >= T: every output is the mean of its row up to it) of rows of at
// least one vector and at most kMaxFlatPrefixVectors vectors (max_flat_prefix_row). The
// shared-terms path above reloads every vector of the row before the thread's own (up to T / V - 1
// of them, L1 hits, each with V predicated adds): about 1.3 TB/s on rows of 48-96 (PERF.md,
// Session 36). Here a warp covers 32 consecutive vectors and shares them by shuffles instead: each
// lane sums the part of its vector that runs on into the next (all of it, or the part from the row
// start inside it), a segmented scan over the warp gives each lane its row's sum over the lanes
// before it, and the part of the row before the warp's first vector (at most T - 1 elements, so at
// most kMaxFlatPrefixVectors vectors) is summed once per warp, up to kCarryLoads vectors per lane,
// all loaded before the first add. At most 1 + kCarryLoads loads per vector (two on rows of up to
// 32 vectors), and every output is still a plain sum of its terms (no subtraction), as in the
// direct path: a tree of shuffles over sums of at most kCarryLoads * V sequential terms, so the
// rounding does not grow with T the way a running sum's would.
// Requires T >= V (at most one row start inside a vector), T <= max_flat_prefix_row, cf >= T, and
// x and out 16-byte aligned (run_flat_window).
// kCarryLoads is 1 for rows of up to 32 vectors (T <= 32 V; the only instance before session 54,
// so those rows run the code they were tuned with) and kMaxFlatPrefixVectors / 32 above.
template <typename T, int BLOCK, int kCarryLoads, typename Index>
__global__ void __launch_bounds__(BLOCK)
    trailing_mean_flat_prefix_kernel(const T* __restrict__ x, T* __restrict__ out, Index n, Index T_len) {
  constexpr int V = kVec<T>;
  constexpr unsigned kAll = 0xffffffffu;
  static_assert(BLOCK % 32 == 0, "whole warps");
  static_assert(kCarryLoads >= 1 && 32 * kCarryLoads <= kMaxFlatPrefixVectors, "the carry's vectors fill whole warps");
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const Index nvec = (n + V - 1) / V;
  const Index stride = static_cast<Index>(gridDim.x) * BLOCK;
  // The loop is uniform over the warp (the shuffles need every lane): a lane past the last vector
  // adds zeros and stores nothing, and it sits after every live lane, so no scan reads it.
  for (Index wvec = static_cast<Index>(blockIdx.x) * BLOCK + (threadIdx.x & ~31u); wvec < nvec;
       wvec += stride) {
    const Index vec = wvec + lane;
    const bool live = vec < nvec;
    const Index i0 = vec * V;
    const bool whole = i0 + V <= n;
    float f[V];
#pragma unroll
    for (int j = 0; j < V; ++j) f[j] = 0.0f;
    if (live && whole) {
      unpack(load_vector(x + i0), f);
    } else if (live) {
#pragma unroll
      for (int j = 0; j < V; ++j) f[j] = i0 + j < n ? to_float(x[i0 + j]) : 0.0f;
    }
    // t0 < T <= max_flat_prefix_row, so an int. The row start inside the vector, if any, is at s.
    const int t0 = static_cast<int>(i0 % T_len);
    const int T_int = static_cast<int>(T_len);
    const int s = t0 == 0 ? 0 : (T_int - t0 < V ? T_int - t0 : V);  // V: none
    float head = 0.0f, tail = 0.0f;  // the elements before s (the running row) and from s on
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (j < s) {
        head += f[j];
      } else {
        tail += f[j];
      }
    }
    // Inclusive segmented scan of what each lane passes on: (value, a row starts here).
    float sum = s < V ? tail : head;
    bool start = s < V;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const float up = __shfl_up_sync(kAll, sum, d);
      const bool up_start = __shfl_up_sync(kAll, static_cast<int>(start), d) != 0;
      if (lane >= d) {
        if (!start) sum += up;
        start = start || up_start;
      }
    }
    // This row's sum over the lanes before this one, and whether it started in one of them. Every
    // lane runs both shuffles (a lane of the mask that skips one makes it undefined), then lane 0
    // drops what it read, its own values.
    float before = __shfl_up_sync(kAll, sum, 1);
    bool started_in_warp = __shfl_up_sync(kAll, static_cast<int>(start), 1) != 0;
    if (lane == 0) {
      before = 0.0f;
      started_in_warp = false;
    }
    // The row running into the warp's first vector began tw elements before it.
    const Index w0 = wvec * V;
    const int tw = static_cast<int>(w0 % T_len);
    if (tw > 0) {  // uniform over the warp
      const Index row0 = w0 - tw;
      // Vector k + 1 before the warp's first, k = lane + 32 * c; ceil(tw / V) <=
      // kMaxFlatPrefixVectors of them reach the row. Each is inside the array: its first element
      // is a multiple of V above row0 - V >= -V. Every load is issued before the first add.
      float g[kCarryLoads][V];
#pragma unroll
      for (int c = 0; c < kCarryLoads; ++c) {
        const int k = lane + 32 * c;
#pragma unroll
        for (int j = 0; j < V; ++j) g[c][j] = 0.0f;
        if (k * V < tw) unpack(load_vector(x + (w0 - static_cast<Index>(k + 1) * V)), g[c]);
      }
      float carry = 0.0f;
#pragma unroll
      for (int c = 0; c < kCarryLoads; ++c) {
        const Index b0 = w0 - static_cast<Index>(lane + 32 * c + 1) * V;
#pragma unroll
        for (int j = 0; j < V; ++j) carry += b0 + j >= row0 ? g[c][j] : 0.0f;
      }
#pragma unroll
      for (int d = 16; d >= 1; d >>= 1) carry += __shfl_xor_sync(kAll, carry, d);
      if (!started_in_warp) before += carry;
    }
    if (!live) continue;
    float o[V];
    float run = before;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      if (v == s) run = 0.0f;
      run += f[v];
      const int t = v < s ? t0 + v : v - s;  // < T
      o[v] = __fdividef(run, static_cast<float>(t + 1));
    }
    store_flat_vector(out, i0, n, whole, o);
  }
}

template <typename T, int BLOCK, int kCarryLoads>
void run_flat_prefix_loads(const Problem& p, cudaStream_t stream) {
  constexpr int64_t V = kVec<T>;
  const int64_t n = p.B * p.D * p.T;  // > 0, bounded by validate()
  const int64_t nvec = (n + V - 1) / V;
  const int64_t blocks = std::min<int64_t>((nvec + BLOCK - 1) / BLOCK, INT_MAX);
  // As in run_flat_width: the last vector's i0 + V, and wvec + stride, stay below 2^32.
  launch_with_index(n + V + blocks * BLOCK * V <= int64_t{UINT32_MAX}, [&](auto zero) {
    using Index = decltype(zero);
    trailing_mean_flat_prefix_kernel<T, BLOCK, kCarryLoads, Index><<<static_cast<unsigned>(blocks), BLOCK, 0, stream>>>(
        static_cast<const T*>(p.x), static_cast<T*>(p.out), static_cast<Index>(n), static_cast<Index>(p.T));
  });
}

// A warp's carry reaches back T - 1 elements: one vector per lane for rows of up to 32 vectors.
template <typename T, int BLOCK>
void run_flat_prefix(const Problem& p, cudaStream_t stream) {
  if (p.T <= 32 * kVec<T>) return run_flat_prefix_loads<T, BLOCK, 1>(p, stream);
  run_flat_prefix_loads<T, BLOCK, static_cast<int>(kMaxFlatPrefixVectors / 32)>(p, stream);
}

template <typename T, int BLOCK, int W>
void run_flat_width(const Problem& p, cudaStream_t stream) {
  constexpr int64_t V = kVec<T>;
  const int64_t n = p.B * p.D * p.T;  // > 0, bounded by validate()
  const int64_t nvec = (n + V - 1) / V;
  const int64_t blocks = std::min<int64_t>((nvec + BLOCK - 1) / BLOCK, INT_MAX);
  const int cf = static_cast<int>(std::min<int64_t>(p.cf, p.T + 1));  // as in run_thread_window
  // The last vector's i0 + V, and vec + stride, stay below 2^32.
  launch_with_index(n + V + blocks * BLOCK * V <= int64_t{UINT32_MAX}, [&](auto zero) {
    using Index = decltype(zero);
    trailing_mean_flat_kernel<T, BLOCK, W, Index><<<static_cast<unsigned>(blocks), BLOCK, 0, stream>>>(
        static_cast<const T*>(p.x), static_cast<T*>(p.out), static_cast<Index>(n), static_cast<Index>(p.T), cf);
  });
}

template <typename T, int BLOCK>
void run_flat_window(const Problem& p, cudaStream_t stream) {
  static_assert(kMaxThreadWindow == 32 && kMaxFlatWindow == 128,
                "the window instances below cover 1..kMaxFlatWindow");
  const auto aligned = [](const void* q) { return (reinterpret_cast<uintptr_t>(q) & 15u) == 0; };
  const int64_t window = std::min<int64_t>(p.cf, p.T);
  // Off a 16-byte boundary the flat array has no vectors: the thread kernel computes the same (past
  // kMaxThreadWindow with a loop of the window's length, which also takes the prefix means of rows
  // up to max_flat_prefix_row: slow, but exact).
  if (!aligned(p.x) || !aligned(p.out)) {
    if (window <= kMaxThreadWindow) return run_thread_instance<T, BLOCK>(p, stream);
    return run_thread_window<T, BLOCK, kMaxFlatWindow>(p, stream);
  }
  if (p.cf >= p.T && p.T >= kVec<T> && p.T <= max_flat_prefix_row(p.dtype)) return run_flat_prefix<T, BLOCK>(p, stream);
  if (window <= kMinFlatWindow) return run_flat_width<T, BLOCK, kMinFlatWindow>(p, stream);
  if (window <= 16) return run_flat_width<T, BLOCK, 16>(p, stream);
  if (window <= 32) return run_flat_width<T, BLOCK, 32>(p, stream);
  if (window <= 64) return run_flat_width<T, BLOCK, 64>(p, stream);
  run_flat_width<T, BLOCK, 128>(p, stream);
}

// Blocks of this instance resident on one SM (asked once per process and instance).
template <typename T, int BLOCK, int UNIT, int VECS, bool DIRECT, bool WHOLE>
int resident_blocks_per_sm() {
  static const int n = [] {
    int blocks = 0;
    AOTUNE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, trailing_mean_kernel<T, BLOCK, UNIT, VECS, DIRECT, WHOLE>, BLOCK, 0));
    return std::max(blocks, 1);
  }();
  return n;
}

template <typename T, int BLOCK, int UNIT, int VECS, bool DIRECT, bool WHOLE>
void run_instance(const Config& c, const Problem& p, const RowCut& cut, cudaStream_t stream) {
  constexpr int64_t kUnits = BLOCK / UNIT;
  int64_t blocks = std::min<int64_t>((cut.work + kUnits - 1) / kUnits, INT_MAX);
  if (c.persistent) {
    blocks = std::min<int64_t>(
        blocks, int64_t{resident_blocks_per_sm<T, BLOCK, UNIT, VECS, DIRECT, WHOLE>()} * current_device_sm_count());
  }
  trailing_mean_kernel<T, BLOCK, UNIT, VECS, DIRECT, WHOLE><<<static_cast<unsigned>(blocks), BLOCK, 0, stream>>>(
      static_cast<const T*>(p.x), static_cast<T*>(p.out), cut);
  AOTUNE_CUDA_CHECK_LAUNCH();
}

template <typename T, int BLOCK, int UNIT, int VECS, bool DIRECT>
void run_window(const Config& c, const Problem& p, const RowCut& cut, cudaStream_t stream) {
  // Every tile whole and aligned: T is a multiple of the tile (segments are whole tiles, so each
  // starts on a tile too) and both rows' bases are 16-byte aligned (a tile is a multiple of 16 bytes).
  constexpr int64_t kTile = int64_t{UNIT} * VECS * kVec<T>;
  const auto aligned = [](const void* q) { return (reinterpret_cast<uintptr_t>(q) & 15u) == 0; };
  if (cut.T % kTile == 0 && aligned(p.x) && aligned(p.out)) {
    run_instance<T, BLOCK, UNIT, VECS, DIRECT, true>(c, p, cut, stream);
  } else {
    run_instance<T, BLOCK, UNIT, VECS, DIRECT, false>(c, p, cut, stream);
  }
}

template <typename T, int BLOCK, int UNIT, int VECS>
void run_kernel(const Config& c, const Problem& p, const RowCut& cut, cudaStream_t stream) {
  if (cut.cf <= kVec<T>) {
    run_window<T, BLOCK, UNIT, VECS, true>(c, p, cut, stream);
  } else {
    run_window<T, BLOCK, UNIT, VECS, false>(c, p, cut, stream);
  }
}

[[noreturn]] inline void no_instance(const Config& c) {
  throw InvalidArgument("causal_trailing_mean: no compiled kernel for config " + config_id(c));
}

template <typename T, int BLOCK, int UNIT>
void dispatch_vecs(const Config& c, const Problem& p, const RowCut& cut, cudaStream_t stream) {
  switch (c.vecs) {
    case 1: return run_kernel<T, BLOCK, UNIT, 1>(c, p, cut, stream);
    case 2: return run_kernel<T, BLOCK, UNIT, 2>(c, p, cut, stream);
    case 4: return run_kernel<T, BLOCK, UNIT, 4>(c, p, cut, stream);
    default: break;
  }
  no_instance(c);
}

// Requires supports(c, p) and B*D*T > 0.
template <typename T>
void launch_typed(const Config& c, const Problem& p, cudaStream_t stream) {
  if (c.unit == Unit::thread) {
    switch (c.threads) {
      case 128: return run_thread_instance<T, 128>(p, stream);
      case 256: return run_thread_instance<T, 256>(p, stream);
      default: no_instance(c);
    }
  }
  if (c.unit == Unit::flat) {
    switch (c.threads) {
      case 128: return run_flat_window<T, 128>(p, stream);
      case 256: return run_flat_window<T, 256>(p, stream);
      default: no_instance(c);
    }
  }
  RowCut cut;
  cut.T = p.T;
  cut.cf = p.cf;
  cut.seg_len = segment_length(c, p.T, p.dtype);
  cut.nseg = (p.T + cut.seg_len - 1) / cut.seg_len;
  cut.work = p.B * p.D * cut.nseg;  // <= B*D*T, which validate() bounded
  const bool warp = c.unit == Unit::warp;
  switch (c.threads) {
    case 128:
      return warp ? dispatch_vecs<T, 128, 32>(c, p, cut, stream)
                  : dispatch_vecs<T, 128, 128>(c, p, cut, stream);
    case 256:
      return warp ? dispatch_vecs<T, 256, 32>(c, p, cut, stream)
                  : dispatch_vecs<T, 256, 256>(c, p, cut, stream);
    default: no_instance(c);
  }
}

}  // namespace aotune::causal_trailing_mean::detail
