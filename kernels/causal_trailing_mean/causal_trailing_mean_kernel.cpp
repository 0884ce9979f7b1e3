// Registry adapter for causal_trailing_mean: shape specs, workloads and test shapes.
// Shape spec: B, D (default 1), T, cf, dtype, seed, mean (of the random input, default 0; values
// are uniform in [mean-1, mean+1]), misalign (elements by which x is moved off 256-byte alignment),
// zero_rows (k > 0: every k-th row, rows k-1, 2k-1, ..., holds exact zeros; default 0, none).
#include "kernels/causal_trailing_mean/causal_trailing_mean_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/common/errors.h"
#include "kernels/common/host_data.h"
#include "kernels/common/shape_spec.h"
#include "kernels/common/workload_base.h"
#include "source_hashes.h"

namespace aotune {

namespace {

namespace ctm = causal_trailing_mean;

struct TrailingShape {
  int64_t B = 0;
  int64_t D = 1;
  int64_t T = 0;
  int64_t cf = 1;
  DType dtype = DType::f32;
  uint64_t seed = 1;
  double mean = 0;
  int64_t misalign = 0;
  int64_t zero_rows = 0;
  int64_t rows = 0;
  int64_t elems = 0;
};

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

TrailingShape parse_shape(const nlohmann::json& spec) {
  constexpr int64_t kMaxDim = int64_t{1} << 40;
  TrailingShape s;
  s.B = spec_int(spec, "B", std::nullopt, 0, kMaxDim);
  s.D = spec_int(spec, "D", 1, 0, kMaxDim);
  s.T = spec_int(spec, "T", std::nullopt, 0, kMaxDim);
  s.cf = spec_int(spec, "cf", std::nullopt, 1, std::numeric_limits<int64_t>::max());
  s.dtype = spec_dtype(spec);
  s.seed = spec_seed(spec);
  s.mean = spec_mean(spec);
  s.misalign = spec_int(spec, "misalign", 0, 0, 7);
  s.zero_rows = spec_int(spec, "zero_rows", 0, 0, kMaxDim);
  s.rows = checked_mul(s.B, s.D, "B * D");
  s.elems = checked_mul(s.rows, s.T, "B * D * T");
  checked_mul(s.elems, static_cast<int64_t>(dtype_size(s.dtype)), "B * D * T bytes");
  return s;
}

// Fake pointers with the workload's placement: supports() does not dereference them.
ctm::Problem problem_for_legality(const TrailingShape& s) {
  ctm::Problem p;
  p.B = s.B;
  p.D = s.D;
  p.T = s.T;
  p.cf = s.cf;
  p.dtype = s.dtype;
  p.x = reinterpret_cast<const void*>(std::uintptr_t{256} + s.misalign * dtype_size(s.dtype));
  p.out = reinterpret_cast<void*>(std::uintptr_t{256});
  return p;
}

ProblemInfo describe_shape(const nlohmann::json& spec) {
  const TrailingShape s = parse_shape(spec);
  ProblemInfo info;
  info.shape = spec;
  info.shape["B"] = s.B;
  info.shape["D"] = s.D;
  info.shape["T"] = s.T;
  info.shape["cf"] = s.cf;
  info.shape["dtype"] = std::string(to_string(s.dtype));
  info.shape["seed"] = s.seed;
  info.shape["mean"] = s.mean;
  info.shape["misalign"] = s.misalign;
  info.features = ctm::features(s.dtype, s.B, s.D, s.T, s.cf);
  info.bytes_moved = 2.0 * static_cast<double>(s.elems) * static_cast<double>(dtype_size(s.dtype));
  const ctm::Problem p = problem_for_legality(s);
  for (const auto& c : ctm::config_space()) info.legality.push_back(ctm::supports(c, p));
  return info;
}

class TrailingMeanWorkload final : public WorkloadBase {
 public:
  TrailingMeanWorkload(ProblemInfo info, ctm::Problem problem, PlacedBuffer x, std::vector<double> ref,
                       std::vector<double> scale)
      : WorkloadBase(std::move(info), problem.dtype, static_cast<std::size_t>(problem.B * problem.D * problem.T),
                     std::move(ref), std::move(scale)),
        problem_(problem),
        x_(std::move(x)) {
    problem_.out = out();
  }

  void launch(std::size_t index, cudaStream_t stream) override {
    const auto& c = ctm::config_space().at(index);
    ctm::launch(c, problem_, workspace(ctm::workspace_bytes(c, problem_)), stream);
  }

 private:
  ctm::Problem problem_;
  PlacedBuffer x_;
};

std::vector<double> input_values(const TrailingShape& s) {
  std::mt19937_64 rng(s.seed);
  std::vector<double> x = random_values(static_cast<std::size_t>(s.elems), s.dtype, rng, s.mean);
  // A row of zeros has the exact answer 0 and an error scale of 0, so only an exact 0 passes: it
  // catches state carried into the next row (a window sum not restarted at the row start). It does
  // not catch a prefix summed in order over a tile wider than a row and then differenced (PERF.md,
  // Session 37: a tile-wide fp32 prefix was off by an ulp of the prefix on bf16 rows): adding 0.0
  // is exact, so the prefix holds still across the zeros and their differences are exactly 0
  // (Session 38). Rows of small values after large ones catch that: docs/wip/quiet_rows.patch.
  if (s.zero_rows > 0) {
    for (int64_t r = s.zero_rows - 1; r < s.rows; r += s.zero_rows) {
      std::fill_n(x.begin() + r * s.T, s.T, 0.0);
    }
  }
  return x;
}

std::unique_ptr<Workload> make_trailing_workload(const nlohmann::json& spec) {
  ProblemInfo info = describe_shape(spec);
  const TrailingShape s = parse_shape(spec);
  const std::vector<double> x = input_values(s);
  std::vector<double> ref = ctm::reference(x, s.rows, s.T, s.cf);
  // Error scale: the window mean of |x| (the magnitude of the terms that were combined).
  std::vector<double> abs_x(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) abs_x[i] = std::abs(x[i]);
  std::vector<double> scale = ctm::reference(abs_x, s.rows, s.T, s.cf);

  const auto x_bytes = encode(x, s.dtype);
  PlacedBuffer x_dev = upload_placed(x_bytes.data(), x_bytes.size(), s.misalign * dtype_size(s.dtype));
  ctm::Problem p = problem_for_legality(s);
  p.x = x_dev.ptr;
  return std::make_unique<TrailingMeanWorkload>(std::move(info), p, std::move(x_dev), std::move(ref),
                                                std::move(scale));
}

std::vector<nlohmann::json> trailing_test_shapes() {
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
      // Rows of zeros after rows of large values (mean -20): an exact 0 is the only answer that
      // passes, so a sum carried over a row start shows. Prefix means across warps, windows of the
      // W = 32 and W = 128 instances on short rows, and long rows split into segments.
      {{"B", 64}, {"D", 32}, {"T", 77}, {"cf", 77}, {"mean", -20}, {"zero_rows", 2}},
      {{"B", 64}, {"D", 32}, {"T", 72}, {"cf", 32}, {"mean", -20}, {"zero_rows", 3}},
      {{"B", 16}, {"D", 16}, {"T", 300}, {"cf", 100}, {"mean", -20}, {"zero_rows", 2}},
      {{"B", 4}, {"D", 2}, {"T", 5000}, {"cf", 700}, {"mean", -20}, {"zero_rows", 2}},
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

class CausalTrailingMeanKernel final : public TunableKernel {
 public:
  std::string_view name() const override { return "causal_trailing_mean"; }
  std::string_view summary() const override {
    return "x[B,D,T], window cf -> out[b,d,t] = mean of x[b,d,max(0,t-cf+1)..t]";
  }
  std::string_view source_hash() const override { return source_hashes::causal_trailing_mean; }
  std::size_t num_configs() const override { return ctm::config_space().size(); }
  std::string config_id(std::size_t i) const override { return ctm::config_id(ctm::config_space().at(i)); }
  nlohmann::json config_json(std::size_t i) const override { return ctm::to_json(ctm::config_space().at(i)); }
  ProblemInfo describe(const nlohmann::json& shape) const override { return describe_shape(shape); }
  std::unique_ptr<Workload> make_workload(const nlohmann::json& shape) const override {
    return make_trailing_workload(shape);
  }
  std::vector<nlohmann::json> test_shapes() const override { return trailing_test_shapes(); }
};

}  // namespace

std::vector<double> trailing_input_values(const nlohmann::json& spec) { return input_values(parse_shape(spec)); }

const TunableKernel& causal_trailing_mean_kernel() {
  static const CausalTrailingMeanKernel k;
  return k;
}

}  // namespace aotune
