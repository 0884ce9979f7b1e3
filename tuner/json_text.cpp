#include "tuner/json_text.h"

namespace aotune::tuner {

namespace {

// Length of j's compact text, or more than `budget` as soon as it exceeds it (without printing
// large values just to learn that they do not fit on a line).
std::size_t compact_length(const nlohmann::ordered_json& j, std::size_t budget) {
  if (!j.is_structured()) return j.dump().size();
  std::size_t n = 2;  // brackets
  for (auto it = j.begin(); it != j.end() && n <= budget; ++it) {
    if (it != j.begin()) ++n;                                                    // comma
    if (j.is_object()) n += nlohmann::ordered_json(it.key()).dump().size() + 1;  // "key":
    n += compact_length(*it, budget - std::min(budget, n));
  }
  return n;
}

void write(const nlohmann::ordered_json& j, std::size_t width, int depth, std::string& out) {
  const std::size_t room = width - std::min(width, 2 * static_cast<std::size_t>(depth));
  if (!j.is_structured() || j.empty() || compact_length(j, room) <= room) {
    out += j.dump();
    return;
  }
  const bool object = j.is_object();
  out += object ? '{' : '[';
  out += '\n';
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out.append(2 * static_cast<std::size_t>(depth + 1), ' ');
    if (object) {
      out += nlohmann::ordered_json(it.key()).dump();
      out += ": ";
    }
    write(*it, width, depth + 1, out);
  }
  out += '\n';
  out.append(2 * static_cast<std::size_t>(depth), ' ');
  out += object ? '}' : ']';
}

}  // namespace

std::string to_readable_json(const nlohmann::ordered_json& j, std::size_t inline_width) {
  std::string out;
  write(j, inline_width, 0, out);
  out += "\n";
  return out;
}

std::string to_readable_json_at(const nlohmann::ordered_json& j, int depth,
                                std::size_t inline_width) {
  std::string out;
  write(j, inline_width, depth, out);
  return out;
}

nlohmann::ordered_json to_ordered(const nlohmann::json& j) {
  return nlohmann::ordered_json::parse(j.dump());
}

nlohmann::json to_sorted(const nlohmann::ordered_json& j) {
  return nlohmann::json::parse(j.dump());
}

}  // namespace aotune::tuner
