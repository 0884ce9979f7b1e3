// `aot-runner merge`: shard (or worker) databases of one sweep into one database, identical in
// content and bytes to what an unsharded sweep writes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tuner/results_database.h"

namespace aotune::tuner {

// Inputs are (origin, database). Throws InvalidArgument naming both files when they come from
// different kernels, architectures, devices, kernel sources, protocols, config lists or grids, or
// hold one shape with different results. The result carries no shard.
ResultsDatabase merge_databases(const std::vector<std::pair<std::string, ResultsDatabase>>& inputs);

}  // namespace aotune::tuner
