#include "kernels/causal_trailing_mean/causal_trailing_mean_inputs.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/common/errors.h"
#include "kernels/common/host_data.h"
#include "kernels/common/shape_spec.h"

namespace aotune::causal_trailing_mean {

namespace {

double spec_mean(const nlohmann::json& spec) {
  const auto it = spec.find("mean");
  if (it == spec.end()) return 0.0;
  if (!it->is_number()) throw InvalidArgument("shape field 'mean' must be a number, got " + it->dump());
  const double v = it->get<double>();
  if (!std::isfinite(v) || std::abs(v) > 1e6) {
    throw InvalidArgument("shape field 'mean'=" + it->dump() + " is outside [-1e6, 1e6]");
  }
  return v;
}

}  // namespace

ValuePattern parse_value_pattern(const nlohmann::json& spec) {
  constexpr int64_t kMaxRows = int64_t{1} << 40;
  ValuePattern p;
  p.mean = spec_mean(spec);
  p.quiet_rows = spec_int(spec, "quiet_rows", 0, 0, kMaxRows);
  p.quiet_span = spec_int(spec, "quiet_span", 0, 0, kMaxRows);
  p.zero_rows = spec_int(spec, "zero_rows", 0, 0, kMaxRows);
  return p;
}

int64_t quiet_span_start(int64_t row, int64_t T, int64_t L) {
  const int64_t places = T - std::min(L, T) + 1;
  return (row % places) * 37 % places;  // no overflow: places <= T <= 2^40
}

std::vector<double> input_values(const ValuePattern& p, int64_t rows, int64_t T, DType dtype, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> x = random_values(static_cast<std::size_t>(rows * T), dtype, rng, p.mean);
  // Rows far smaller than the rows before them: each output's error is judged against its own
  // terms' magnitude, so a sum that reaches back over the row start (a prefix over a tile wider
  // than a row, differenced) leaves the earlier rows' rounding there, 100x or more the tolerance
  // (PERF.md, Session 37: a tile-wide fp32 prefix on bf16 rows, which values of one magnitude hid).
  // 1e-4 keeps mean -20's values normal in f16. A row of zeros has the exact answer 0 and an
  // error scale of 0, so only an exact 0 passes: it catches state carried into the next row, but
  // not a prefix summed in order, which holds still across zeros (adding 0.0 is exact; Session 38).
  if (p.quiet_rows > 0) {
    for (int64_t r = p.quiet_rows - 1; r < rows; r += p.quiet_rows) {
      for (int64_t t = 0; t < T; ++t) x[r * T + t] *= 1e-4;
    }
  }
  // A few small values among large ones in the same row: a running window whose sums are rounded
  // to the magnitude of the windows around it (a scan across the row, or one across a warp's chunk
  // in fp32: the f32 failure of PERF.md session 49, B=30 D=1498 T=1697 cf=6) misses on the
  // windows inside the span, which the check judges against their own magnitude.
  if (p.quiet_span > 0 && T > 0) {
    const int64_t len = std::min(p.quiet_span, T);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t start = quiet_span_start(r, T, len);
      for (int64_t t = start; t < start + len; ++t) x[r * T + t] *= 1e-3;
    }
  }
  if (p.quiet_rows > 0 || p.quiet_span > 0) {
    x = decode(encode(x, dtype), dtype);  // the values the device will hold
  }
  if (p.zero_rows > 0) {
    for (int64_t r = p.zero_rows - 1; r < rows; r += p.zero_rows) {
      std::fill_n(x.begin() + r * T, T, 0.0);
    }
  }
  return x;
}

std::vector<nlohmann::json> test_shapes() {
  // Edge cases first; every shape stays under ~0.5M elements so all configs run on all of them fast.
  const std::vector<nlohmann::json> base = {
      {{"B", 0}, {"D", 4}, {"T", 100}, {"cf", 8}},                       // no rows
      {{"B", 3}, {"D", 5}, {"T", 1}, {"cf", 1}},                         // T = 1
      {{"B", 2}, {"D", 3}, {"T", 1000}, {"cf", 1}},                      // identity
      {{"B", 2}, {"D", 3}, {"T", 1000}, {"cf", 2}},
      {{"B", 4}, {"D", 2}, {"T", 300}, {"cf", 1000}},                    // cf > T: prefix means
      {{"B", 1}, {"D", 7}, {"T", 4099}, {"cf", 37}},                     // T past every tile size
      {{"B", 1}, {"D", 2}, {"T", 8192}, {"cf", 4096}},                   // cf = the largest tile
      {{"B", 2}, {"D", 2}, {"T", 20000}, {"cf", 2500}},                  // halos across segments
      {{"B", 1}, {"D", 1}, {"T", 65536}, {"cf", 1000}, {"mean", -20}},   // precision along T
      {{"B", 1}, {"D", 1}, {"T", 65536}, {"cf", 100000}, {"mean", -20}}, // long prefix means
      {{"B", 64}, {"D", 64}, {"T", 100}, {"cf", 10}},                    // many short rows
      {{"B", 3}, {"D", 5}, {"T", 777}, {"cf", 50}, {"misalign", 1}},
      {{"B", 2}, {"D", 3}, {"T", 2500}, {"cf", 300}, {"misalign", 3}},
      {{"B", 2}, {"D", 3}, {"T", 3000}, {"cf", 5}},                      // just past direct (f32)
      {{"B", 2}, {"D", 3}, {"T", 3000}, {"cf", 9}},                      // just past direct (16-bit)
      {{"B", 2}, {"D", 3}, {"T", 501}, {"cf", 32}, {"misalign", 1}},      // widest thread-unit window
      {{"B", 3}, {"D", 2}, {"T", 20}, {"cf", 1000}},                     // thread unit, cf > T (W = 32)
      {{"B", 2}, {"D", 3}, {"T", 6}, {"cf", 7}},                         // thread unit, cf > T (W = 8)
      {{"B", 1}, {"D", 3}, {"T", 40000}, {"cf", 7}, {"mean", -20}},      // direct, long rows
      // Rows whose byte length is not a multiple of 16 start the rows after them off a 16-byte
      // boundary: their heads (elements before the first boundary) and partial tiles.
      {{"B", 4}, {"D", 3}, {"T", 1501}, {"cf", 100}},                    // odd rows, running window
      {{"B", 8}, {"D", 4}, {"T", 101}, {"cf", 20}},                      // odd rows under kHeadRowBytes
      {{"B", 4}, {"D", 3}, {"T", 1501}, {"cf", 3}},                      // odd rows, direct window
      {{"B", 2}, {"D", 2}, {"T", 9001}, {"cf", 700}},                    // odd rows, segments, lag past small tiles
      {{"B", 5}, {"D", 3}, {"T", 3}, {"cf", 2}},                         // rows shorter than a head
      // The flat unit's shared-terms path (cf >= V, T >= V): a row start inside a vector at every
      // position, the window's reach before the vector at its bound (cf = T + 1 = W + 1), cf = V,
      // a partial last vector (n = 777), and long rows in f32 for the rounding.
      {{"B", 7}, {"D", 3}, {"T", 37}, {"cf", 32}},
      {{"B", 5}, {"D", 4}, {"T", 32}, {"cf", 40}},
      {{"B", 3}, {"D", 5}, {"T", 30}, {"cf", 31}},
      {{"B", 4}, {"D", 3}, {"T", 64}, {"cf", 8}},
      {{"B", 3}, {"D", 3}, {"T", 13}, {"cf", 4}},
      {{"B", 2}, {"D", 2}, {"T", 5000}, {"cf", 24}, {"mean", -20}},
      // The flat unit's wide windows (W = 64 and 128, shared terms only): the narrowest window
      // past 32, prefix means of rows of W (cf = T + 1 = W + 1 after the launcher's clamp), a
      // window inside odd rows, 128-term fp32 sums, and off a 16-byte boundary (the thread
      // kernel's loop then).
      {{"B", 3}, {"D", 3}, {"T", 33}, {"cf", 33}},
      {{"B", 4}, {"D", 5}, {"T", 64}, {"cf", 256}},
      {{"B", 3}, {"D", 4}, {"T", 128}, {"cf", 129}},
      {{"B", 5}, {"D", 3}, {"T", 77}, {"cf", 40}},
      {{"B", 2}, {"D", 3}, {"T", 300}, {"cf", 100}},
      {{"B", 2}, {"D", 2}, {"T", 5000}, {"cf", 128}, {"mean", -20}},
      {{"B", 2}, {"D", 3}, {"T", 300}, {"cf", 100}, {"misalign", 1}},
      // Prefix means of many odd rows: rows run across warps of vectors and start at every
      // position inside a vector (the flat unit's warp-shared prefix path).
      {{"B", 64}, {"D", 32}, {"T", 77}, {"cf", 77}},
      // The flat unit's prefix means of rows past kMaxFlatWindow (up to max_flat_prefix_row: 512
      // f32, 1024 16-bit elements): odd rows just past 128 (one carry load per lane for 16-bit,
      // four for f32), rows at each dtype's limit (f32's flat configs are illegal at 1024), and off
      // a 16-byte boundary (the thread kernel's fp64 loop).
      {{"B", 9}, {"D", 7}, {"T", 141}, {"cf", 149}},
      {{"B", 16}, {"D", 5}, {"T", 512}, {"cf", 512}},
      {{"B", 6}, {"D", 5}, {"T", 1024}, {"cf", 1024}},
      {{"B", 3}, {"D", 4}, {"T", 500}, {"cf", 5000}, {"misalign", 1}},
      {{"B", 64}, {"D", 8}, {"T", 509}, {"cf", 509}, {"mean", -20}, {"quiet_rows", 2}, {"zero_rows", 4}},
      // Rows of values 1e-4 the size (rows 1, 5, 9, ...) and of zeros (3, 7, 11, ...), each after
      // a row of large values (mean -20): a sum that reaches back over a row start shows. Prefix
      // means across warps, windows of the W = 32 and W = 128 instances on short rows, and long
      // rows split into segments.
      {{"B", 64}, {"D", 32}, {"T", 77}, {"cf", 77}, {"mean", -20}, {"quiet_rows", 2}, {"zero_rows", 4}},
      {{"B", 64}, {"D", 32}, {"T", 72}, {"cf", 32}, {"mean", -20}, {"quiet_rows", 2}, {"zero_rows", 4}},
      {{"B", 16}, {"D", 16}, {"T", 300}, {"cf", 100}, {"mean", -20}, {"quiet_rows", 2}, {"zero_rows", 4}},
      {{"B", 4}, {"D", 2}, {"T", 5000}, {"cf", 700}, {"mean", -20}, {"quiet_rows", 2}, {"zero_rows", 4}},
      // A span of values 1e-3 the size inside each row of large ones, at a place that moves by
      // row: windows wholly inside it have sums 1000x smaller than the windows around them. The
      // running window just past f32's direct one (cf = 6, the session 49 failure), past every
      // dtype's (cf = 24), and a long one whose lag comes from the ring and segments (cf = 700).
      {{"B", 4}, {"D", 4}, {"T", 1697}, {"cf", 6}, {"mean", -20}, {"quiet_span", 6}},
      {{"B", 4}, {"D", 4}, {"T", 1697}, {"cf", 24}, {"mean", -20}, {"quiet_span", 30}},
      {{"B", 2}, {"D", 2}, {"T", 9001}, {"cf", 700}, {"mean", -20}, {"quiet_span", 800}},
  };
  std::vector<nlohmann::json> shapes;
  uint64_t seed = 101;
  for (const auto& b : base) {
    for (const char* dtype : {"f32", "bf16", "f16"}) {
      nlohmann::json s = b;
      s["dtype"] = dtype;
      s["seed"] = seed++;
      shapes.push_back(s);
    }
  }
  return shapes;
}

}  // namespace aotune::causal_trailing_mean
