// How each kernel's Config is written as a C++ aggregate in generated headers. Designated
// initialisers (".threads = 256") make the compiler check every field name and their order
// against the kernel's struct, so a stale binding fails to compile instead of mis-assigning.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace aotune::codegen {

struct AggregateField {
  std::string_view name;  // the struct member, also the key in the config's JSON
  std::string_view
      enum_type;  // qualified enum type whose enumerators are the JSON strings; empty: int
};

struct ConfigBinding {
  std::string_view kernel;
  std::string_view header;             // the kernel's public header, included by the generated file
  std::string_view type;               // qualified Config type
  std::vector<AggregateField> fields;  // in declaration order
};

const std::vector<ConfigBinding>& config_bindings();
// Throws InvalidArgument naming the kernel when it has no binding (add one line in
// config_bindings.cpp).
const ConfigBinding& config_binding(std::string_view kernel);

// "{.strategy = aotune::jagged_reduce::Strategy::block_row, .threads = 256, .vec = 4, .chunk = 0, .slots = 1}".
// Throws InvalidArgument when the JSON lacks a field or has the wrong type.
std::string config_aggregate(const ConfigBinding& binding, const nlohmann::json& config);

}  // namespace aotune::codegen
