// The feature names a kernel computes today (its features() function, via the registry): what a
// heuristic's recorded feature list must equal to be used at all.
#pragma once

#include <string>
#include <vector>

#include "kernels/common/tunable_kernel.h"

namespace aotune::heuristics {

inline std::vector<std::string> current_feature_names(const TunableKernel& kernel) {
  std::vector<std::string> names;
  const std::vector<nlohmann::json> shapes = kernel.test_shapes();
  if (shapes.empty()) return names;
  for (const auto& [name, value] : kernel.describe(shapes.front()).features) names.push_back(name);
  return names;
}

}  // namespace aotune::heuristics
