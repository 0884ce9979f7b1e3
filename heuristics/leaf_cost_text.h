// How a generated header writes a forest's 16-bit leaf costs (tree_node.h, leaf_cost()): three
// characters each, base 64 with the URL-safe alphabet, in one string literal. As decimal numbers
// in a std::array they took 6-7 characters each and most of the header: a jagged forest of 32
// trees has about 1.7 million costs, and three such forests made a 43 MB header. A string literal
// also compiles far faster than a brace list of a million numbers. The JSON form (`emit --json`)
// keeps plain numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aotune::heuristics {

inline constexpr std::string_view kLeafCostDigits =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
inline constexpr std::size_t kLeafCostChars = 3;  // 18 bits: every 16-bit cost

// The digit's value, or -1 for a character outside kLeafCostDigits.
constexpr int leaf_cost_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  if (c >= 'a' && c <= 'z') return c - 'a' + 36;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

inline std::string encode_leaf_cost(uint16_t value) {
  return {kLeafCostDigits[value >> 12], kLeafCostDigits[(value >> 6) & 63], kLeafCostDigits[value & 63]};
}

// The costs `text` holds, or false (and `out` untouched) where it is not a whole number of
// well-formed costs.
inline bool decode_leaf_costs(std::string_view text, std::vector<uint16_t>& out) {
  if (text.size() % kLeafCostChars != 0) return false;
  std::vector<uint16_t> values(text.size() / kLeafCostChars);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const int a = leaf_cost_digit(text[3 * i]), b = leaf_cost_digit(text[3 * i + 1]),
              c = leaf_cost_digit(text[3 * i + 2]);
    if (a < 0 || b < 0 || c < 0 || a > 15) return false;  // a > 15: past 16 bits
    values[i] = static_cast<uint16_t>((a << 12) | (b << 6) | c);
  }
  out = std::move(values);
  return true;
}

}  // namespace aotune::heuristics
