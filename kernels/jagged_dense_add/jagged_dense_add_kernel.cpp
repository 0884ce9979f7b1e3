// Registry adapter for jagged_dense_add: shape specs and workloads (the test shapes are
// jagged_dense_add_inputs.cpp's).
// Shape spec: the jagged fields of JaggedShape plus "N" (dense row width). Rows are capped at N
// ("cap" defaults to N and may not exceed it); "misalign" moves both x and y off their alignment.
#include "kernels/jagged_dense_add/jagged_dense_add_kernel.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "kernels/common/errors.h"
#include "kernels/common/host_data.h"
#include "kernels/common/jagged_shape.h"
#include "kernels/common/shape_spec.h"
#include "kernels/common/workload_base.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"
#include "kernels/jagged_dense_add/jagged_dense_add_inputs.h"
#include "source_hashes.h"

namespace aotune {

namespace {

namespace jda = jagged_dense_add;

struct DenseAddShape {
  JaggedShape jagged;
  int64_t N = 0;
};

DenseAddShape parse_shape(const nlohmann::json& spec) {
  DenseAddShape s;
  s.N = spec_int(spec, "N", std::nullopt, 1, std::numeric_limits<int32_t>::max());
  s.jagged = JaggedShape::parse(spec, s.N, 1);
  if (s.jagged.cap > s.N) {
    throw InvalidArgument("shape field 'cap'=" + std::to_string(s.jagged.cap) + " exceeds N=" +
                          std::to_string(s.N) + ": jagged rows must fit in the dense rows");
  }
  checked_mul(s.jagged.B, s.N, "B * N");
  return s;
}

// Fake pointers with the workload's alignment: supports() only looks at alignment.
jda::Problem problem_for_legality(const DenseAddShape& s) {
  const JaggedShape& j = s.jagged;
  const std::uintptr_t shifted =
      256 + static_cast<std::uintptr_t>(j.misalign) * dtype_size(j.dtype);
  jda::Problem p;
  p.B = j.B;
  p.N = s.N;
  p.nnz = j.nnz;
  p.max_len = j.max_len;
  p.dtype = j.dtype;
  p.index = j.index;
  p.x = reinterpret_cast<const void*>(shifted);
  p.offsets = reinterpret_cast<const void*>(std::uintptr_t{256});
  p.y = reinterpret_cast<const void*>(shifted);
  p.out = reinterpret_cast<void*>(std::uintptr_t{256});
  return p;
}

ProblemInfo describe_shape(const nlohmann::json& spec) {
  const DenseAddShape s = parse_shape(spec);
  const JaggedShape& j = s.jagged;
  ProblemInfo info;
  info.shape = spec;
  j.normalise_into(info.shape);
  info.shape["N"] = s.N;
  info.features = jda::features(j.dtype, j.B, s.N, j.nnz, j.max_len);
  const double es = static_cast<double>(dtype_size(j.dtype));
  info.bytes_moved = static_cast<double>(j.nnz) * es + 2.0 * static_cast<double>(j.B) * s.N * es +
                     static_cast<double>(j.B + 1) * index_size(j.index);
  const jda::Problem p = problem_for_legality(s);
  for (const auto& c : jda::config_space()) info.legality.push_back(jda::supports(c, p));
  return info;
}

class DenseAddWorkload final : public WorkloadBase {
 public:
  DenseAddWorkload(ProblemInfo info, jda::Problem problem, std::vector<PlacedBuffer> inputs,
                   std::vector<double> ref, std::vector<double> scale)
      : WorkloadBase(std::move(info), problem.dtype,
                     static_cast<std::size_t>(problem.B * problem.N), std::move(ref),
                     std::move(scale)),
        problem_(problem),
        inputs_(std::move(inputs)) {
    problem_.out = out();
    jda::validate(problem_);
  }

  void launch(std::size_t index, cudaStream_t stream) override {
    const auto& c = jda::config_space().at(index);
    jda::launch(c, problem_, workspace(jda::workspace_bytes(c, problem_)), stream);
  }

 private:
  jda::Problem problem_;
  std::vector<PlacedBuffer> inputs_;
};

std::vector<double> magnitudes(const std::vector<double>& v) {
  std::vector<double> a(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) a[i] = std::abs(v[i]);
  return a;
}

std::unique_ptr<Workload> make_dense_add_workload(const nlohmann::json& spec) {
  ProblemInfo info = describe_shape(spec);
  const DenseAddShape s = parse_shape(spec);
  const JaggedShape& j = s.jagged;
  std::mt19937_64 rng(j.seed);
  const std::vector<double> x = random_values(static_cast<std::size_t>(j.nnz), j.dtype, rng);
  const std::vector<double> y = random_values(static_cast<std::size_t>(j.B * s.N), j.dtype, rng);
  std::vector<double> ref = jda::reference(x, j.offsets, y, s.N);
  // Error scale per element: |y| + |x|, the magnitudes of the two terms that were added.
  std::vector<double> scale = jda::reference(magnitudes(x), j.offsets, magnitudes(y), s.N);

  const std::size_t shift = static_cast<std::size_t>(j.misalign) * dtype_size(j.dtype);
  std::vector<PlacedBuffer> inputs;
  const auto x_bytes = encode(x, j.dtype);
  inputs.push_back(upload_placed(x_bytes.data(), x_bytes.size(), shift));
  const auto offset_bytes = encode_index(j.offsets, j.index);
  inputs.push_back(upload_placed(offset_bytes.data(), offset_bytes.size(), 0));
  const auto y_bytes = encode(y, j.dtype);
  inputs.push_back(upload_placed(y_bytes.data(), y_bytes.size(), shift));
  jda::Problem p = problem_for_legality(s);
  p.x = inputs[0].ptr;
  p.offsets = inputs[1].ptr;
  p.y = inputs[2].ptr;
  return std::make_unique<DenseAddWorkload>(std::move(info), p, std::move(inputs), std::move(ref),
                                            std::move(scale));
}

class JaggedDenseAddKernel final : public TunableKernel {
 public:
  std::string_view name() const override { return "jagged_dense_add"; }
  std::string_view summary() const override {
    return "x[nnz], offsets[B+1], y[B,N] -> out[B,N] = y + x's row b on columns [0, len_b)";
  }
  std::string_view source_hash() const override { return source_hashes::jagged_dense_add; }
  std::size_t num_configs() const override { return jda::config_space().size(); }
  std::string config_id(std::size_t i) const override {
    return jda::config_id(jda::config_space().at(i));
  }
  nlohmann::json config_json(std::size_t i) const override {
    return jda::to_json(jda::config_space().at(i));
  }
  ProblemInfo describe(const nlohmann::json& shape) const override { return describe_shape(shape); }
  std::unique_ptr<Workload> make_workload(const nlohmann::json& shape) const override {
    return make_dense_add_workload(shape);
  }
  std::vector<nlohmann::json> test_shapes() const override { return jda::test_shapes(); }
};

}  // namespace

const TunableKernel& jagged_dense_add_kernel() {
  static const JaggedDenseAddKernel k;
  return k;
}

}  // namespace aotune
