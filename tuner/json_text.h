// Deterministic JSON text for files people diff: small objects and arrays on one line, larger ones
// expanded with two-space indentation, keys in the document's own order.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace aotune::tuner {

// Values whose compact form fits in `inline_width` characters stay on one line.
std::string to_readable_json(const nlohmann::ordered_json& j, std::size_t inline_width = 100);
// The same text for a value nested `depth` levels deep (no trailing newline), so a large document
// can be assembled from pieces printed once.
std::string to_readable_json_at(const nlohmann::ordered_json& j, int depth,
                                std::size_t inline_width = 100);

// Converts a sorted-key document into an ordered one with the same (sorted) key order.
nlohmann::ordered_json to_ordered(const nlohmann::json& j);
nlohmann::json to_sorted(const nlohmann::ordered_json& j);

}  // namespace aotune::tuner
