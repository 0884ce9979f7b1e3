#include "tuner/work_split.h"

#include <algorithm>
#include <numeric>

namespace aotune::tuner {

std::vector<std::vector<std::size_t>> split_by_cost(const std::vector<double>& costs,
                                                    std::size_t workers) {
  std::vector<std::vector<std::size_t>> out(std::max<std::size_t>(workers, 1));
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(out.size(), 0.0);
  for (std::size_t i : order) {
    const auto w =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    out[w].push_back(i);
    load[w] += costs[i];
  }
  for (auto& items : out) std::sort(items.begin(), items.end());
  return out;
}

}  // namespace aotune::tuner
