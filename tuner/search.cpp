#include "tuner/search.h"

#include <algorithm>
#include <set>

#include "kernels/common/errors.h"

namespace aotune::tuner {

Effort parse_effort(std::string_view name) {
  if (name == "none") return Effort::none;
  if (name == "quick") return Effort::quick;
  if (name == "full") return Effort::full;
  throw InvalidArgument("unknown effort '" + std::string(name) +
                        "' (expected none, quick or full)");
}

std::string_view to_string(Effort e) {
  switch (e) {
    case Effort::none:
      return "none";
    case Effort::quick:
      return "quick";
    case Effort::full:
      return "full";
  }
  return "?";
}

bool meets_effort(std::string_view search, Effort effort) {
  if (search == "exhaustive" || search == "crashed") return true;
  switch (effort) {
    case Effort::none:
      return true;
    case Effort::quick:
      return search == "quick";
    case Effort::full:
      return false;
  }
  return false;
}

std::string_view to_string(SearchMode m) {
  switch (m) {
    case SearchMode::none:
      return "none";
    case SearchMode::quick:
      return "quick";
    case SearchMode::exhaustive:
      return "exhaustive";
  }
  return "?";
}

std::vector<std::vector<std::size_t>> one_field_neighbours(const TunableKernel& kernel) {
  const std::size_t n = kernel.num_configs();
  std::vector<nlohmann::json> configs;
  for (std::size_t i = 0; i < n; ++i) configs.push_back(kernel.config_json(i));
  std::vector<std::vector<std::size_t>> out(n);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b || configs[a].size() != configs[b].size()) continue;
      int differing = 0;
      for (auto it = configs[a].begin(); it != configs[a].end(); ++it) {
        const auto other = configs[b].find(it.key());
        differing += (other == configs[b].end() || *other != *it) ? 1 : 0;
      }
      if (differing == 1) out[a].push_back(b);
    }
  }
  return out;
}

std::optional<std::size_t> fastest(const std::vector<Cell>& cells) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].ok() && (!best || cells[i].timing.median_us < cells[*best].timing.median_us))
      best = i;
  }
  return best;
}

namespace {

class Search {
 public:
  Search(const SearchPlan& plan, const MeasureFn& measure)
      : plan_(plan), measure_(measure), cells_(plan.cells) {
    measured_.assign(cells_.size(), false);
    for (std::size_t i = 0; i < cells_.size(); ++i) {
      if (cells_[i].status == CellStatus::skipped) candidates_.push_back(i);
    }
  }

  void exhaustive() {
    for (std::size_t i : plan_.seeds) {
      if (is_candidate(i)) run(i);
    }
    for (std::size_t i : candidates_) {
      if (!measured_[i]) run(i);
    }
  }

  void first_passing() {
    for (std::size_t i : candidates_) {
      if (run(i).ok()) return;
    }
  }

  void quick() {
    if (candidates_.empty()) return;
    std::vector<std::size_t> start = plan_.seeds;
    start.push_back(candidates_.front());
    for (double q : {0.25, 0.5, 0.75})
      start.push_back(candidates_[static_cast<std::size_t>(q * double(candidates_.size() - 1))]);
    for (std::size_t i : start) {
      if (is_candidate(i)) run(i);
    }
    // One-field moves never leave a connected component of the neighbour graph (a strategy with
    // its own fields is often one): seed every component, then climb once in each from its best.
    const std::vector<int> component = components(*plan_.neighbours);
    std::set<int> seeded;
    for (std::size_t i = 0; i < cells_.size(); ++i) {
      if (measured_[i]) seeded.insert(component[i]);
    }
    for (std::size_t i : candidates_) {
      if (seeded.insert(component[i]).second) run(i);
    }
    if (!fastest(cells_)) first_passing();  // every seed failed: find something that works
    std::set<int> climbed;
    for (;;) {
      std::optional<std::size_t> from;
      for (std::size_t i = 0; i < cells_.size(); ++i) {
        if (cells_[i].ok() && !climbed.count(component[i]) && (!from || faster(i, *from))) from = i;
      }
      if (!from) break;
      climbed.insert(component[*from]);
      climb(*from);
    }
  }

  std::vector<Cell> finish(const char* why_skipped) {
    for (std::size_t i : candidates_) {
      if (!measured_[i]) cells_[i] = Cell::with(CellStatus::skipped, why_skipped);
    }
    return std::move(cells_);
  }

 private:
  // Lower median, then lower index.
  bool faster(std::size_t a, std::size_t b) const {
    const double ta = cells_[a].timing.median_us, tb = cells_[b].timing.median_us;
    return ta < tb || (ta == tb && a < b);
  }

  // Moves to the fastest one-field neighbour while it improves; each move strictly improves.
  void climb(std::size_t current) {
    for (;;) {
      std::size_t next = current;
      for (std::size_t n : (*plan_.neighbours)[current]) {
        if (is_candidate(n)) run(n);
        if (cells_[n].ok() && faster(n, next)) next = n;
      }
      if (next == current) return;
      current = next;
    }
  }

  static std::vector<int> components(const std::vector<std::vector<std::size_t>>& neighbours) {
    std::vector<int> id(neighbours.size(), -1);
    int next = 0;
    for (std::size_t root = 0; root < neighbours.size(); ++root) {
      if (id[root] >= 0) continue;
      std::vector<std::size_t> stack = {root};
      id[root] = next;
      while (!stack.empty()) {
        const std::size_t at = stack.back();
        stack.pop_back();
        for (std::size_t n : neighbours[at]) {
          if (id[n] < 0) {
            id[n] = next;
            stack.push_back(n);
          }
        }
      }
      ++next;
    }
    return id;
  }

  bool is_candidate(std::size_t i) const {
    return i < cells_.size() && !measured_[i] &&
           std::binary_search(candidates_.begin(), candidates_.end(), i);
  }
  const Cell& run(std::size_t i) {
    measured_[i] = true;
    double loser_above_us = 0;
    if (plan_.loser_factor > 0) {
      const auto best = fastest(cells_);
      if (best && cells_[*best].timing.median_us >= plan_.loser_min_us)
        loser_above_us = plan_.loser_factor * cells_[*best].timing.median_us;
    }
    cells_[i] = measure_(i, loser_above_us);
    return cells_[i];
  }

  const SearchPlan& plan_;
  const MeasureFn& measure_;
  std::vector<Cell> cells_;
  std::vector<bool> measured_;
  std::vector<std::size_t> candidates_;  // sorted
};

// Re-times the unsteady cells (SearchPlan::unsteady), interleaved, and keeps each one's lower
// median: interference only adds time, so the lower is nearer the kernel's own.
void retime_unsteady(const SearchPlan& plan, std::vector<Cell>& cells, const RetimeFn& retime) {
  if (plan.unsteady <= 0 || plan.max_unsteady_retimes <= 0) return;
  auto spread = [&](std::size_t i) { return cells[i].timing.median_us / cells[i].timing.p10_us; };
  std::vector<std::size_t> unsteady;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Timing& t = cells[i].timing;
    if (cells[i].ok() && t.reps >= kMinUnsteadyReps && t.p10_us > 0 &&
        spread(i) > 1.0 + plan.unsteady)
      unsteady.push_back(i);
  }
  if (unsteady.empty()) return;
  std::stable_sort(unsteady.begin(), unsteady.end(),
                   [&](std::size_t a, std::size_t b) { return spread(a) > spread(b); });
  if (unsteady.size() > static_cast<std::size_t>(plan.max_unsteady_retimes))
    unsteady.resize(static_cast<std::size_t>(plan.max_unsteady_retimes));
  std::sort(unsteady.begin(), unsteady.end());  // index order: the same call for the same set
  const std::vector<Timing> again = retime(unsteady);
  if (again.size() != unsteady.size()) return;  // re-timing failed: keep the first timings
  for (std::size_t k = 0; k < unsteady.size(); ++k) {
    if (again[k].median_us < cells[unsteady[k]].timing.median_us)
      cells[unsteady[k]].timing = again[k];
  }
}

// Re-times the configs within near_tie of the best, interleaved, and stores the new statistics.
void break_near_ties(const SearchPlan& plan, std::vector<Cell>& cells, const RetimeFn& retime) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].ok()) ok.push_back(i);
  }
  std::stable_sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) {
    return cells[a].timing.median_us < cells[b].timing.median_us;
  });
  std::vector<std::size_t> close;
  for (std::size_t i : ok) {
    if (close.size() >= static_cast<std::size_t>(plan.max_tie_candidates)) break;
    if (cells[i].timing.median_us <= cells[ok.front()].timing.median_us * (1.0 + plan.near_tie))
      close.push_back(i);
  }
  if (close.size() < 2) return;
  std::sort(close.begin(), close.end());  // index order: the same call for the same set
  const std::vector<Timing> again = retime(close);
  if (again.size() != close.size()) return;  // re-timing failed: keep the first timings
  for (std::size_t k = 0; k < close.size(); ++k) cells[close[k]].timing = again[k];
}

}  // namespace

SearchOutcome run_search(const SearchPlan& plan, const MeasureFn& measure, const RetimeFn& retime) {
  Search search(plan, measure);
  const char* why = "";
  switch (plan.mode) {
    case SearchMode::exhaustive:
      search.exhaustive();
      break;
    case SearchMode::quick:
      if (plan.neighbours == nullptr) throw Error("quick search needs the config neighbour lists");
      search.quick();
      why = "not measured: quick search did not reach it";
      break;
    case SearchMode::none:
      search.first_passing();
      why = "not measured: effort none stops at the first config that passes";
      break;
  }
  SearchOutcome out;
  out.cells = search.finish(why);
  retime_unsteady(plan, out.cells, retime);
  break_near_ties(plan, out.cells, retime);
  out.best = fastest(out.cells);
  return out;
}

}  // namespace aotune::tuner
