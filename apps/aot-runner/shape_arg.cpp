#include "apps/aot-runner/shape_arg.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "kernels/common/errors.h"

namespace aotune::cli {

namespace {

nlohmann::json parse_value(const std::string& text) {
  int64_t i = 0;
  const char* end = text.data() + text.size();
  if (!text.empty() && std::from_chars(text.data(), end, i).ptr == end) return i;
  // from_chars reads "nan" and "inf" too; JSON has no such numbers (they would print as null in
  // an error), so those stay text and the field's check names them as given.
  double d = 0;
  if (!text.empty() && std::from_chars(text.data(), end, d).ptr == end && std::isfinite(d)) return d;
  return text;
}

}  // namespace

nlohmann::json parse_shape_pairs(const std::string& text) {
  nlohmann::json spec = nlohmann::json::object();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string pair = text.substr(start, comma - start);
    const std::size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InvalidArgument(
          fmt::format("--shape: '{}' is not key=value (example: B=1024,M=256,len=64)", pair));
    }
    spec[pair.substr(0, eq)] = parse_value(pair.substr(eq + 1));
    start = comma + 1;
  }
  return spec;
}

}  // namespace aotune::cli
