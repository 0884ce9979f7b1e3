// Registry adapter for causal_trailing_mean: shape specs and workloads. Shape spec: B, D (default
// 1), T, cf, dtype, seed, misalign (elements by which x is moved off 256-byte alignment), and the
// value fields of causal_trailing_mean_inputs.h (mean, quiet_rows, quiet_span, zero_rows), whose
// values and test shapes live there, outside the source hash.
#include "kernels/causal_trailing_mean/causal_trailing_mean_kernel.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_inputs.h"
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
  ctm::ValuePattern values;
  int64_t misalign = 0;
  int64_t rows = 0;
  int64_t elems = 0;
};

TrailingShape parse_shape(const nlohmann::json& spec) {
  constexpr int64_t kMaxDim = int64_t{1} << 40;
  TrailingShape s;
  s.B = spec_int(spec, "B", std::nullopt, 0, kMaxDim);
  s.D = spec_int(spec, "D", 1, 0, kMaxDim);
  s.T = spec_int(spec, "T", std::nullopt, 0, kMaxDim);
  s.cf = spec_int(spec, "cf", std::nullopt, 1, std::numeric_limits<int64_t>::max());
  s.dtype = spec_dtype(spec);
  s.seed = spec_seed(spec);
  s.values = ctm::parse_value_pattern(spec);
  s.misalign = spec_int(spec, "misalign", 0, 0, 7);
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
  info.shape["mean"] = s.values.mean;
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

std::unique_ptr<Workload> make_trailing_workload(const nlohmann::json& spec) {
  ProblemInfo info = describe_shape(spec);
  const TrailingShape s = parse_shape(spec);
  const std::vector<double> x = ctm::input_values(s.values, s.rows, s.T, s.dtype, s.seed);
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
  std::vector<nlohmann::json> test_shapes() const override { return ctm::test_shapes(); }
};

}  // namespace

std::vector<double> trailing_input_values(const nlohmann::json& spec) {
  const TrailingShape s = parse_shape(spec);
  return causal_trailing_mean::input_values(s.values, s.rows, s.T, s.dtype, s.seed);
}

const TunableKernel& causal_trailing_mean_kernel() {
  static const CausalTrailingMeanKernel k;
  return k;
}

}  // namespace aotune
