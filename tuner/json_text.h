// Deterministic JSON text for files people diff: small objects and arrays on one line, larger ones
// expanded with two-space indentation, keys in the document's own order.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace aotune::tuner {

// Values whose compact form fits in `inline_width` characters stay on one line.
std::string to_readable_json(const nlohmann::ordered_json& j, std::size_t inline_width = 100);

// Converts a sorted-key document into an ordered one with the same (sorted) key order.
nlohmann::ordered_json to_ordered(const nlohmann::json& j);
nlohmann::json to_sorted(const nlohmann::ordered_json& j);

}  // namespace aotune::tuner
