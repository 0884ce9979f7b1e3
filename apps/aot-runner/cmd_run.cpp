// `aot-runner run`: one shape on the GPU, as a user's call would run it. Inputs come from the
// kernel's shape spec (the keys of configs/grids/<kernel>.json); the config is the dispatch
// library's choice (dispatch::explain: the same heuristic store, fallback chain and tree walk as
// aotune::ops::<kernel>); the output is checked against the float64 reference; the time follows
// the tuner's protocol (tuner/gpu_device.h: events, warm-up, median, L2 flushed between
// repetitions), so `run` and `tune` numbers compare. It also reports the per-call time of calls
// issued back to back with no flush (warm inputs, overlapped launches).
#include <fmt/core.h>

#include <cmath>
#include <memory>

#include <nlohmann/json.hpp>

#include "aotune/arch_fallback.h"
#include "aotune/explain.h"
#include "aotune/heuristic_store.h"
#include "apps/aot-runner/commands.h"
#include "apps/aot-runner/copy_ceiling.h"
#include "apps/aot-runner/shape_arg.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/device_setup.h"
#include "tuner/gpu_device.h"
#include "tuner/shape_grid.h"

namespace aotune::cli {

namespace {

struct RunArgs {
  std::string kernel;
  std::string shape;
  std::string config;  // empty: the heuristic's choice
  int device = 0;
  bool measure_ceiling = false;
  bool json = false;
  int calls = 100;  // back-to-back timing batch
  tuner::TimingProtocol protocol;
};

std::size_t config_index(const TunableKernel& kernel, const std::string& id) {
  for (std::size_t i = 0; i < kernel.num_configs(); ++i) {
    if (kernel.config_id(i) == id) return i;
  }
  throw InvalidArgument(fmt::format("--config {}: {} has no such config (first one: {}; see "
                                    "`aot-runner explain` or a results database for the ids)",
                                    id, kernel.name(), kernel.config_id(0)));
}

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

void print_text(const nlohmann::ordered_json& r) {
  const auto& c = r["config"];
  const auto& t = r["timing"];
  const auto& ceiling = r["copy_ceiling"];
  fmt::print("{} {} on {} ({}, GPU {})\n", r["kernel"].get<std::string>(),
             r["shape_key"].get<std::string>(), r["device"]["name"].get<std::string>(),
             r["device"]["arch"].get<std::string>(), r["device"]["ordinal"].get<int>());
  fmt::print("config     {} ({})\n", c["id"].get<std::string>(), c["chosen_by"].get<std::string>());
  fmt::print("check      ok against the float64 reference (max normalised error {:.3g})\n",
             r["check"]["max_error"].get<double>());
  fmt::print("time       {:.3f} us, median of {} repetitions (p10 {:.3f}, p90 {:.3f}); {} warm-up "
             "launches, L2 flushed ({} MiB) before each\n",
             t["median_us"].get<double>(), t["reps"].get<int>(), t["p10_us"].get<double>(),
             t["p90_us"].get<double>(), t["warmup"].get<int>(),
             t["l2_flush_bytes"].get<int64_t>() >> 20);
  fmt::print("bandwidth  {:.1f} GB/s by the fewest-bytes model ({:.0f} bytes) = {:.3f} of the copy "
             "ceiling {:.0f} GB/s, {}\n",
             r["gbps"].get<double>(), r["bytes_moved"].get<double>(),
             r["fraction_of_ceiling"].get<double>(), ceiling["gbps"].get<double>(),
             ceiling["source"].get<std::string>());
  const auto& b = r["back_to_back"];
  fmt::print("per call   {:.3f} us back to back (median of {} batches of {} calls, p10 {:.3f}, p90 "
             "{:.3f}; no flush: inputs warm in L2, launches overlapped)\n",
             b["per_call_us"].get<double>(), b["batches"].get<int>(), b["calls"].get<int>(),
             b["p10_us"].get<double>(), b["p90_us"].get<double>());
}

void run_shape(const RunArgs& a) {
  const TunableKernel& kernel = find_kernel(a.kernel);
  const ProblemInfo info = kernel.describe(parse_shape_pairs(a.shape));
  const bool forced = !a.config.empty();
  const std::size_t forced_config = forced ? config_index(kernel, a.config) : 0;
  if (forced && !info.legality[forced_config].ok) {
    throw InvalidArgument(fmt::format("--config {} cannot run this shape: {}", a.config,
                                      info.legality[forced_config].reason));
  }
  const int count = tuner::cuda_device_count();
  if (count == 0) {
    throw tuner::NoGpu(fmt::format(
        "run needs a usable CUDA device and found none (see `aot-runner devices`); without a GPU, "
        "`aot-runner explain --kernel {} --shape '{}' --arch sm90` shows the config it would get",
        a.kernel, a.shape));
  }
  if (a.device < 0 || a.device >= count) {
    throw InvalidArgument(fmt::format("--device {}: {} GPU(s) visible, ordinals 0..{}", a.device,
                                      count, count - 1));
  }
  tuner::GpuDevice gpu(a.device, a.protocol);
  const tuner::DeviceInfo& dev = gpu.info();
  // The ceiling first, while the workload's memory is still free.
  const CopyCeiling ceiling = copy_ceiling_for(dev.name, a.measure_ceiling);

  const int arch = dev.cc_major * 10 + dev.cc_minor;
  const dispatch::Explanation e = dispatch::explain(*dispatch::current_store(), kernel, info, arch);
  const std::size_t config = forced ? forced_config : e.config;
  const std::string chosen_by =
      forced ? "--config"
             : e.arch_used ? fmt::format("{} heuristic, {}, via {}", arch_name(e.arch_used),
                                         e.heuristic_source, heuristics::to_string(e.source))
                           : fmt::format("no heuristic for {}: {}", arch_name(arch),
                                         heuristics::to_string(e.source));

  const tuner::GridShape shape{0, tuner::shape_key(info.shape), info.shape, info};
  const std::unique_ptr<tuner::ShapeRunner> runner = gpu.prepare(kernel, shape);
  const CheckResult check = runner->check(config);
  nlohmann::ordered_json r;
  r["kernel"] = std::string(kernel.name());
  r["shape"] = info.shape;
  r["shape_key"] = shape.key;
  r["device"] = {{"ordinal", a.device}, {"name", dev.name}, {"arch", dev.arch()},
                 {"sm_count", dev.sm_count}};
  r["config"] = {{"index", config},          {"id", kernel.config_id(config)},
                 {"fields", kernel.config_json(config)}, {"chosen_by", chosen_by},
                 {"heuristic_config", e.config_id}};
  r["check"] = {{"ok", check.ok}, {"max_error", check.max_error}, {"message", check.message}};
  if (!check.ok) {
    if (a.json) fmt::print("{}\n", r.dump(2));
    throw Error(fmt::format("{} config {} gave a wrong result on {}: {}. This is a kernel bug: "
                            "report it with this command line",
                            kernel.name(), kernel.config_id(config), shape.key, check.message));
  }
  const tuner::Timing t = runner->time(config, /*loser_above_us=*/0);
  const double gbps = info.bytes_moved / (t.median_us * 1e-6) / 1e9;
  r["timing"] = {{"median_us", t.median_us}, {"p10_us", t.p10_us}, {"p90_us", t.p90_us},
                 {"reps", t.reps}, {"warmup", gpu.protocol().warmup},
                 {"l2_flush_bytes", gpu.protocol().l2_flush_bytes}};
  // A model calls the op in its stream right after the producer of its inputs: what one call costs
  // there is the back-to-back time (the flushed time above is the cold, pessimistic bound).
  const tuner::Timing b = runner->time_back_to_back(config, a.calls);
  r["back_to_back"] = {{"per_call_us", b.median_us}, {"p10_us", b.p10_us}, {"p90_us", b.p90_us},
                       {"calls", a.calls}, {"batches", b.reps / a.calls}};
  r["bytes_moved"] = info.bytes_moved;
  r["gbps"] = round3(gbps);
  r["copy_ceiling"] = {{"gbps", round3(ceiling.gbps)}, {"source", ceiling.source}};
  r["fraction_of_ceiling"] = round3(gbps / ceiling.gbps);
  if (a.json) {
    fmt::print("{}\n", r.dump(2));
  } else {
    print_text(r);
  }
}

}  // namespace

void register_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "Run one shape on the GPU with the heuristic's config: check it, time it, report GB/s");
  cmd->footer(
      "Example: aot-runner run --kernel jagged_sum --shape B=1024,M=256,len=512,dist=powerlaw\n"
      "Shape keys are the kernel's shape-spec fields, as in configs/grids/<kernel>.json (dtype,\n"
      "index, seed too). Exit 1 when the output is wrong, 3 without a usable GPU.\n"
      "GB/s counts the fewest bytes the op must move (BENCH.md); the copy ceiling is 4277 GB/s on\n"
      "an H200 (BENCH.md) unless --measure-ceiling, and measured on any other GPU.");
  cmd->add_option("--kernel", args->kernel, "Kernel name (see `aot-runner list`)")->required();
  cmd->add_option("--shape", args->shape, "key=value pairs, comma-separated")->required();
  cmd->add_option("--config", args->config,
                  "Run this config id instead of the heuristic's (compare one against it)");
  cmd->add_option("--device", args->device, "GPU ordinal")->capture_default_str();
  cmd->add_flag("--measure-ceiling", args->measure_ceiling,
                "Measure the device-to-device copy ceiling now instead of the H200 constant");
  cmd->add_option("--warmup", args->protocol.warmup, "Untimed launches before timing")
      ->capture_default_str()->check(CLI::Range(0, 1000));
  cmd->add_option("--min-reps", args->protocol.min_reps, "Fewest timed repetitions")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--max-reps", args->protocol.max_reps, "Most timed repetitions")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--target-ms", args->protocol.target_ms,
                  "Kernel time the repetitions add up to")->capture_default_str();
  cmd->add_option("--calls", args->calls,
                  "Calls per batch of the back-to-back timing (per-call cost with warm inputs)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  cmd->callback([args] {
    if (args->protocol.max_reps < args->protocol.min_reps) {
      throw InvalidArgument("need --min-reps <= --max-reps");
    }
    run_shape(*args);
  });
}

}  // namespace aotune::cli
