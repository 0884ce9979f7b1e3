// Which tuned architecture's heuristic a GPU uses. Architectures are numbered major*10 + minor
// (sm90 = 90, sm120 = 120). A device uses its own architecture's heuristic when one is tuned, else
// the nearest older tuned one (its code runs there: binaries carry sm80 code and compute_90 PTX),
// and a device older than every tuned architecture runs the safe default config.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aotune {

// The known architectures, newest first: the fallback ladder shown by explain and devices.
// sm120 -> sm100 -> sm90 -> sm89 -> sm86 -> sm80. A future architecture (sm130) starts above the
// top and so falls to the newest tuned one.
inline constexpr int kArchLadder[] = {120, 100, 90, 89, 86, 80};

// 90 -> "sm90".
std::string arch_name(int arch);
// "sm90" -> 90, "sm120" -> 120. Throws InvalidArgument for anything else.
int parse_arch_name(std::string_view name);

// The tuned architecture a device of `device_arch` uses: the newest tuned one not newer than the
// device; 0 when the device is older than every tuned one (the default config runs).
constexpr int arch_for_device(int device_arch, std::span<const int> tuned) {
  int best = 0;
  for (const int t : tuned) {
    if (t <= device_arch && t > best) best = t;
  }
  return best;
}

// The architectures tried for a device, newest first: its own, then every older architecture of
// the ladder or of `tuned`, ending at the one used (or at the bottom of the ladder when none is).
std::vector<int> fallback_chain(int device_arch, std::span<const int> tuned);

}  // namespace aotune
