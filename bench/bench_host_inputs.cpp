// How long the tuner's host side takes to build a shape's input values (Google Benchmark): the
// random draws, their rounding to the storage type, and the encoding to the bytes uploaded. A
// sweep builds the next shape's inputs while it times the current one; on a jagged grid (27 GB of
// values, 35 shapes of 256 MB to 1.1 GB) this host work, not the GPU, set session 6's sweep time
// (one H200: 467 s of wall time for about 133 s of timed launches). Compare versions by ratio.
// Run: build with -DAOTUNE_BUILD_BENCH=ON, then ./aotune_bench_host_inputs
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/common/host_data.h"

namespace {

constexpr int64_t kValues = int64_t{1} << 26;  // 64 Mi values: 256 MB of f32, 512 MB as float64

// The sequential floor of the current generator: one mt19937_64 draw per value.
void BM_Mt19937Draws(benchmark::State& state) {
  std::mt19937_64 rng(1);
  for (auto _ : state) {
    uint64_t acc = 0;
    for (int64_t i = 0; i < kValues; ++i) acc ^= rng();
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * kValues);
}

void BM_RandomValues(benchmark::State& state, aotune::DType dtype) {
  std::mt19937_64 rng(1);
  for (auto _ : state) {
    std::vector<double> v = aotune::random_values(static_cast<std::size_t>(kValues), dtype, rng);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * kValues);
  state.SetBytesProcessed(state.iterations() * kValues * static_cast<int64_t>(aotune::dtype_size(dtype)));
}

void BM_Encode(benchmark::State& state, aotune::DType dtype) {
  std::mt19937_64 rng(1);
  const std::vector<double> v = aotune::random_values(static_cast<std::size_t>(kValues), dtype, rng);
  for (auto _ : state) {
    std::vector<std::byte> bytes = aotune::encode(v, dtype);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetItemsProcessed(state.iterations() * kValues);
  state.SetBytesProcessed(state.iterations() * kValues * static_cast<int64_t>(aotune::dtype_size(dtype)));
}

// What a workload that uploads random_encoded's bytes pays instead of random_values + encode:
// the values drawn, rounded and stored in the device's encoding, in storage no thread zeroed.
void BM_RandomEncoded(benchmark::State& state, aotune::DType dtype) {
  std::mt19937_64 rng(1);
  for (auto _ : state) {
    aotune::EncodedValues v = aotune::random_encoded(static_cast<std::size_t>(kValues), dtype, rng);
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * kValues);
  state.SetBytesProcessed(state.iterations() * kValues * static_cast<int64_t>(aotune::dtype_size(dtype)));
}

BENCHMARK(BM_Mt19937Draws)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomValues, f32, aotune::DType::f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RandomValues, bf16, aotune::DType::bf16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RandomValues, f16, aotune::DType::f16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RandomEncoded, f32, aotune::DType::f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RandomEncoded, bf16, aotune::DType::bf16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RandomEncoded, f16, aotune::DType::f16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Encode, f32, aotune::DType::f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Encode, bf16, aotune::DType::bf16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
