// Reading heuristic_<arch>.json (written by `aot-runner emit --json`): the override path that lets
// a user try a new tuning without recompiling. Every field is checked; nothing half-read is used.
#include <fmt/core.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "aotune/arch_fallback.h"
#include "aotune/heuristic_store.h"
#include "dispatch/src/kernel_heuristic_check.h"
#include "heuristics/tree_node.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"

namespace aotune::dispatch {

namespace {

KernelHeuristic kernel_from_json(const nlohmann::json& k, int arch, const std::string& path) {
  KernelHeuristic h;
  h.kernel = k.at("kernel").get<std::string>();
  h.arch = arch;
  h.source = path;
  h.features = k.at("features").get<std::vector<std::string>>();
  for (const auto& c : k.at("configs")) h.config_ids.push_back(c.at("id").get<std::string>());
  for (const auto& n : k.at("tree")) {
    h.nodes.push_back({n.at("feature").get<int32_t>(), n.at("left").get<int32_t>(),
                       n.at("right").get<int32_t>(), n.at("threshold").get<double>()});
  }
  h.leaf_configs = k.at("leaf_configs").get<std::vector<uint16_t>>();
  h.fallback = k.at("fallback").get<std::vector<uint16_t>>();
  // A forest's tables; absent in files written before forests (one tree: both empty).
  if (k.contains("roots")) h.roots = k.at("roots").get<std::vector<int32_t>>();
  if (k.contains("leaf_values")) {
    // nlohmann's get<uint16_t> would wrap a larger number silently.
    const auto& values = k.at("leaf_values");
    if (!values.is_array()) throw InvalidArgument(fmt::format("{}: leaf_values is not an array", h.kernel));
    h.leaf_values.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values[i].is_number_unsigned() || values[i].get<uint64_t>() > 0xFFFF)
        throw InvalidArgument(fmt::format("{}: leaf_values[{}] is {}, not a 16-bit cost (0 to 65535)", h.kernel, i,
                                          values[i].dump()));
      h.leaf_values.push_back(values[i].get<uint16_t>());
    }
  }
  return h;
}

}  // namespace

std::vector<KernelHeuristic> load_heuristic_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument(fmt::format("{}: cannot be read", path));
  std::stringstream text;
  text << in.rdbuf();
  std::vector<KernelHeuristic> out;
  try {
    const nlohmann::json j = nlohmann::json::parse(text.str());
    if (j.at("format").get<std::string>() != heuristics::kHeuristicFileFormat) {
      throw InvalidArgument(
          fmt::format("format '{}' is not {} (another aotune version wrote it: regenerate it with `aot-runner emit "
                      "--json`)",
                      j.at("format").get<std::string>(), heuristics::kHeuristicFileFormat));
    }
    const int arch = parse_arch_name(j.at("arch").get<std::string>());
    for (const auto& k : j.at("kernels")) {
      if (!k.at("tuned").get<bool>()) continue;  // an untuned entry overrides nothing
      KernelHeuristic h = kernel_from_json(k, arch, path);
      resolve_and_check(h, find_kernel(h.kernel));
      out.push_back(std::move(h));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(fmt::format("{}: {}", path, e.what()));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("{}: {}", path, e.what()));
  }
  return out;
}

}  // namespace aotune::dispatch
