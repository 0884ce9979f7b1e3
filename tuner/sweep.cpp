#include "tuner/sweep.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <future>
#include <map>
#include <utility>

#include "kernels/common/errors.h"
#include "tuner/progress.h"

namespace aotune::tuner {

namespace {

using Clock = WorkerJob::Clock;

// Thrown out of a cell when the CUDA context is gone: the worker records why and exits.
struct ContextLost {
  std::string error;
  int64_t config;
  std::string phase;
};

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double seconds_until(Clock::time_point t) { return seconds_between(Clock::now(), t); }

// One shape's inputs, or why they could not be built.
struct Prepared {
  std::unique_ptr<ShapeRunner> runner;
  std::exception_ptr error;
};

class Worker {
 public:
  Worker(MeasurementDevice& device, const WorkerJob& job)
      : device_(device), job_(job), db_(job.start), journal_(job.journal_path) {
    if (job.reload) {
      if (auto saved = load_database(job.db_path)) {
        if (const std::string diff = incompatibility(*saved, job.start); !diff.empty()) {
          throw Error(job.db_path + " changed under the sweep (" + diff + "); rerun with --force");
        }
        db_ = std::move(*saved);
      }
    }
    neighbours_ = one_field_neighbours(*job.kernel);
  }

  int run() {
    std::vector<const GridShape*> todo;
    for (std::size_t i : job_.shapes) {
      const GridShape& s = job_.grid->shapes.at(i);
      const ShapeResult* found = db_.find(s.key);
      if (found == nullptr || !meets_effort(found->search, job_.effort)) todo.push_back(&s);
    }
    std::map<const GridShape*, double> estimate;
    double total = 0;
    for (const GridShape* s : todo)
      total += estimate[s] = device_.estimate_seconds(s->info, legal_count(*s));
    Progress progress(job_.label, job_.shapes.size(), job_.shapes.size() - todo.size(), total);
    double left = total;
    for (std::size_t k = 0; k < todo.size(); ++k) {
      const GridShape* s = todo[k];
      if (job_.deadline && Clock::now() >= *job_.deadline) {
        spdlog::warn("[{}] the budget is spent: {} shapes left; rerun with --resume to finish",
                     job_.label, todo.size() - k);
        log_split();
        return kWorkerBudgetSpent;
      }
      // Exhaustive while the rest fits this job's share of the budget, quick once it does not.
      SearchMode mode = job_.effort == Effort::none    ? SearchMode::none
                        : job_.effort == Effort::quick ? SearchMode::quick
                                                       : SearchMode::exhaustive;
      if (mode == SearchMode::exhaustive && job_.share_deadline &&
          left * pace() > seconds_until(*job_.share_deadline)) {
        mode = SearchMode::quick;
      }
      const auto t0 = Clock::now();
      try {
        journal_.write({s->key, -1, "prepare", ""});
        // Waiting here means building inputs (host data, float64 reference, upload) is slower
        // than measuring the shape before: the overlap no longer hides it.
        Prepared prepared = next_.valid() ? next_.get() : Prepared{};
        if (!prepared.runner && !prepared.error && !whole_shape_crashed(*s)) prepared = prepare(*s);
        const auto t_inputs = Clock::now();
        split_.inputs_s += seconds_between(t0, t_inputs);
        // Build the next shape's inputs (host work, then an upload) while this one is measured.
        if (device_.protocol().overlap_inputs && k + 1 < todo.size() &&
            !whole_shape_crashed(*todo[k + 1])) {
          const GridShape* following = todo[k + 1];
          next_ = std::async(std::launch::async, [this, following] { return prepare(*following); });
        }
        const ShapeResult result = measure_shape(*s, mode, std::move(prepared));
        const auto t_measured = Clock::now();
        // A re-timing waits for the next shape's inputs (measure_shape): that wait is the inputs'.
        const double waited = std::exchange(retime_wait_s_, 0.0);
        split_.inputs_s += waited;
        split_.measure_s += seconds_between(t_inputs, t_measured) - waited;
        db_.put(result);
        printed_.erase(result.key);  // measured again (--resume after a budget): new text
        journal_.write({s->key, -1, "save", ""});
        save_database(job_.db_path, db_, &printed_);
        split_.save_s += seconds_between(t_measured, Clock::now());
        ++split_.shapes;
        progress.shape_done(s->key, estimate[s], outcome(result));
      } catch (const ContextLost& lost) {
        journal_.write({s->key, lost.config, lost.phase, lost.error});
        spdlog::error("[{}] the CUDA context is lost at config {} of {}: {}", job_.label,
                      lost.config, s->key, lost.error);
        return kWorkerContextLost;
      } catch (const BudgetSpent&) {
        spdlog::warn("[{}] the budget is spent in the middle of {}; rerun with --resume to finish",
                     job_.label, s->key);
        log_split();
        return kWorkerBudgetSpent;
      }
      left -= estimate[s];
      spent_ += seconds_between(t0, Clock::now());
      estimated_ += estimate[s];
    }
    log_split();
    return 0;
  }

 private:
  struct BudgetSpent {};

  // Where a worker's wall time went, so a slow sweep says whether inputs, timing or saving was
  // the bottleneck.
  struct TimeSplit {
    std::size_t shapes = 0;
    double inputs_s = 0;   // waiting for a shape's inputs (not hidden by the overlap)
    double measure_s = 0;  // checks, timing, re-timing near ties
    double save_s = 0;     // rewriting the database after each shape
  };

  void log_split() const {
    if (split_.shapes == 0) return;
    spdlog::info("[{}] {} shapes: {:.1f} s waiting for inputs, {:.1f} s measuring, {:.1f} s saving",
                 job_.label, split_.shapes, split_.inputs_s, split_.measure_s, split_.save_s);
  }

  // How much longer shapes take than the device model says, once there is evidence.
  double pace() const { return estimated_ > 0 ? std::max(spent_ / estimated_, 0.1) : 1.0; }

  std::size_t legal_count(const GridShape& s) const {
    return static_cast<std::size_t>(std::count_if(s.info.legality.begin(), s.info.legality.end(),
                                                  [](const Legality& l) { return l.ok; }));
  }

  std::string outcome(const ShapeResult& r) const {
    const auto measured =
        std::count_if(r.cells.begin(), r.cells.end(), [](const Cell& c) { return c.ok(); });
    if (!r.best) return fmt::format("no config passed ({})", r.search);
    return fmt::format("best {} {:.3f} us ({} ok, {})", db_.configs[*r.best].id,
                       r.cells[*r.best].timing.median_us, measured, r.search);
  }

  Prepared prepare(const GridShape& s) {
    Prepared p;
    try {
      p.runner = device_.prepare(*job_.kernel, s);
    } catch (...) {
      p.error = std::current_exception();
    }
    return p;
  }

  bool whole_shape_crashed(const GridShape& s) const {
    return std::any_of(job_.crashes.begin(), job_.crashes.end(),
                       [&](const CrashRecord& r) { return r.shape_key == s.key && r.config < 0; });
  }

  ShapeResult measure_shape(const GridShape& s, SearchMode mode, Prepared prepared) {
    ShapeResult r;
    r.index = s.index;
    r.key = s.key;
    r.spec = s.spec;
    r.features = s.info.features;
    r.bytes_moved = s.info.bytes_moved;
    SearchPlan plan;
    plan.mode = mode;
    plan.near_tie = device_.protocol().near_tie;
    plan.max_tie_candidates = device_.protocol().max_tie_candidates;
    plan.unsteady = device_.protocol().unsteady;
    plan.max_unsteady_retimes = device_.protocol().max_unsteady_retimes;
    plan.neighbours = &neighbours_;
    if (!preset_cells(s, job_.crashes, plan.cells)) {
      r.search = "crashed";
      r.cells = std::move(plan.cells);
      return r;
    }
    plan.loser_factor = device_.protocol().loser_factor;
    plan.loser_min_us = device_.protocol().loser_min_us;
    if (mode != SearchMode::none) plan.seeds = neighbour_seeds(db_, s, 3);
    r.search = std::string(to_string(mode));

    std::unique_ptr<ShapeRunner> runner = std::move(prepared.runner);
    try {
      if (prepared.error) std::rethrow_exception(prepared.error);
    } catch (const std::exception& e) {
      // Out of memory and friends: the shape cannot run here, but the worker can go on.
      if (dynamic_cast<const CudaError*>(&e) != nullptr && device_.context_lost())
        throw ContextLost{e.what(), -1, "prepare"};
      for (Cell& c : plan.cells) {
        if (c.status == CellStatus::skipped)
          c = Cell::with(CellStatus::failed,
                         std::string("could not build the inputs: ") + e.what());
      }
      r.cells = std::move(plan.cells);
      return r;
    }

    const MeasureFn measure = [&](std::size_t config, double loser_above_us) {
      return measure_cell(*runner, s, config, loser_above_us);
    };
    const RetimeFn retime = [&](const std::vector<std::size_t>& configs) -> std::vector<Timing> {
      check_deadline();
      // Re-timing is for close calls and for cells that something outside the kernel slowed:
      // the next shape's input build and upload are done first, so nothing else runs. It was
      // going to be waited for before the next shape anyway.
      if (next_.valid()) {
        const auto w0 = Clock::now();
        next_.wait();
        retime_wait_s_ += seconds_between(w0, Clock::now());
      }
      journal_.write({s.key, static_cast<int64_t>(configs.front()), "retime", ""});
      try {
        return runner->time_interleaved(configs);
      } catch (const CudaError& e) {
        if (device_.context_lost())
          throw ContextLost{e.what(), static_cast<int64_t>(configs.front()), "retime"};
        spdlog::warn("[{}] interleaved re-timing failed on {}: {}; keeping the first timings",
                     job_.label, s.key, e.what());
        return {};
      }
    };
    SearchOutcome found = run_search(plan, measure, retime);
    r.cells = std::move(found.cells);
    r.best = found.best;
    return r;
  }

  Cell measure_cell(ShapeRunner& runner, const GridShape& s, std::size_t config,
                    double loser_above_us) {
    check_deadline();
    const auto c = static_cast<int64_t>(config);
    std::string phase = "check";
    try {
      journal_.write({s.key, c, phase, ""});
      const CheckResult checked = runner.check(config);
      if (!checked.ok) return Cell::with(CellStatus::failed, "wrong result: " + checked.message);
      phase = "time";
      journal_.write({s.key, c, phase, ""});
      return Cell::measured(runner.time(config, loser_above_us));
    } catch (const CudaError& e) {
      if (device_.context_lost()) throw ContextLost{e.what(), c, phase};
      return Cell::with(CellStatus::failed, std::string(e.what()));
    } catch (const Error& e) {
      return Cell::with(CellStatus::failed, std::string(e.what()));
    }
  }

  void check_deadline() const {
    if (job_.deadline && Clock::now() >= *job_.deadline) throw BudgetSpent{};
  }

  MeasurementDevice& device_;
  const WorkerJob& job_;
  ResultsDatabase db_;
  JournalWriter journal_;
  ShapeTextCache printed_;
  std::vector<std::vector<std::size_t>> neighbours_;
  double spent_ = 0;
  double estimated_ = 0;
  TimeSplit split_;
  double retime_wait_s_ = 0;  // this shape's re-timings' wait for the next shape's inputs
  // Inputs of the next shape, built while this one is measured. Last, so that its destructor
  // (which waits for the build) runs before the members the build uses go.
  std::future<Prepared> next_;
};

}  // namespace

bool preset_cells(const GridShape& shape, const std::vector<CrashRecord>& crashes,
                  std::vector<Cell>& cells) {
  cells.assign(shape.info.legality.size(), Cell::with(CellStatus::skipped, ""));
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!shape.info.legality[i].ok)
      cells[i] = Cell::with(CellStatus::illegal, shape.info.legality[i].reason);
  }
  bool whole_shape = false;
  for (const CrashRecord& r : crashes) {
    if (r.shape_key != shape.key) continue;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const bool hit = r.config < 0 || static_cast<std::size_t>(r.config) == i;
      if (hit && cells[i].status != CellStatus::illegal)
        cells[i] = Cell::with(CellStatus::crashed, r.reason);
    }
    whole_shape = whole_shape || r.config < 0;
  }
  return !whole_shape;
}

std::vector<std::size_t> neighbour_seeds(const ResultsDatabase& db, const GridShape& shape,
                                         std::size_t count) {
  // Only shapes earlier in the grid: the same seeds whether the sweep ran straight or was resumed.
  std::vector<std::pair<double, std::size_t>> near;  // (distance, best config)
  for (const ShapeResult& other : db.shapes) {
    if (other.index >= shape.index || !other.best ||
        other.features.size() != shape.info.features.size())
      continue;
    double d = 0;
    for (std::size_t f = 0; f < other.features.size(); ++f) {
      const double a = std::log2(1.0 + std::abs(other.features[f].second));
      const double b = std::log2(1.0 + std::abs(shape.info.features[f].second));
      d += (a - b) * (a - b);
    }
    near.emplace_back(d, *other.best);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::size_t> seeds;
  for (const auto& [d, best] : near) {
    if (seeds.size() >= count) break;
    if (std::find(seeds.begin(), seeds.end(), best) == seeds.end()) seeds.push_back(best);
  }
  return seeds;
}

int run_worker(MeasurementDevice& device, const WorkerJob& job) {
  Worker worker(device, job);
  return worker.run();
}

}  // namespace aotune::tuner
