#include "heuristics/config_subset.h"

#include <algorithm>

namespace aotune::heuristics {

namespace {

// The better of two log costs where -1 means "did not pass".
int64_t better(int64_t a, int64_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return std::min(a, b);
}

// Per-row best log cost over `configs`, -1 where none passed.
std::vector<int64_t> best_per_row(const TrainingSet& ts, std::span<const std::size_t> rows,
                                  std::span<const std::size_t> configs) {
  std::vector<int64_t> best(rows.size(), -1);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const std::size_t c : configs) best[i] = better(best[i], ts.cost_at(rows[i], c));
  }
  return best;
}

// Score of the per-row bests after also keeping `extra` (none when extra == npos).
SubsetScore score_with(const TrainingSet& ts, std::span<const std::size_t> rows,
                       const std::vector<int64_t>& best, std::size_t extra, int64_t cap_cost) {
  SubsetScore s;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const int64_t b = extra == static_cast<std::size_t>(-1)
                          ? best[i]
                          : better(best[i], ts.cost_at(rows[i], extra));
    if (b < 0) {
      ++s.uncovered;
      continue;
    }
    if (b > cap_cost) ++s.over_cap;
    s.log_sum += b;
  }
  return s;
}

constexpr std::size_t kNone = static_cast<std::size_t>(-1);
constexpr int kMaxSwapPasses = 16;

}  // namespace

SubsetScore score_subset(const TrainingSet& ts, std::span<const std::size_t> rows,
                         std::span<const std::size_t> configs, const SubsetOptions& options) {
  return score_with(ts, rows, best_per_row(ts, rows, configs), kNone,
                    log_cost_of(options.worst_case_cap));
}

std::vector<std::size_t> select_config_subset(const TrainingSet& ts,
                                              std::span<const std::size_t> rows,
                                              const SubsetOptions& options) {
  std::vector<std::size_t> kept;
  if (rows.empty() || options.max_configs == 0) return kept;
  const int64_t cap_cost = log_cost_of(options.worst_case_cap);
  std::vector<bool> is_kept(ts.num_configs(), false);
  std::vector<int64_t> best(rows.size(), -1);
  SubsetScore current = score_with(ts, rows, best, kNone, cap_cost);

  // Greedy: each step keeps the config that improves the score most (lowest index on ties).
  while (kept.size() < options.max_configs) {
    std::size_t pick = kNone;
    SubsetScore pick_score = current;
    for (std::size_t c = 0; c < ts.num_configs(); ++c) {
      if (is_kept[c]) continue;
      const SubsetScore s = score_with(ts, rows, best, c, cap_cost);
      if (s < pick_score) {
        pick = c;
        pick_score = s;
      }
    }
    if (pick == kNone) break;
    kept.push_back(pick);
    is_kept[pick] = true;
    for (std::size_t i = 0; i < rows.size(); ++i)
      best[i] = better(best[i], ts.cost_at(rows[i], pick));
    current = pick_score;
  }

  // Swaps: greedy choices made early can be beaten by a pair chosen together; replace any kept
  // config by an unkept one while that strictly improves the score.
  for (int pass = 0; pass < kMaxSwapPasses; ++pass) {
    bool improved = false;
    for (std::size_t k = 0; k < kept.size(); ++k) {
      std::vector<std::size_t> others = kept;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
      const std::vector<int64_t> without = best_per_row(ts, rows, others);
      for (std::size_t c = 0; c < ts.num_configs(); ++c) {
        if (is_kept[c]) continue;
        const SubsetScore s = score_with(ts, rows, without, c, cap_cost);
        if (s < current) {
          is_kept[kept[k]] = false;
          is_kept[c] = true;
          kept[k] = c;
          current = s;
          improved = true;
          break;
        }
      }
    }
    if (!improved) break;
  }
  // Prune: a config kept early (the best compromise) can become useless once specialists join;
  // drop any whose removal leaves the score unchanged, so the dispatch tables stay small.
  std::sort(kept.begin(), kept.end());
  for (std::size_t k = 0; k < kept.size();) {
    std::vector<std::size_t> others = kept;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
    if (score_with(ts, rows, best_per_row(ts, rows, others), kNone, cap_cost) == current) {
      kept = std::move(others);
    } else {
      ++k;
    }
  }
  return kept;
}

}  // namespace aotune::heuristics
