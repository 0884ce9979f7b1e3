// `tune --assert-cache-hit`: proves without measuring that every grid shape has a current
// measurement. Needs no GPU: it reads the grid and the database for a named architecture.
#pragma once

#include <string>
#include <vector>

#include "kernels/common/tunable_kernel.h"
#include "tuner/shape_grid.h"
#include "tuner/shard.h"

namespace aotune::tuner {

struct CacheMiss {
  std::string kernel;
  std::string arch;
  std::string shape_key;
  std::string reason;
};

// Every shape of the grid (of the shard's slice) that `db_path` lacks, holds from another kernel
// source, configuration list or grid, or holds searched less than the database's effort asks (a
// budget cut it to quick: meets_effort). A missing or unreadable file misses every shape.
// Simulated results count only when `accept_simulated` (tests of the tuner itself).
std::vector<CacheMiss> find_cache_misses(const TunableKernel& kernel, const ShapeGrid& grid,
                                         const ShardSpec& shard, const std::string& arch,
                                         const std::string& db_path, bool accept_simulated);

}  // namespace aotune::tuner
