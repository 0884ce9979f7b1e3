// Renders an ArchHeuristics as heuristic_<arch>.h: a banner, then per kernel a struct of constexpr
// tables (features, configs as aggregates, tree nodes, leaf lists, fallback) and nothing else.
#pragma once

#include <string>
#include <vector>

#include "codegen/arch_heuristics.h"

namespace aotune::codegen {

std::string render_header(const ArchHeuristics& h);

// heuristic_archs.h: includes every architecture's header and lists them for the dispatch library.
std::string render_arch_index(const std::vector<std::string>& archs);

// A double as a C++ literal that reads back to the same value ("64.0", "45.254833995939045").
// Throws InvalidArgument for infinities and NaN.
std::string double_literal(double v);

}  // namespace aotune::codegen
