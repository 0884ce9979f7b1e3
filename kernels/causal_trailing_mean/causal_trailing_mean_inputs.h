// What causal_trailing_mean's workloads are filled with and the shapes its tests run on. Outside
// the kernel's source hash (source_hash/kernel_source_hashes.h), like the input generator
// kernels/common/host_data.*: input values and test shapes never change a timing, so a new value
// pattern or test shape needs no re-tune. Sizes, which do, are the registry adapter's
// (causal_trailing_mean_kernel.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/dtype.h"

namespace aotune::causal_trailing_mean {

// A shape spec's value fields:
//   mean        of the random values, default 0 (values are uniform in [mean-1, mean+1]);
//   quiet_rows  k > 0: rows k-1, 2k-1, ... hold their values times 1e-4, in the dtype (default 0);
//   quiet_span  L > 0: in every row, L consecutive values (all of a row of at most L) times
//               1e-3, in the dtype, starting at a place that moves from row to row (default 0);
//   zero_rows   k > 0: rows k-1, 2k-1, ... hold exact zeros (default 0; they win over the others).
struct ValuePattern {
  double mean = 0.0;
  int64_t quiet_rows = 0;
  int64_t quiet_span = 0;
  int64_t zero_rows = 0;
};

// Where row `row`'s quiet span starts: 0 <= start <= T - min(L, T), moving 37 places a row (mod the
// places there are), so consecutive rows put it at every place inside a 16-byte vector and at
// many inside a warp's chunk of 32 vectors.
int64_t quiet_span_start(int64_t row, int64_t T, int64_t L);

// Throws InvalidArgument naming the field and its value.
ValuePattern parse_value_pattern(const nlohmann::json& spec);

// rows x T values, row after row, as the device will hold them (rounded to `dtype`): seeded random
// values in the pattern's mean, then its quiet rows, quiet spans and zero rows.
std::vector<double> input_values(const ValuePattern& pattern, int64_t rows, int64_t T, DType dtype,
                                 uint64_t seed);

// The shapes every config is checked on against the float64 reference (the EveryConfig tests),
// each in f32, bf16 and f16 with its own seed.
std::vector<nlohmann::json> test_shapes();

}  // namespace aotune::causal_trailing_mean
