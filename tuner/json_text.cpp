#include "tuner/json_text.h"

namespace aotune::tuner {

namespace {

void write(const nlohmann::ordered_json& j, std::size_t width, int depth, std::string& out) {
  const std::string compact = j.dump();
  if (!j.is_structured() || j.empty() || compact.size() + 2 * depth <= width) {
    out += compact;
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

nlohmann::ordered_json to_ordered(const nlohmann::json& j) { return nlohmann::ordered_json::parse(j.dump()); }

nlohmann::json to_sorted(const nlohmann::ordered_json& j) { return nlohmann::json::parse(j.dump()); }

}  // namespace aotune::tuner
