#include "apps/aot-runner/call_shape.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "dispatch/src/kernel_selection.h"
#include "kernels/common/dtype.h"
#include "kernels/common/errors.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::cli {

namespace {

// Distinct 256-byte-aligned addresses: legality only looks at alignment, nothing is dereferenced.
const void* fake_buffer(int k) { return reinterpret_cast<const void*>(std::uintptr_t{1} << (20 + k)); }

void check_keys(const std::string& kernel, const nlohmann::json& spec, const std::set<std::string>& allowed) {
  for (const auto& [key, value] : spec.items()) {
    if (allowed.count(key) == 0) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InvalidArgument(kernel + ": '" + key + "' is not a key of the call form (nnz=... given); expected " +
                            list + ". A grid shape (len, dist, cap, ...) has no nnz");
    }
  }
}

int64_t int_key(const std::string& kernel, const nlohmann::json& spec, const std::string& key,
                std::optional<int64_t> fallback) {
  if (!spec.contains(key)) {
    if (fallback) return *fallback;
    throw InvalidArgument(kernel + ": the call form needs " + key + "=<integer>");
  }
  const nlohmann::json& v = spec.at(key);
  if (!v.is_number_integer()) throw InvalidArgument(kernel + ": " + key + " must be an integer, got " + v.dump());
  return v.get<int64_t>();
}

std::string text_key(const nlohmann::json& spec, const std::string& key, const std::string& fallback) {
  return spec.contains(key) ? (spec.at(key).is_string() ? spec.at(key).get<std::string>() : spec.at(key).dump())
                            : fallback;
}

// The longest row the features were computed with (the call's max_len, or the dispatch rule's).
int64_t longest_row(const Features& f) {
  for (const auto& [name, value] : f)
    if (name == "max_len") return static_cast<int64_t>(value);
  throw Error("jagged features without max_len");  // a kernel's features() changed its names
}

template <typename Config, typename Problem, typename Supports>
std::vector<Legality> legality_of(const std::vector<Config>& space, const Problem& p, Supports&& supports) {
  std::vector<Legality> out;
  out.reserve(space.size());
  for (const Config& c : space) out.push_back(supports(c, p));
  return out;
}

// jagged_mean's call form says whether the call passes feature counts: fc=given (the default) or
// fc=none (a null pointer: every column of every row, jagged_sum's work).
bool passes_feature_counts(const std::string& kernel, const nlohmann::json& spec) {
  const std::string fc = text_key(spec, "fc", "given");
  if (fc != "given" && fc != "none") {
    throw InvalidArgument(kernel + ": fc=" + fc + " in the call form must be \"given\" (the call passes feature counts) or \"none\"");
  }
  return fc == "given";
}

ProblemInfo jagged_reduce_call(const std::string& name, const nlohmann::json& spec) {
  if (name == "jagged_sum") {
    check_keys(name, spec, {"B", "M", "nnz", "max_len", "dtype", "index"});
  } else {
    check_keys(name, spec, {"B", "M", "nnz", "max_len", "dtype", "index", "fc"});
  }
  jagged_reduce::Problem p;
  p.op = name == "jagged_sum" ? jagged_reduce::Op::sum : jagged_reduce::Op::mean;
  p.B = int_key(name, spec, "B", std::nullopt);
  p.M = int_key(name, spec, "M", std::nullopt);
  p.nnz = int_key(name, spec, "nnz", std::nullopt);
  p.dtype = parse_dtype(text_key(spec, "dtype", "f32"));
  p.index = parse_index_type(text_key(spec, "index", "i64"));
  p.values = fake_buffer(0);
  p.offsets = fake_buffer(1);
  p.out = const_cast<void*>(fake_buffer(2));
  if (p.op == jagged_reduce::Op::mean && passes_feature_counts(name, spec)) p.feature_counts = fake_buffer(3);
  ProblemInfo info;
  info.features = dispatch::jagged_reduce_call_features(p, int_key(name, spec, "max_len", -1));
  info.shape = {{"B", p.B}, {"M", p.M}, {"nnz", p.nnz}, {"max_len", longest_row(info.features)},
                {"dtype", std::string(to_string(p.dtype))}, {"index", std::string(to_string(p.index))}};
  if (p.op == jagged_reduce::Op::mean) info.shape["fc"] = p.feature_counts != nullptr ? "given" : "none";
  info.legality = legality_of(jagged_reduce::config_space(), p,
                              [](const auto& c, const auto& q) { return jagged_reduce::supports(c, q); });
  return info;
}

ProblemInfo jagged_dense_add_call(const nlohmann::json& spec) {
  const std::string name = "jagged_dense_add";
  check_keys(name, spec, {"B", "N", "nnz", "max_len", "dtype", "index"});
  jagged_dense_add::Problem p;
  p.B = int_key(name, spec, "B", std::nullopt);
  p.N = int_key(name, spec, "N", std::nullopt);
  p.nnz = int_key(name, spec, "nnz", std::nullopt);
  p.max_len = int_key(name, spec, "max_len", -1);
  p.dtype = parse_dtype(text_key(spec, "dtype", "f32"));
  p.index = parse_index_type(text_key(spec, "index", "i64"));
  p.x = fake_buffer(0);
  p.offsets = fake_buffer(1);
  p.y = fake_buffer(2);
  p.out = const_cast<void*>(fake_buffer(3));
  ProblemInfo info;
  info.features = dispatch::jagged_dense_add_call_features(p);
  info.shape = {{"B", p.B}, {"N", p.N}, {"nnz", p.nnz}, {"max_len", longest_row(info.features)},
                {"dtype", std::string(to_string(p.dtype))}, {"index", std::string(to_string(p.index))}};
  info.legality = legality_of(jagged_dense_add::config_space(), p,
                              [](const auto& c, const auto& q) { return jagged_dense_add::supports(c, q); });
  return info;
}

}  // namespace

bool is_call_shape(const nlohmann::json& spec) { return spec.is_object() && spec.contains("nnz"); }

std::string heuristic_kernel(const TunableKernel& kernel, const nlohmann::json& spec) {
  const std::string name(kernel.name());
  if (name != "jagged_mean" || !is_call_shape(spec)) return name;
  return dispatch::jagged_reduce_heuristic(jagged_reduce::Op::mean, passes_feature_counts(name, spec));
}

bool has_call_form(const TunableKernel& kernel) {
  return kernel.name() == "jagged_sum" || kernel.name() == "jagged_mean" || kernel.name() == "jagged_dense_add";
}

ProblemInfo call_problem_info(const TunableKernel& kernel, const nlohmann::json& spec) {
  const std::string name(kernel.name());
  if (name == "jagged_sum" || name == "jagged_mean") return jagged_reduce_call(name, spec);
  if (name == "jagged_dense_add") return jagged_dense_add_call(spec);
  throw InvalidArgument(name + ": nnz= describes one jagged call; " + name +
                        " has no such form (its grid shape is already the call's sizes)");
}

}  // namespace aotune::cli
