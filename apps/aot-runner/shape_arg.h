// The `--shape` argument of explain, run and devices: "B=1024,M=256,dist=powerlaw" as a shape spec,
// the same JSON object a grid file (configs/grids/<kernel>.json) expands into.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace aotune::cli {

// {"B": 1024, "M": 256, "dist": "powerlaw"}: integers and numbers typed, the rest strings.
// Throws InvalidArgument naming the pair that is not key=value.
nlohmann::json parse_shape_pairs(const std::string& text);

}  // namespace aotune::cli
