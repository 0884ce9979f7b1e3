// Reproducible row-length distributions for jagged shapes: what grids and tests draw from.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace aotune {

// uniform: U[0, 2*mean]; tritonbench: mean +-30%; powerlaw: Pareto(alpha 1.2) scaled to the mean;
// one_huge: one row holds 90% of the elements; many_empty: 80% of rows empty; fixed: all = mean.
enum class LengthDist { uniform, tritonbench, powerlaw, one_huge, many_empty, fixed };

LengthDist parse_length_dist(std::string_view name);
std::string_view to_string(LengthDist d);

// B lengths whose mean is close to `mean_len`, each at most `cap` (cap >= 0). Same inputs, same output.
std::vector<int64_t> make_jagged_lengths(int64_t B, int64_t mean_len, LengthDist dist,
                                         uint64_t seed, int64_t cap);

}  // namespace aotune
