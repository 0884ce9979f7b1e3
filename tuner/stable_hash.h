// Hashes that are the same on every machine and every build (std::hash is not): shape seeds, grid
// digests and the simulated device's jitter depend on them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace aotune::tuner {

// 64-bit FNV-1a.
constexpr uint64_t fnv1a64(std::string_view s, uint64_t h = 0xcbf29ce484222325ull) {
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// SplitMix64 finaliser: spreads nearby inputs over all 64 bits.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A value in [0, 1) from a hash.
constexpr double unit_interval(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

std::string hex64(uint64_t h);

}  // namespace aotune::tuner
