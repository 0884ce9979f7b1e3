#include "apps/aot-runner/shape_arg.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

#include "kernels/common/errors.h"

namespace aotune::cli {

namespace {

// Whether from_chars read all of text into a value it could hold: out of range, it still moves
// ptr past the digits but leaves the value as it was (0), so B=99999999999999999999 would read
// as B=0 on a ptr check alone.
template <typename Number>
bool reads_whole(const std::string& text, Number& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return !text.empty() && ptr == end && ec == std::errc{};
}

nlohmann::json parse_value(const std::string& text) {
  if (int64_t i = 0; reads_whole(text, i)) return i;
  // An integer past int64 reads as a double (the field's integer check then names it); one past
  // double, or "nan" and "inf", which from_chars reads but JSON has no numbers for (they would
  // print as null in an error), stays text, and the field's check names it as given.
  if (double d = 0; reads_whole(text, d) && std::isfinite(d)) return d;
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
