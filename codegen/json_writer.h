// Renders an ArchHeuristics as heuristic_<arch>.json: the same content as the header, for the
// override directory (AOTUNE_HEURISTIC_DIR) that dispatch reads without recompiling.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "codegen/arch_heuristics.h"

namespace aotune::codegen {

nlohmann::ordered_json to_json(const ArchHeuristics& h);
std::string render_json(const ArchHeuristics& h);

}  // namespace aotune::codegen
