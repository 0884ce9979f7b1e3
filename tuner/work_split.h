// Splitting a list of shapes over several GPUs so they finish together: longest estimated job
// first, each to the least loaded worker (LPT; within 4/3 of the best split). Deterministic.
#pragma once

#include <cstddef>
#include <vector>

namespace aotune::tuner {

// costs[i] is the estimated seconds of item i. Returns, per worker, its items in ascending order.
std::vector<std::vector<std::size_t>> split_by_cost(const std::vector<double>& costs,
                                                    std::size_t workers);

}  // namespace aotune::tuner
