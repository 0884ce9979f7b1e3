#include "tuner/tune_session.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/atomic_file.h"
#include "tuner/cache_check.h"
#include "tuner/gpu_device.h"
#include "tuner/interrupt.h"
#include "tuner/kernel_state.h"
#include "tuner/progress.h"
#include "tuner/search.h"
#include "tuner/simulated_device.h"
#include "tuner/worker_pool.h"

namespace aotune::tuner {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<const TunableKernel*> selected_kernels(const TuneOptions& o) {
  if (o.kernels.empty()) return all_kernels();
  std::vector<const TunableKernel*> out;
  for (const std::string& name : o.kernels) out.push_back(&find_kernel(name));
  return out;
}

// The expanded grids, with the estimated H200 time of each shape (estimate_gpu_seconds).
void list_shapes(const std::vector<ShapeGrid>& grids, const ShardSpec& shard,
                 const TuneOptions& o) {
  const TimingProtocol protocol = for_device(o.protocol, simulated_device_info("sm90"));
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  double grand_total = 0;
  for (const ShapeGrid& g : grids) {
    std::size_t count = 0, large = 0;
    double total = 0;
    for (const GridShape& s : g.shapes) {
      if (!shard.holds(s.index)) continue;
      std::size_t legal = 0;
      for (const auto& l : s.info.legality) legal += l.ok ? 1 : 0;
      const double est = estimate_gpu_seconds(s.info, legal, protocol);
      ++count;
      large += s.info.bytes_moved >= 256e6 ? 1 : 0;
      total += est;
      if (o.json) {
        all.push_back({{"kernel", g.kernel},
                       {"index", s.index},
                       {"key", s.key},
                       {"bytes_moved", s.info.bytes_moved},
                       {"legal_configs", legal},
                       {"estimated_seconds", std::round(est * 1000.0) / 1000.0}});
      } else {
        fmt::print("{:<22} {:>4} {:>14.0f} {:>3} {:>7.2f}s  {}\n", g.kernel, s.index,
                   s.info.bytes_moved, legal, est, s.key);
      }
    }
    grand_total += total;
    if (!o.json) {
      fmt::print("{:<22} {} shapes, {} of them >= 256 MB; about {} on an H200 (grid digest {})\n",
                 g.kernel, count, large, format_duration(total), g.digest);
    }
  }
  if (o.json) {
    fmt::print("{}\n", all.dump(2));
  } else if (grids.size() > 1) {
    fmt::print("all kernels: about {} on one H200\n", format_duration(grand_total));
  }
}

void assert_cache_hit(const TuneOptions& o, const std::vector<ShapeGrid>& grids,
                      const ShardSpec& shard, const std::string& arch) {
  std::vector<CacheMiss> misses;
  for (const ShapeGrid& g : grids) {
    const auto m = find_cache_misses(find_kernel(g.kernel), g, shard, arch,
                                     database_path(o.out_dir, arch, g.kernel, shard), o.simulate);
    misses.insert(misses.end(), m.begin(), m.end());
  }
  if (o.json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& m : misses)
      list.push_back(
          {{"kernel", m.kernel}, {"arch", m.arch}, {"shape", m.shape_key}, {"reason", m.reason}});
    fmt::print("{}\n",
               nlohmann::ordered_json{{"cache_hit", misses.empty()}, {"missing", list}}.dump(2));
  } else {
    for (const auto& m : misses)
      fmt::print("MISSING {} {} {}: {}\n", m.kernel, m.arch, m.shape_key, m.reason);
  }
  if (misses.empty()) {
    spdlog::info("cache hit: every shape of {} kernel(s) on {} has a current measurement",
                 grids.size(), arch);
    return;
  }
  throw CacheMissError(fmt::format(
      "cache miss: {} shape(s) lack a current measurement on {} (listed above); run "
      "'aot-runner tune --resume' (or --force after a kernel change) on a {} GPU and commit "
      "the databases",
      misses.size(), arch, arch));
}

nlohmann::ordered_json kernel_summary(const KernelState& st, const std::string& status,
                                      Effort effort) {
  std::map<std::string, int64_t> cells = {
      {"ok", 0}, {"illegal", 0}, {"failed", 0}, {"crashed", 0}, {"skipped", 0}};
  std::size_t measured = 0, below = 0, raised = 0;
  if (auto db = load_database(st.db_path)) {
    measured = db->shapes.size();
    below = below_effort(*db, effort);
    for (const std::string& key : st.remeasure) {
      const ShapeResult* s = db->find(key);
      raised += s != nullptr && meets_effort(s->search, effort) ? 1 : 0;
    }
    for (const auto& s : db->shapes) {
      for (const auto& c : s.cells) ++cells[std::string(to_string(c.status))];
    }
  }
  nlohmann::ordered_json j;
  j["kernel"] = std::string(st.kernel->name());
  j["status"] = status;
  j["output"] = st.db_path;
  j["shapes"] = st.mine.size();
  j["measured"] = measured;
  // New shapes, and shapes a budget had cut short that this run measured as --effort asks.
  j["measured_this_run"] = measured - std::min(measured, st.measured_before) + raised;
  j["missing"] = st.mine.size() - std::min(st.mine.size(), measured);
  j["below_effort"] = below;  // measured, but searched less than --effort asks (budget)
  j["cells"] = nlohmann::ordered_json(cells);
  return j;
}

}  // namespace

void run_tune(const TuneOptions& o) {
  const auto t0 = Clock::now();
  // Ctrl-C, SIGTERM, SIGHUP from here on: the summary below, then Interrupted (exit 128 + signal).
  const InterruptGuard interrupt_guard;
  if (o.resume && o.force)
    throw InvalidArgument("--resume and --force contradict each other: pick one");
  const ShardSpec shard = resolve_shard(o.shard, [](const char* n) { return std::getenv(n); });
  if (shard.sharded())
    spdlog::info("shard {}/{} (from {})", shard.index, shard.count, shard.source);

  std::vector<ShapeGrid> grids;
  for (const TunableKernel* k : selected_kernels(o)) {
    grids.push_back(load_shape_grid(grid_path(o.grid_dir, std::string(k->name())), *k));
  }
  if (o.list_shapes) {
    list_shapes(grids, shard, o);
    return;
  }
  const char* env_assert = std::getenv("AOTUNE_ASSERT_CACHE_HIT");
  const bool assert_cache =
      o.assert_cache_hit || (env_assert != nullptr && std::string(env_assert) == "1");
  if (assert_cache && (!o.arch.empty() || o.simulate)) {
    return assert_cache_hit(o, grids, shard, o.arch.empty() ? "sm90" : o.arch);
  }
  const DeviceSetup setup = setup_devices(o);
  if (assert_cache) return assert_cache_hit(o, grids, shard, setup.info.arch());
  if (o.arch.empty() && o.simulate)
    spdlog::info("simulating an sm90 device (--arch picks another)");

  spdlog::info("tuning on {} ({}, {} SMs){}: {} device(s), effort {}", setup.info.name,
               setup.info.arch(), setup.info.sm_count, setup.simulate ? " [simulated]" : "",
               setup.ordinals.size(), to_string(o.effort));
  std::vector<KernelState> states;
  for (ShapeGrid& g : grids) {
    const TunableKernel& kernel = find_kernel(g.kernel);
    states.push_back(prepare_kernel(o, setup, shard, kernel, std::move(g)));
  }

  // The budget is shared by kernels in proportion to their estimated work.
  std::vector<double> estimates;
  for (const KernelState& st : states) {
    double e = 0;
    for (std::size_t i : st.remaining)
      e += estimate_gpu_seconds(st.grid.shapes[i].info, st.kernel->num_configs(), setup.protocol);
    estimates.push_back(e);
  }
  const std::optional<Clock::time_point> deadline =
      o.budget_seconds > 0
          ? std::optional(t0 + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(o.budget_seconds)))
          : std::nullopt;

  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  int restarts = 0;
  bool complete = true;
  int interrupted = 0;
  for (std::size_t k = 0; k < states.size(); ++k) {
    KernelState& st = states[k];
    const Clock::time_point kernel_t0 = Clock::now();
    std::string status = "up to date";
    if (interrupted == 0) interrupted = interrupt_signal();
    if (st.up_to_date) {
      spdlog::info("[{}] {} is complete and current: nothing to do (--force re-tunes)",
                   st.kernel->name(), st.db_path);
      for (const std::string& p : st.leftovers) remove_file_if_exists(p);  // stray journals only
    } else if (interrupted != 0) {
      status = "interrupted";  // not started: its files are as they were
      complete = false;
    } else {
      // Written before measuring: it folds in pieces of an interrupted multi-GPU run (deleted
      // after) and, under --force, replaces what was there.
      save_database(st.db_path, st.base);
      for (const std::string& p : st.leftovers) remove_file_if_exists(p);
      std::optional<Clock::time_point> share;
      if (deadline) {
        double rest = 0;
        for (std::size_t j = k; j < estimates.size(); ++j) rest += estimates[j];
        const double left = std::chrono::duration<double>(*deadline - Clock::now()).count();
        share = Clock::now() +
                std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(rest > 0 ? left * estimates[k] / rest : left));
      }
      spdlog::info("[{}] {} of {} shapes to measure -> {}", st.kernel->name(), st.remaining.size(),
                   st.mine.size(), st.db_path);
      PoolResult r;
      if (!st.remaining.empty()) r = run_worker_pool(o, setup, st, deadline, share);
      restarts += r.restarts;
      interrupted = r.interrupted;
      const auto db = load_database(st.db_path);
      // Every shape measured, and as fully as --effort asks: a budget that turned some to quick
      // leaves the sweep for --resume to finish, like one that left shapes out.
      const std::size_t below = db ? below_effort(*db, o.effort) : 0;
      const bool done = db && db->shapes.size() == st.mine.size() && below == 0;
      if (db && below > 0) {
        spdlog::warn("[{}] {} shapes were searched quick to fit the budget; --resume times them "
                     "in full",
                     st.kernel->name(), below);
      }
      if (done) remove_file_if_exists(crashes_path(st.db_path));
      status = done ? "tuned" : interrupted != 0 ? "interrupted" : "incomplete";
      complete = complete && done;
    }
    // Per kernel, so a sweep's cost per grid is known without timestamps in the progress log.
    const double kernel_wall = std::chrono::duration<double>(Clock::now() - kernel_t0).count();
    kernels.push_back(kernel_summary(st, status, o.effort));
    kernels.back()["wall_seconds"] = std::round(kernel_wall * 1000.0) / 1000.0;
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  for (const auto& j : kernels) {
    spdlog::info("{}: {} ({}/{} shapes, {} this run, {}) -> {}", j["kernel"].get<std::string>(),
                 j["status"].get<std::string>(), j["measured"].get<std::size_t>(),
                 j["shapes"].get<std::size_t>(), j["measured_this_run"].get<std::size_t>(),
                 format_duration(j["wall_seconds"].get<double>()), j["output"].get<std::string>());
  }
  if (!complete && interrupted == 0)
    spdlog::warn("the sweep stopped before the end; rerun with --resume to finish it");
  spdlog::info("wall time {} ({:.1f} s)", format_duration(wall), wall);
  if (o.json) {
    nlohmann::ordered_json summary;
    summary["device"] = to_json(setup.info);
    summary["devices"] = setup.ordinals;
    summary["shard"] = {{"index", shard.index}, {"count", shard.count}};
    summary["effort"] = std::string(to_string(o.effort));
    summary["complete"] = complete;
    summary["interrupted"] = interrupted != 0 ? nlohmann::ordered_json(signal_name(interrupted))
                                              : nlohmann::ordered_json(nullptr);
    summary["restarts"] = restarts;
    summary["wall_seconds"] = std::round(wall * 1000.0) / 1000.0;
    summary["kernels"] = kernels;
    fmt::print("{}\n", summary.dump(2));
  }
  if (interrupted != 0 && !complete) {
    throw Interrupted(
        interrupted, fmt::format("the sweep was stopped by {}: every shape measured so far is kept "
                                 "(the cells in flight were dropped); to finish it, run the "
                                 "same `aot-runner tune` with --resume, or the same "
                                 "`aot-runner bench` again",
                                 signal_name(interrupted)));
  }
}

}  // namespace aotune::tuner
