#include "kernels/common/jagged_lengths.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "kernels/common/errors.h"

namespace aotune {

LengthDist parse_length_dist(std::string_view name) {
  if (name == "uniform") return LengthDist::uniform;
  if (name == "tritonbench") return LengthDist::tritonbench;
  if (name == "powerlaw") return LengthDist::powerlaw;
  if (name == "one_huge") return LengthDist::one_huge;
  if (name == "many_empty") return LengthDist::many_empty;
  if (name == "fixed") return LengthDist::fixed;
  throw InvalidArgument("unknown length distribution '" + std::string(name) +
                        "' (expected uniform, tritonbench, powerlaw, one_huge, many_empty or fixed)");
}

std::string_view to_string(LengthDist d) {
  switch (d) {
    case LengthDist::uniform: return "uniform";
    case LengthDist::tritonbench: return "tritonbench";
    case LengthDist::powerlaw: return "powerlaw";
    case LengthDist::one_huge: return "one_huge";
    case LengthDist::many_empty: return "many_empty";
    case LengthDist::fixed: return "fixed";
  }
  return "?";
}

std::vector<int64_t> make_jagged_lengths(int64_t B, int64_t mean_len, LengthDist dist,
                                         uint64_t seed, int64_t cap) {
  // mt19937_64 and our own integer mapping: std distributions differ between standard libraries,
  // and shapes must be identical on every machine.
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  auto unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  auto clamp = [cap](double v) {
    return std::clamp<int64_t>(static_cast<int64_t>(std::llround(v)), 0, cap);
  };
  std::vector<int64_t> len(static_cast<size_t>(B), 0);
  const double m = static_cast<double>(mean_len);
  switch (dist) {
    case LengthDist::fixed:
      for (auto& l : len) l = clamp(m);
      break;
    case LengthDist::uniform:
      for (auto& l : len) l = clamp(unit() * 2.0 * m);
      break;
    case LengthDist::tritonbench:
      for (auto& l : len) l = clamp(m * (0.7 + 0.6 * unit()));
      break;
    case LengthDist::powerlaw: {
      // Pareto with alpha 1.2 has mean alpha/(alpha-1) = 6 times its minimum.
      const double alpha = 1.2, xmin = m / 6.0;
      for (auto& l : len) l = clamp(xmin / std::pow(1.0 - unit(), 1.0 / alpha));
      break;
    }
    case LengthDist::one_huge: {
      if (B == 0) break;
      const double total = m * static_cast<double>(B);
      const double rest = B > 1 ? 0.1 * total / static_cast<double>(B - 1) : 0.0;
      for (auto& l : len) l = clamp(unit() * 2.0 * rest);
      len[static_cast<size_t>(rng() % static_cast<uint64_t>(B))] = clamp(B > 1 ? 0.9 * total : total);
      break;
    }
    case LengthDist::many_empty:
      for (auto& l : len) l = unit() < 0.8 ? 0 : clamp(unit() * 2.0 * m / 0.2);
      break;
  }
  return len;
}

}  // namespace aotune
