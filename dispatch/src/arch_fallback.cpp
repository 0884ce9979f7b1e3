#include "aotune/arch_fallback.h"

#include <algorithm>
#include <charconv>

#include "kernels/common/errors.h"

namespace aotune {

std::string arch_name(int arch) { return "sm" + std::to_string(arch); }

int parse_arch_name(std::string_view name) {
  int arch = 0;
  const char* begin = name.data() + 2;
  const char* end = name.data() + name.size();
  if (name.size() < 4 || name.substr(0, 2) != "sm" ||
      std::from_chars(begin, end, arch).ptr != end || arch < 10 || arch > 999) {
    throw InvalidArgument("'" + std::string(name) +
                          "' is not an architecture name like sm80, sm90 or sm120");
  }
  return arch;
}

std::vector<int> fallback_chain(int device_arch, std::span<const int> tuned) {
  std::vector<int> candidates(std::begin(kArchLadder), std::end(kArchLadder));
  candidates.insert(candidates.end(), tuned.begin(), tuned.end());
  candidates.push_back(device_arch);
  std::erase_if(candidates, [&](int a) { return a > device_arch; });
  std::sort(candidates.begin(), candidates.end(), std::greater<>());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  const int used = arch_for_device(device_arch, tuned);
  if (used != 0)
    candidates.erase(std::find(candidates.begin(), candidates.end(), used) + 1, candidates.end());
  return candidates;
}

}  // namespace aotune
