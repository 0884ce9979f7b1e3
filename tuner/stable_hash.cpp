#include "tuner/stable_hash.h"

#include <fmt/core.h>

namespace aotune::tuner {

std::string hex64(uint64_t h) { return fmt::format("{:016x}", h); }

}  // namespace aotune::tuner
