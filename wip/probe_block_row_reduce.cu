// Probe: block_row with a shuffle-then-one-barrier reduction (wip/fc-zero-skip) vs the shipped tree.
// nvcc -O3 -std=c++20 -arch=sm_90 -I. wip/probe_block_row_reduce.cu -o /tmp/pb  (delete this folder when the branch is merged)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <algorithm>
#include <cmath>
#include "kernels/jagged_reduce/jagged_reduce_kernels.cuh"
using namespace aotune;
using namespace aotune::jagged_reduce::device;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)

// The wip/fc-zero-skip branch's block_row reduction (393cf94), under its own name, against the
// shipped block_row_kernel in one process.
template <typename T, typename IndexT, int VEC>
__global__ void block_row_shfl_kernel(const T* __restrict__ values, const IndexT* __restrict__ offsets,
                                      const IndexT* __restrict__ fc, T* __restrict__ out, int64_t M, int tx_lanes,
                                      bool mean) {
  extern __shared__ float partial[];
  const int64_t b = blockIdx.x;
  const int tx = threadIdx.x % tx_lanes, ty = threadIdx.x / tx_lanes, ty_count = blockDim.x / tx_lanes;
  const int64_t c0 = (int64_t(blockIdx.y) * tx_lanes + tx) * VEC;
  const int64_t start = offsets[b], end = offsets[b + 1];
  const int64_t cols = row_cols(fc, b, M);
  float acc[VEC] = {};
  if (c0 < M && c0 < cols) {
    int64_t e = start + ty;
    for (; e + 3 * ty_count < end; e += 4 * ty_count) {
      accumulate<T, VEC>(acc, values, e, M, c0, cols);
      accumulate<T, VEC>(acc, values, e + ty_count, M, c0, cols);
      accumulate<T, VEC>(acc, values, e + 2 * ty_count, M, c0, cols);
      accumulate<T, VEC>(acc, values, e + 3 * ty_count, M, c0, cols);
    }
    if (e < end) accumulate_tail<T, VEC>(acc, values, e, ty_count, end, M, c0, cols);
  }
  if (ty_count > 1 && tx_lanes < 32) {
    for (int o = tx_lanes; o < 32; o <<= 1) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    if (lane < tx_lanes) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) partial[(warp * tx_lanes + lane) * VEC + i] = acc[i];
    }
    __syncthreads();
    if (threadIdx.x >= tx_lanes) return;
    for (int w = 1; w < warps; ++w) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) acc[i] += partial[(w * tx_lanes + tx) * VEC + i];
    }
  } else if (ty_count > 1) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) partial[(ty * tx_lanes + tx) * VEC + i] = acc[i];
    __syncthreads();
    for (int s = ty_count / 2; s > 0; s /= 2) {
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

struct Shape { int64_t B, M, len; bool bf; };
static int pow2c(int64_t v) { int p = 1; while (p < v) p *= 2; return p; }

template <typename T, int VEC>
float run(int variant, int R, int threads, const T* v, const int64_t* off, T* out, int64_t B, int64_t M, int) {
  (void)R;
  const int64_t lanes = (M + VEC - 1) / VEC;
  const int tx = std::min<int>(threads, pow2c(lanes));
  const dim3 g(B, (lanes + tx - 1) / tx);
  const size_t smem = threads / tx > 1 ? size_t(threads) * VEC * sizeof(float) : 0;
  if (variant == 0) block_row_kernel<T, int64_t, VEC><<<g, threads, smem>>>(v, off, nullptr, out, M, tx, false);
  else block_row_shfl_kernel<T, int64_t, VEC><<<g, threads, smem>>>(v, off, nullptr, out, M, tx, false);
  return 0;
}

template <typename T>
void shape_run(Shape s, void* flush, std::mt19937_64& rng) {
  std::vector<int64_t> off(s.B + 1, 0);
  for (int64_t b = 0; b < s.B; ++b) off[b + 1] = off[b] + (int64_t)std::llround((rng() >> 11) * 0x1.0p-53 * 2.0 * s.len);
  const int64_t nnz = off[s.B];
  std::vector<T> hv(nnz * s.M);
  std::vector<float> fv(nnz * s.M);
  for (size_t i = 0; i < hv.size(); ++i) { float x = ((rng() >> 40) / double(1 << 24)) - 0.5; hv[i] = T(x); fv[i] = float(hv[i]); }
  std::vector<double> ref(s.B * s.M, 0.0);
  for (int64_t b = 0; b < s.B; ++b) for (int64_t e = off[b]; e < off[b + 1]; ++e) for (int64_t m = 0; m < s.M; ++m) ref[b * s.M + m] += fv[e * s.M + m];
  T *dv, *dout; int64_t* doff;
  CK(cudaMalloc(&dv, std::max<size_t>(16, hv.size() * sizeof(T)))); CK(cudaMalloc(&dout, s.B * s.M * sizeof(T))); CK(cudaMalloc(&doff, off.size() * 8));
  CK(cudaMemcpy(dv, hv.data(), hv.size() * sizeof(T), cudaMemcpyHostToDevice)); CK(cudaMemcpy(doff, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
  const double bytes = double(nnz) * s.M * sizeof(T) + (s.B + 1) * 8 + s.B * s.M * sizeof(T);
  printf("== B=%ld M=%ld len=%ld (mean) %s %.0f MB\n", s.B, s.M, s.len, sizeof(T) == 2 ? "bf16" : "f32", bytes / 1e6);
  struct Cand { int vec, slots, variant, R; };
  std::vector<Cand> cands;
  for (int vec : {1, 2, 4, 8}) {
    if (vec == 8 && sizeof(T) == 4) continue;
    if (s.M % vec) continue;
    for (int threads : {128, 256, 512}) {
      cands.push_back({vec, threads, 0, 1});
      cands.push_back({vec, threads, 1, 1});
    }
  }
  std::vector<std::vector<float>> times(cands.size());
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<T> hout(s.B * s.M);
  auto launch = [&](const Cand& c) {
    switch (c.vec) {
      case 1: run<T, 1>(c.variant, c.R, c.slots, dv, doff, dout, s.B, s.M, 0); break;
      case 2: run<T, 2>(c.variant, c.R, c.slots, dv, doff, dout, s.B, s.M, 0); break;
      case 4: run<T, 4>(c.variant, c.R, c.slots, dv, doff, dout, s.B, s.M, 0); break;
      case 8: if constexpr (sizeof(T) == 2) run<T, 8>(c.variant, c.R, c.slots, dv, doff, dout, s.B, s.M, 0); break;
    }
  };
  // check
  for (size_t k = 0; k < cands.size(); ++k) {
    CK(cudaMemset(dout, 0xff, s.B * s.M * sizeof(T)));
    launch(cands[k]); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hout.data(), dout, hout.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < hout.size(); ++i) { double d = std::fabs(double(float(hout[i])) - ref[i]) / (1 + std::fabs(ref[i])); if (!(d <= worst)) worst = std::isnan(d) ? 1e9 : std::max(worst, d); }
    if (worst > (sizeof(T) == 2 ? 2e-2 : 1e-4)) printf("  MISMATCH v%d s%d var%d R%d err %g\n", cands[k].vec, cands[k].slots, cands[k].variant, cands[k].R, worst);
  }
  for (int rep = 0; rep < 12; ++rep)
    for (size_t k = 0; k < cands.size(); ++k) {
      CK(cudaMemsetAsync(flush, rep, 128 << 20));
      CK(cudaEventRecord(a)); launch(cands[k]); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); times[k].push_back(ms * 1000);
    }
  std::vector<std::pair<float, int>> med;
  for (size_t k = 0; k < cands.size(); ++k) { auto t = times[k]; std::sort(t.begin(), t.end()); med.push_back({t[t.size() / 2], (int)k}); }
  // per (vec,slots): base and best R
  float best_base = 1e30, best_new = 1e30; int bb = -1, bn = -1;
  for (auto [t, k] : med) { if (cands[k].variant == 0) { if (t < best_base) { best_base = t; bb = k; } } else if (t < best_new) { best_new = t; bn = k; } }
  for (auto [t, k] : med) {
    if (cands[k].variant == 0) {
      printf("  v%d t%-3d shipped %8.1f", cands[k].vec, cands[k].slots, t);
      for (auto [t2, k2] : med) if (cands[k2].variant == 1 && cands[k2].vec == cands[k].vec && cands[k2].slots == cands[k].slots) printf("  shuffles %8.1f (%.3f)", t2, t2 / t);
      printf("\n");
    }
  }
  printf("  BEST shipped v%d t%d %.1f us (%.0f GB/s) | shuffles v%d t%d %.1f us (%.0f GB/s) ratio %.3f\n", cands[bb].vec, cands[bb].slots, best_base, bytes / best_base / 1e3,
         cands[bn].vec, cands[bn].slots, best_new, bytes / best_new / 1e3, best_new / best_base);
  CK(cudaFree(dv)); CK(cudaFree(dout)); CK(cudaFree(doff));
}

int main() {
  void* flush; CK(cudaMalloc(&flush, 128 << 20));
  std::mt19937_64 rng(20);
  // Grid shapes (len = mean length) where block_row with fewer than 32 lanes along M is the best
  // config or close to it, and two where it is not (M = 512 bf16, M = 1024 f32).
  std::vector<Shape> shapes = {
    {16384, 32, 256, true}, {8192, 32, 256, false}, {16384, 16, 256, false}, {16384, 128, 64, true}, {8192, 128, 64, false},
    {4096, 32, 2048, true}, {65536, 16, 256, false}, {4096, 256, 128, false}, {1024, 16, 64, false}, {16384, 512, 32, true},
    {1024, 1024, 64, false}};
  for (auto s : shapes) { if (s.bf) shape_run<__nv_bfloat16>(s, flush, rng); else shape_run<float>(s, flush, rng); }
}
