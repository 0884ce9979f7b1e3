// Registry adapter for jagged_sum / jagged_mean: shape specs and workloads (the test shapes are
// jagged_reduce_inputs.cpp's).
// Shape spec: the jagged fields of JaggedShape plus "M", and for jagged_mean "fc": "full" | "random".
#include "kernels/jagged_reduce/jagged_reduce_kernel.h"

#include <random>

#include "kernels/common/host_data.h"
#include "kernels/common/jagged_shape.h"
#include "kernels/common/shape_spec.h"
#include "kernels/common/workload_base.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "kernels/jagged_reduce/jagged_reduce_inputs.h"
#include "source_hashes.h"

namespace aotune {

namespace {

using jagged_reduce::Op;

struct ReduceShape {
  JaggedShape jagged;
  int64_t M = 0;
  bool random_fc = false;
};

ReduceShape parse_shape(Op op, const nlohmann::json& spec) {
  ReduceShape s;
  s.M = spec_int(spec, "M", std::nullopt, 1, 1 << 20);
  s.jagged = JaggedShape::parse(spec, int64_t{1} << 40, s.M);
  checked_mul(s.jagged.B, s.M, "B * M");
  const std::string fc = spec_string(spec, "fc", op == Op::mean ? "random" : "full");
  if (fc != "full" && fc != "random") throw InvalidArgument("shape field 'fc' must be \"full\" or \"random\", got \"" + fc + "\"");
  if (op == Op::sum && fc != "full") throw InvalidArgument("jagged_sum has no feature counts: 'fc' must be \"full\"");
  s.random_fc = fc == "random";
  return s;
}

// Fake pointers with the workload's alignment: supports() only looks at alignment.
jagged_reduce::Problem problem_for_legality(Op op, const ReduceShape& s) {
  jagged_reduce::Problem p;
  p.op = op;
  p.B = s.jagged.B;
  p.M = s.M;
  p.nnz = s.jagged.nnz;
  p.dtype = s.jagged.dtype;
  p.index = s.jagged.index;
  p.values = reinterpret_cast<const void*>(std::uintptr_t{256} + s.jagged.misalign * dtype_size(s.jagged.dtype));
  p.offsets = reinterpret_cast<const void*>(std::uintptr_t{256});
  p.out = reinterpret_cast<void*>(std::uintptr_t{256});
  return p;
}

ProblemInfo describe_shape(Op op, const nlohmann::json& spec) {
  const ReduceShape s = parse_shape(op, spec);
  ProblemInfo info;
  info.shape = spec;
  s.jagged.normalise_into(info.shape);
  info.shape["M"] = s.M;
  if (op == Op::mean) info.shape["fc"] = s.random_fc ? "random" : "full";
  info.features = jagged_reduce::features(s.jagged.dtype, s.jagged.B, s.M, s.jagged.nnz, s.jagged.max_len);
  const double es = static_cast<double>(dtype_size(s.jagged.dtype));
  info.bytes_moved = static_cast<double>(s.jagged.nnz) * s.M * es +
                     static_cast<double>(s.jagged.B + 1) * index_size(s.jagged.index) +
                     static_cast<double>(s.jagged.B) * s.M * es;
  const jagged_reduce::Problem p = problem_for_legality(op, s);
  for (const auto& c : jagged_reduce::config_space()) info.legality.push_back(jagged_reduce::supports(c, p));
  return info;
}

class ReduceWorkload final : public WorkloadBase {
 public:
  ReduceWorkload(ProblemInfo info, jagged_reduce::Problem problem, std::vector<PlacedBuffer> inputs,
                 std::vector<double> ref, std::vector<double> scale)
      : WorkloadBase(std::move(info), problem.dtype, static_cast<std::size_t>(problem.B * problem.M), std::move(ref),
                     std::move(scale)),
        problem_(problem),
        inputs_(std::move(inputs)) {
    problem_.out = out();
  }

  void launch(std::size_t index, cudaStream_t stream) override {
    const auto& c = jagged_reduce::config_space().at(index);
    jagged_reduce::launch(c, problem_, workspace(jagged_reduce::workspace_bytes(c, problem_)), stream);
  }

 private:
  jagged_reduce::Problem problem_;
  std::vector<PlacedBuffer> inputs_;
};

std::unique_ptr<Workload> make_reduce_workload(Op op, const nlohmann::json& spec) {
  ProblemInfo info = describe_shape(op, spec);
  const ReduceShape s = parse_shape(op, spec);
  const JaggedShape& j = s.jagged;
  std::mt19937_64 rng(j.seed);
  // Drawn in the device's encoding: the reference decodes each entry as it adds it, so no float64
  // copy of a gigabyte of inputs is built, zeroed on one thread, then encoded (PERF.md, Session 42).
  const EncodedValues values = random_encoded(static_cast<std::size_t>(j.nnz * s.M), j.dtype, rng);
  std::vector<int64_t> fc;
  if (op == Op::mean) {
    fc.resize(static_cast<std::size_t>(j.B), s.M);
    if (s.random_fc) {
      for (auto& f : fc) f = static_cast<int64_t>(rng() % static_cast<uint64_t>(s.M + 1));
    }
  }
  // Error scale: the reference of |values| (sum of magnitudes that were combined).
  jagged_reduce::Reference ref = jagged_reduce::reference_with_scale(op, values, j.offsets, fc, s.M);

  std::vector<PlacedBuffer> inputs;
  inputs.push_back(upload_placed(values.data(), values.bytes(), j.misalign * dtype_size(j.dtype)));
  const auto offset_bytes = encode_index(j.offsets, j.index);
  inputs.push_back(upload_placed(offset_bytes.data(), offset_bytes.size(), 0));
  jagged_reduce::Problem p = problem_for_legality(op, s);
  p.values = inputs[0].ptr;
  p.offsets = inputs[1].ptr;
  if (op == Op::mean) {
    const auto fc_bytes = encode_index(fc, j.index);
    inputs.push_back(upload_placed(fc_bytes.data(), fc_bytes.size(), 0));
    p.feature_counts = inputs[2].ptr;
  }
  return std::make_unique<ReduceWorkload>(std::move(info), p, std::move(inputs), std::move(ref.out), std::move(ref.scale));
}

class JaggedReduceKernel final : public TunableKernel {
 public:
  explicit JaggedReduceKernel(Op op) : op_(op) {}
  std::string_view name() const override { return op_ == Op::sum ? "jagged_sum" : "jagged_mean"; }
  std::string_view summary() const override {
    return op_ == Op::sum ? "values[nnz,M], offsets[B+1] -> per-row sums out[B,M]"
                          : "values[nnz,M], offsets[B+1], feature_counts[B] -> per-row means out[B,M] (0 past fc)";
  }
  std::string_view source_hash() const override { return source_hashes::jagged_reduce; }
  std::size_t num_configs() const override { return jagged_reduce::config_space().size(); }
  std::string config_id(std::size_t i) const override { return jagged_reduce::config_id(jagged_reduce::config_space().at(i)); }
  nlohmann::json config_json(std::size_t i) const override { return jagged_reduce::to_json(jagged_reduce::config_space().at(i)); }
  ProblemInfo describe(const nlohmann::json& shape) const override { return describe_shape(op_, shape); }
  std::unique_ptr<Workload> make_workload(const nlohmann::json& shape) const override {
    return make_reduce_workload(op_, shape);
  }
  std::vector<nlohmann::json> test_shapes() const override { return jagged_reduce::test_shapes(); }

 private:
  Op op_;
};

}  // namespace

const TunableKernel& jagged_sum_kernel() {
  static const JaggedReduceKernel k(Op::sum);
  return k;
}

const TunableKernel& jagged_mean_kernel() {
  static const JaggedReduceKernel k(Op::mean);
  return k;
}

}  // namespace aotune
