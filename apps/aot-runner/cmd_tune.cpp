// `aot-runner tune`: sweep kernels over their shape grids and write results databases
// (tuner/tune_session.h); also --list-shapes and --assert-cache-hit.
#include <fmt/core.h>

#include <memory>

#include "apps/aot-runner/commands.h"
#include "tuner/device_setup.h"
#include "tuner/tune_session.h"

namespace aotune::cli {

namespace {

constexpr const char* kTuneFooter = R"(Examples:
  aot-runner tune                                   # every kernel on GPU 0 -> configs/sm90/<kernel>.json
  aot-runner tune -k jagged_sum,jagged_mean --devices all --json
  aot-runner tune --resume                          # continue a sweep that was stopped or killed
  aot-runner tune --shard 0/4                       # a quarter of each grid (Slurm/Kubernetes: automatic)
  aot-runner tune --assert-cache-hit --arch sm90    # CI: no GPU needed, non-zero exit on a miss
  aot-runner tune --device sim --out-dir /tmp/sim   # the simulated device: no GPU needed
  aot-runner tune --list-shapes -k jagged_sum
Shards: --shard i/N, else AOTUNE_SHARD=i/N, else SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT (minus
SLURM_ARRAY_TASK_MIN), else JOB_COMPLETION_INDEX with AOTUNE_SHARD_COUNT (Kubernetes indexed jobs).
A shard writes <kernel>.shard-i-of-N.json; combine them with 'aot-runner merge'.
Ctrl-C, SIGTERM or SIGHUP stop the sweep: the workers' cells in flight are dropped, every shape
measured is kept, the summary is printed and the exit code is 128 + signal (130 for Ctrl-C).
The simulated device has two GPUs (--devices all = 0,1). Test hooks: AOTUNE_SIM_DELAY_MS,
AOTUNE_SIM_FAIL, AOTUNE_SIM_CRASH, AOTUNE_SIM_LOSE_CONTEXT (see tuner/simulated_device.h).
AOTUNE_FSYNC=0 skips fsync (throwaway sweeps and tests).)";

}  // namespace

void add_tie_options(CLI::App& cmd, tuner::TimingProtocol& protocol) {
  cmd.add_option("--near-tie", protocol.near_tie,
                 "Re-time interleaved the configs within this fraction of the shape's best median, "
                 "e.g. 0.10 for 10% (default: 0.02; 0 to 1)");
  cmd.add_option("--tie-candidates", protocol.max_tie_candidates,
                 "Re-time at most this many near-ties, the best included (default: 4; 1: no "
                 "re-timing; another value is recorded in the database's protocol)");
}

void check_tie_options(const tuner::TimingProtocol& protocol) {
  if (!(protocol.near_tie >= 0 && protocol.near_tie <= 1)) {
    throw InvalidArgument(fmt::format(
        "--near-tie {} must be a fraction from 0 to 1 (0.10: within 10% of the best)",
        protocol.near_tie));
  }
  if (protocol.max_tie_candidates < 1) {
    throw InvalidArgument(fmt::format(
        "--tie-candidates {} must be at least 1 (1: no re-timing; the best counts as one)",
        protocol.max_tie_candidates));
  }
}

void register_tune(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("tune",
                         "Time every legal config of each kernel over its shape grid and write "
                         "results databases (configs/<arch>/<kernel>.json)");
  cmd->footer(kTuneFooter);
  auto o = std::make_shared<tuner::TuneOptions>();
  auto device = std::make_shared<std::string>("gpu");
  auto effort = std::make_shared<std::string>("full");
  cmd->add_option("-k,--kernel", o->kernels,
                  "Kernels to tune, comma-separated (default: every registered kernel)")
      ->delimiter(',');
  cmd->add_option("--grid-dir", o->grid_dir,
                  "Folder of the shape grids <kernel>.json (default: configs/grids)");
  cmd->add_option("--out-dir", o->out_dir,
                  "Databases go to <out-dir>/<arch>/<kernel>.json (default: configs)");
  cmd->add_option("--device", *device,
                  "gpu, or sim for the deterministic simulated device (default: gpu)")
      ->check(CLI::IsMember({"gpu", "sim"}));
  cmd->add_option("--devices", o->devices,
                  "GPUs to use, one worker each: all, or ordinals such as 0,1 (default: 0)");
  cmd->add_option("--shard", o->shard,
                  "Tune only shapes with index % N == i, given as i/N (0/1: no sharding)");
  cmd->add_option("--arch", o->arch,
                  "Architecture such as sm90: with --assert-cache-hit, check it without a GPU; "
                  "with --device sim, "
                  "the one simulated");
  cmd->add_option("--effort", *effort,
                  "full (exhaustive; quick where the budget is short), quick or none")
      ->check(CLI::IsMember({"none", "quick", "full"}));
  cmd->add_option("--budget-seconds", o->budget_seconds,
                  "Stop cleanly after this many seconds (resumable; 0: none). Under --effort full, "
                  "shapes past what the rest of the budget fits are searched quick");
  cmd->add_flag("--resume", o->resume,
                "Keep every shape already measured and measure the rest, and again those a "
                "budget cut short of --effort (quick where full was asked)");
  cmd->add_flag("--force", o->force,
                "Re-tune everything, replacing existing (even unreadable) databases");
  cmd->add_flag("--assert-cache-hit", o->assert_cache_hit,
                "Measure nothing; fail listing shapes missing or tuned on another kernel source "
                "(also AOTUNE_ASSERT_CACHE_HIT=1)");
  cmd->add_flag("--list-shapes", o->list_shapes, "Print the expanded shape grids and exit");
  cmd->add_flag("--json", o->json, "Print a JSON summary on stdout at the end");
  cmd->add_option("--max-restarts", o->max_restarts,
                  "Worker restarts allowed per kernel and GPU (default: 20)");
  cmd->add_option(
      "--cell-timeout", o->cell_timeout_seconds,
      "Kill a worker silent this many seconds; its cell is recorded as crashed (default: 600)");
  cmd->add_option("--target-ms", o->protocol.target_ms,
                  "Kernel time to accumulate per config (default: 2)");
  cmd->add_option("--min-reps", o->protocol.min_reps, "Fewest timed repetitions (default: 5)");
  cmd->add_option("--max-reps", o->protocol.max_reps, "Most timed repetitions (default: 100)");
  cmd->add_option("--warmup", o->protocol.warmup, "Untimed launches before timing (default: 3)");
  cmd->add_option(
      "--loser-factor", o->protocol.loser_factor,
      "A config whose first two launches are over this many times the shape's fastest so far "
      "gets --loser-reps repetitions only (default: 3; 0: time every config in full)");
  cmd->add_option("--loser-reps", o->protocol.loser_reps,
                  "Repetitions of such a clear loser (default: 2, the fewest)");
  cmd->add_option("--loser-min-us", o->protocol.loser_min_us,
                  "Cut losers short only once the shape's fastest median so far is at least this "
                  "many microseconds (default: 50)");
  add_tie_options(*cmd, o->protocol);
  cmd->add_option(
      "--unsteady", o->protocol.unsteady,
      "Re-time once (after the next shape's inputs are built, with --overlap) a cell whose "
      "median is over (1 + this) x its p10 (something else slowed most of its launches), and "
      "keep the lower median (default: 0.25; 0: off)");
  cmd->add_flag("--overlap,!--no-overlap", o->protocol.overlap_inputs,
                "Build the next shape's inputs on a second thread while this one is timed "
                "(faster; its upload can slow the cells timed meanwhile several-fold). Default: "
                "--no-overlap, each shape's inputs built before it is timed");
  cmd->add_option("--sim-delay-ms", o->sim_delay_ms,
                  "Simulated device: sleep per cell (default: AOTUNE_SIM_DELAY_MS or 0)");
  cmd->callback([o, device, effort] {
    o->simulate = *device == "sim";
    o->effort = tuner::parse_effort(*effort);
    if (o->protocol.min_reps < 1 || o->protocol.max_reps < o->protocol.min_reps) {
      throw InvalidArgument("need 1 <= --min-reps <= --max-reps");
    }
    if (!(o->protocol.loser_factor == 0 || o->protocol.loser_factor > 1)) {
      throw InvalidArgument(fmt::format(
          "--loser-factor {} must be 0 (off) or above 1 (a clear loser is slower than the best)",
          o->protocol.loser_factor));
    }
    if (o->protocol.loser_reps < 2) {
      throw InvalidArgument(
          fmt::format("--loser-reps {} must be at least 2 (two launches over the bar make a loser)",
                      o->protocol.loser_reps));
    }
    if (!(o->protocol.loser_min_us >= 0)) {
      throw InvalidArgument(
          fmt::format("--loser-min-us {} must be 0 or more", o->protocol.loser_min_us));
    }
    if (!(o->protocol.unsteady >= 0 && o->protocol.unsteady <= 10)) {
      throw InvalidArgument(fmt::format(
          "--unsteady {} must be 0 (off) or a fraction over the p10 up to 10 (0.25: a median 25% "
          "over its p10)",
          o->protocol.unsteady));
    }
    check_tie_options(o->protocol);
    tuner::run_tune(*o);  // throws tuner::NoGpu, which main() maps to exit code 3
  });
}

}  // namespace aotune::cli
