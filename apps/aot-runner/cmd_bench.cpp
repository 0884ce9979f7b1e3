// `aot-runner bench`: how good the shipped heuristic is on any grid, tuned shapes or not. Each
// shape's every legal config is timed by the tuner itself (tuner::run_tune into a bench folder, so
// the protocol, crash isolation and resume are the sweep's), or read from a given results database;
// then bench_report.h compares the heuristic's choice with the per-shape oracle, the best single
// config and the default config.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "aotune/arch_fallback.h"
#include "apps/aot-runner/bench_report.h"
#include "apps/aot-runner/commands.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/device_setup.h"
#include "tuner/results_database.h"
#include "tuner/shard.h"
#include "tuner/tune_session.h"

namespace aotune::cli {

namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  std::string grid;
  std::string db;
  std::string out_dir;  // empty: out/bench/<grid file stem>
  std::string device = "gpu";
  std::string devices = "0";
  std::string arch;            // the simulated architecture (--device sim)
  std::string heuristic_arch;  // empty: the database's
  std::string csv;
  double budget_seconds = 0;
  tuner::TimingProtocol protocol;  // only --near-tie and --tie-candidates are options
  bool force = false;
  bool json = false;
};

constexpr const char* kBenchFooter = R"(Examples:
  aot-runner bench --grid configs/grids-bench/jagged_sum.json --csv out/bench/jagged_sum.csv
  python3 scripts/plot_bench.py out/bench/jagged_sum.csv -o out/bench/jagged_sum.svg
  aot-runner bench --grid configs/grids/jagged_sum.json --db configs/sm90/jagged_sum.json  # no GPU
  aot-runner bench --grid configs/grids-bench/jagged_sum.json --device sim   # try it without a GPU
Measures every legal config of every shape (exhaustive, like `tune`) into
<out-dir>/<arch>/<kernel>.json; a second run reuses what is measured (--force re-measures).
Slowdowns are time / per-shape best time. The heuristic is the dispatch library's for the database's
architecture (fallback chain included; $AOTUNE_HEURISTIC_DIR overrides apply).)";

std::string kernel_of_grid(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument("--grid " + path + ": no such file (try configs/grids-bench/)");
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument("--grid " + path + " is not JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("kernel") || !doc["kernel"].is_string()) {
    throw InvalidArgument("--grid " + path + " has no \"kernel\" string field");
  }
  return doc["kernel"].get<std::string>();
}

// Measures the grid with the tuner into <out>/<arch>/<kernel>.json and returns that path. The grid
// is copied to <out>/grids/<kernel>.json, where the tuner looks for it.
std::string measure_grid(const BenchArgs& a, const TunableKernel& kernel, const std::string& out) {
  const std::string name(kernel.name());
  fs::create_directories(fs::path(out) / "grids");
  fs::copy_file(a.grid, fs::path(out) / "grids" / (name + ".json"),
                fs::copy_options::overwrite_existing);
  tuner::TuneOptions o;
  o.kernels = {name};
  o.grid_dir = out + "/grids";
  o.out_dir = out;
  o.simulate = a.device == "sim";
  o.devices = a.devices;
  o.shard = "0/1";  // the whole grid, whatever SLURM_* or AOTUNE_SHARD say
  o.arch = a.arch;
  o.effort = tuner::Effort::full;
  o.budget_seconds = a.budget_seconds;
  o.protocol = a.protocol;
  o.force = a.force;
  const tuner::DeviceSetup setup = tuner::setup_devices(o);  // NoGpu before anything is written
  const std::string db_path = tuner::database_path(out, setup.info.arch(), name, tuner::ShardSpec{});
  // Continue an interrupted bench; a complete one is left alone ("nothing to do"), and one of
  // another grid or kernel source is refused by the tuner with a hint to --force.
  const auto existing = tuner::load_database(db_path);
  o.resume = !a.force && existing && static_cast<int64_t>(existing->shapes.size()) < existing->grid_shapes;
  tuner::run_tune(o);
  return db_path;
}

void run_bench(const BenchArgs& a) {
  const TunableKernel& kernel = find_kernel(kernel_of_grid(a.grid));
  const tuner::ShapeGrid grid = tuner::load_shape_grid(a.grid, kernel);
  if (!a.heuristic_arch.empty()) parse_arch_name(a.heuristic_arch);  // a usage error before timing
  std::string db_path = a.db;
  if (db_path.empty()) {
    const std::string out =
        a.out_dir.empty() ? "out/bench/" + fs::path(a.grid).stem().string() : a.out_dir;
    db_path = measure_grid(a, kernel, out);
  }
  const auto db = tuner::load_database(db_path);
  if (!db) throw InvalidArgument("--db " + db_path + ": no such results database");
  if (db->shapes.size() < static_cast<std::size_t>(db->grid_shapes) && a.db.empty()) {
    throw Error(fmt::format("{} is incomplete ({} of {} shapes; the budget ran out?): rerun the "
                            "same command to finish it",
                            db_path, db->shapes.size(), db->grid_shapes));
  }
  const int arch = parse_arch_name(a.heuristic_arch.empty() ? db->arch : a.heuristic_arch);
  const BenchReport report = evaluate_bench(kernel, grid, *db, db_path, arch);
  if (!a.csv.empty()) {
    if (const fs::path parent = fs::path(a.csv).parent_path(); !parent.empty()) {
      fs::create_directories(parent);
    }
    write_bench_csv(report, a.csv);
    spdlog::info("wrote {} ({} rows); plot it: python3 scripts/plot_bench.py {}", a.csv,
                 report.rows.size(), a.csv);
  }
  if (a.json) {
    fmt::print("{}\n", to_json(report).dump(2));
  } else {
    print_bench_table(report);
  }
}

}  // namespace

void register_bench(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Time every legal config over a grid and score the heuristic against the per-shape oracle, "
      "the best single config and the default config");
  cmd->footer(kBenchFooter);
  cmd->add_option("--grid", args->grid, "Shape grid file ({\"kernel\": ..., \"generators\": ...})")
      ->required();
  cmd->add_option("--db", args->db,
                  "Score this results database instead of measuring (it must hold every grid shape)");
  cmd->add_option("--out-dir", args->out_dir,
                  "Where measurements go (default: out/bench/<grid file name>)");
  cmd->add_option("--device", args->device, "gpu, or sim for the simulated device")
      ->check(CLI::IsMember({"gpu", "sim"}))
      ->capture_default_str();
  cmd->add_option("--devices", args->devices, "GPUs to measure on: all, or ordinals such as 0,1")
      ->capture_default_str();
  cmd->add_option("--arch", args->arch, "With --device sim: the architecture simulated");
  cmd->add_option("--heuristic-arch", args->heuristic_arch,
                  "Score the heuristic a GPU of this architecture would use (default: the database's)");
  cmd->add_option("--csv", args->csv, "Also write one row per shape to this CSV file");
  cmd->add_option("--budget-seconds", args->budget_seconds,
                  "Stop measuring after this many seconds (rerun to continue)");
  add_tie_options(*cmd, args->protocol);
  cmd->add_flag("--force", args->force, "Re-measure even what the bench folder already holds");
  cmd->add_flag("--json", args->json, "Print the summary and the rows as JSON");
  cmd->callback([args, cmd] {
    if (!args->db.empty() && (args->force || !args->out_dir.empty() || cmd->count("--near-tie") > 0 ||
                              cmd->count("--tie-candidates") > 0)) {
      throw InvalidArgument(
          "--db scores an existing database: --force, --out-dir, --near-tie and --tie-candidates do "
          "not apply");
    }
    check_tie_options(args->protocol);
    run_bench(*args);
  });
}

}  // namespace aotune::cli
