#include "codegen/manifest.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/atomic_file.h"
#include "tuner/device_info.h"

namespace aotune::codegen {

Manifest load_manifest(const std::string& path) {
  const auto text = tuner::read_file_if_exists(path);
  if (!text) {
    throw InvalidArgument(
        fmt::format("no manifest at {}: run from the repository root or pass --configs DIR", path));
  }
  Manifest m;
  try {
    const nlohmann::json j = nlohmann::json::parse(*text);
    m.architectures = j.at("architectures").get<std::vector<std::string>>();
    m.kernels = j.at("kernels").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(fmt::format("{}: {}", path, e.what()));
  }
  for (const std::string& arch : m.architectures) {
    try {
      tuner::parse_arch(arch);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(fmt::format("{}: {}", path, e.what()));
    }
  }
  for (const std::string& kernel : m.kernels) {
    try {
      find_kernel(kernel);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(fmt::format("{}: {}", path, e.what()));
    }
  }
  return m;
}

}  // namespace aotune::codegen
