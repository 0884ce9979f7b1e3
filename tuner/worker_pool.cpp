#include "tuner/worker_pool.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <csignal>
#include <set>
#include <thread>

#include "kernels/common/errors.h"
#include "tuner/atomic_file.h"
#include "tuner/child_process.h"
#include "tuner/gpu_device.h"
#include "tuner/interrupt.h"
#include "tuner/merge.h"
#include "tuner/sweep.h"
#include "tuner/work_split.h"

namespace aotune::tuner {

namespace {

using Clock = std::chrono::steady_clock;

struct Slot {
  WorkerJob job;
  int ordinal = 0;
  ChildProcess process;
  Clock::time_point started;
  int restarts = 0;
  bool finished = false;
};

// Seconds since the journal was last written (or since the worker started, before its first write).
double silent_seconds(const Slot& slot) {
  struct stat st {};
  const auto since_start = std::chrono::duration<double>(Clock::now() - slot.started).count();
  if (::stat(slot.job.journal_path.c_str(), &st) != 0) return since_start;
  const double age = static_cast<double>(::time(nullptr) - st.st_mtime);
  return std::min(age, since_start);
}

void start(Slot& slot, const DeviceSetup& setup) {
  slot.started = Clock::now();
  const WorkerJob& job = slot.job;
  const int ordinal = slot.ordinal;
  slot.process = ChildProcess::start([&setup, &job, ordinal] {
    std::unique_ptr<MeasurementDevice> device = open_device(setup, ordinal);
    return run_worker(*device, job);
  });
}

// What to record for the cell a dead worker was running; nullopt when it died outside any cell.
std::optional<CrashRecord> crash_record(const Slot& slot, const ChildStatus& status,
                                        const TunableKernel& kernel, bool timed_out,
                                        double timeout) {
  const auto entry = read_journal(slot.job.journal_path);
  if (!entry || entry->shape_key.empty() || entry->phase == "save") return std::nullopt;
  std::string reason;
  if (timed_out) {
    reason = fmt::format("hung: no progress for {:.0f} s, the worker was killed", timeout);
  } else if (!status.signaled && status.code == kWorkerContextLost) {
    reason = "crashed the CUDA context: " + entry->error;
  } else {
    reason = "the worker process died (" + status.describe() + ")";
  }
  if (entry->config >= 0) {
    reason += fmt::format(" while running {} ({})",
                          kernel.config_id(static_cast<std::size_t>(entry->config)), entry->phase);
  } else {
    reason += " while building the inputs";
  }
  return CrashRecord{entry->shape_key, entry->config, reason};
}

}  // namespace

PoolResult run_worker_pool(const TuneOptions& o, const DeviceSetup& setup, KernelState& st,
                           Deadline deadline, Deadline share_deadline) {
  const std::string name(st.kernel->name());
  std::vector<double> costs;
  for (std::size_t i : st.remaining) {
    const auto& s = st.grid.shapes[i];
    std::size_t legal = 0;
    for (const auto& l : s.info.legality) legal += l.ok ? 1 : 0;
    costs.push_back(estimate_gpu_seconds(s.info, legal, setup.protocol));
  }
  const std::size_t workers = std::min(setup.ordinals.size(), st.remaining.size());
  const auto split = split_by_cost(costs, workers);

  std::vector<Slot> slots(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    Slot& slot = slots[w];
    slot.ordinal = setup.ordinals[w];
    WorkerJob& job = slot.job;
    job.kernel = st.kernel;
    job.grid = &st.grid;
    for (std::size_t k : split[w]) job.shapes.push_back(st.remaining[k]);
    // One worker writes the database itself; several write pieces that are merged at the end.
    job.db_path = workers == 1 ? st.db_path
                               : worker_database_path(st.db_path, static_cast<int>(w),
                                                      static_cast<int>(workers));
    job.journal_path = journal_path(job.db_path);
    job.start = st.base;
    if (workers > 1) job.start.shapes.clear();
    job.crashes = st.crashes;
    job.effort = o.effort;
    job.deadline = deadline;
    job.share_deadline = share_deadline;
    job.label = workers == 1
                    ? name
                    : fmt::format("{} {}{}", name, setup.simulate ? "sim" : "gpu", slot.ordinal);
    start(slot, setup);
  }

  PoolResult result;
  for (;;) {
    if (const int sig = interrupt_signal()) {
      // Stopped by hand or by a scheduler: the cell in flight is lost, every saved shape stays.
      for (Slot& slot : slots)
        if (slot.process.running()) slot.process.kill_and_wait();
      result.interrupted = sig;
      break;
    }
    bool running = false;
    for (Slot& slot : slots) {
      if (slot.finished) continue;
      bool timed_out = false;
      std::optional<ChildStatus> status = slot.process.poll();
      if (!status && silent_seconds(slot) > o.cell_timeout_seconds) {
        status = slot.process.kill_and_wait();
        timed_out = true;
      }
      if (!status) {
        running = true;
        continue;
      }
      if (!status->signaled && (status->code == 0 || status->code == kWorkerBudgetSpent)) {
        slot.finished = true;
        result.budget_spent = result.budget_spent || status->code == kWorkerBudgetSpent;
        continue;
      }
      if (status->signaled && (status->signal == SIGINT || status->signal == SIGTERM ||
                               status->signal == SIGHUP || status->signal == SIGQUIT)) {
        // Someone stopped it, no config's fault: stop the sweep rather than blame a cell. A Ctrl-C
        // reaches the parent too; the loop's top then stops the others and reports it.
        if (interrupt_signal() != 0) {
          slot.finished = true;
          running = true;
          continue;
        }
        throw Error(fmt::format(
            "the {} worker on device {} was stopped ({}); rerun with --resume to continue", name,
            slot.ordinal, status->describe()));
      }
      const bool crashed = timed_out || status->signaled || status->code == kWorkerContextLost;
      if (!crashed) {
        throw Error(fmt::format(
            "the {} worker on device {} failed ({}); see the messages above. Results so far are "
            "kept: fix the cause and rerun with --resume",
            name, slot.ordinal, status->describe()));
      }
      if (++slot.restarts > o.max_restarts) {
        throw Error(fmt::format(
            "the {} worker on device {} crashed {} times; giving up (raise --max-restarts or "
            "look at the crashed cells in {}). Rerun with --resume to continue",
            name, slot.ordinal, slot.restarts, crashes_path(st.db_path)));
      }
      if (auto record =
              crash_record(slot, *status, *st.kernel, timed_out, o.cell_timeout_seconds)) {
        spdlog::warn("[{}] {} on {}; recorded as crashed, restarting the worker", slot.job.label,
                     record->reason, record->shape_key);
        st.crashes.push_back(*record);
        save_crash_records(crashes_path(st.db_path), st.crashes);
      } else {
        spdlog::warn("[{}] the worker died ({}) between cells; restarting it", slot.job.label,
                     status->describe());
      }
      ++result.restarts;
      slot.job.crashes = st.crashes;
      slot.job.reload = true;
      remove_file_if_exists(slot.job.journal_path);
      start(slot, setup);
      running = true;
    }
    if (!running) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  for (Slot& slot : slots) remove_file_if_exists(slot.job.journal_path);
  if (workers > 1) {
    // The workers' pieces hold only this run's shapes; a shape that is also in the database
    // before the run was measured again (--resume after a budget cut it to quick), and the new
    // result replaces the old.
    std::vector<std::pair<std::string, ResultsDatabase>> pieces = {{st.db_path, st.base}};
    std::set<std::string> measured_now;
    for (Slot& slot : slots) {
      if (auto db = load_database(slot.job.db_path)) {
        for (const ShapeResult& shape : db->shapes) measured_now.insert(shape.key);
        pieces.emplace_back(slot.job.db_path, std::move(*db));
      }
    }
    std::erase_if(pieces.front().second.shapes,
                  [&](const ShapeResult& shape) { return measured_now.count(shape.key) > 0; });
    ResultsDatabase merged = merge_databases(pieces);
    merged.shard = st.base.shard;
    save_database(st.db_path, merged);
    for (Slot& slot : slots) remove_file_if_exists(slot.job.db_path);
  }
  return result;
}

}  // namespace aotune::tuner
