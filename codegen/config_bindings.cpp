#include "codegen/config_bindings.h"

#include <fmt/core.h>

#include "kernels/common/errors.h"

namespace aotune::codegen {

const std::vector<ConfigBinding>& config_bindings() {
  // One entry per registered kernel; jagged_sum and jagged_mean share one implementation.
  const auto jagged_reduce = [](std::string_view kernel) {
    return ConfigBinding{kernel,
                         "kernels/jagged_reduce/jagged_reduce.h",
                         "aotune::jagged_reduce::Config",
                         {{"strategy", "aotune::jagged_reduce::Strategy"},
                          {"threads", {}},
                          {"vec", {}},
                          {"chunk", {}},
                          {"slots", {}}}};
  };
  static const std::vector<ConfigBinding> bindings = {
      jagged_reduce("jagged_sum"),
      jagged_reduce("jagged_mean"),
      {"jagged_dense_add",
       "kernels/jagged_dense_add/jagged_dense_add.h",
       "aotune::jagged_dense_add::Config",
       {{"strategy", "aotune::jagged_dense_add::Strategy"},
        {"threads", {}},
        {"rows_per_block", {}},
        {"vec", {}}}},
      {"causal_trailing_mean",
       "kernels/causal_trailing_mean/causal_trailing_mean.h",
       "aotune::causal_trailing_mean::Config",
       {{"unit", "aotune::causal_trailing_mean::Unit"},
        {"threads", {}},
        {"vecs", {}},
        {"seg_tiles", {}},
        {"persistent", {}}}},
  };
  return bindings;
}

const ConfigBinding& config_binding(std::string_view kernel) {
  for (const ConfigBinding& b : config_bindings()) {
    if (b.kernel == kernel) return b;
  }
  throw InvalidArgument(
      fmt::format("kernel '{}' has no config binding for code generation: add one to "
                  "codegen/config_bindings.cpp",
                  kernel));
}

std::string config_aggregate(const ConfigBinding& binding, const nlohmann::json& config) {
  // Every field of the config must be bound: one left out would silently take its default in the
  // generated table, and the dispatch library's consistency check would then reject the header.
  if (config.is_object()) {
    for (const auto& [key, value] : config.items()) {
      bool bound = false;
      for (const AggregateField& f : binding.fields) bound = bound || f.name == key;
      if (!bound) {
        throw InvalidArgument(fmt::format(
            "{} config {} has a field '{}' that codegen does not bind: add it to the kernel's entry "
            "in codegen/config_bindings.cpp",
            binding.kernel, config.dump(), key));
      }
    }
  }
  std::string out = "{";
  for (std::size_t i = 0; i < binding.fields.size(); ++i) {
    const AggregateField& f = binding.fields[i];
    const std::string key(f.name);
    if (!config.is_object() || !config.contains(key)) {
      throw InvalidArgument(
          fmt::format("{} config {} has no field '{}'", binding.kernel, config.dump(), key));
    }
    const nlohmann::json& v = config.at(key);
    std::string value;
    if (!f.enum_type.empty() && v.is_string()) {
      value = fmt::format("{}::{}", f.enum_type, v.get<std::string>());
    } else if (f.enum_type.empty() && v.is_number_integer()) {
      value = std::to_string(v.get<long long>());
    } else if (f.enum_type.empty() && v.is_boolean()) {
      value = v.get<bool>() ? "true" : "false";
    } else {
      throw InvalidArgument(fmt::format("{} config field '{}' = {} is not {}", binding.kernel, key,
                                        v.dump(),
                                        f.enum_type.empty() ? "an integer or a boolean" : "an enumerator name"));
    }
    out += fmt::format("{}.{} = {}", i == 0 ? "" : ", ", key, value);
  }
  return out + "}";
}

}  // namespace aotune::codegen
