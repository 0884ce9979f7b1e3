// `aot-runner fit`: fit a kernel's heuristic from its results database and print the scores that
// matter, held-out slowdown first (cross-validated: every shape scored by a tree that never saw
// it).
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apps/aot-runner/commands.h"
#include "heuristics/fit.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/results_database.h"

namespace aotune::cli {

namespace {

struct FitArgs {
  std::string kernel;
  std::string arch = "sm90";
  std::string db;
  std::vector<std::string> testsets;
  std::string configs_dir = "configs";
  std::size_t max_configs = heuristics::SubsetOptions{}.max_configs;
  std::size_t folds = 5;
  std::size_t repeats = 1;
  uint64_t draw = 0;
  std::size_t worst = 10;
  double cap = 1.25;
  bool json = false;
  std::size_t forest_trees = heuristics::ForestOptions{}.trees;
  int forest_depth = heuristics::ForestOptions{}.max_depth;
  std::size_t forest_min_leaf = heuristics::ForestOptions{}.min_leaf;
  double forest_clip = heuristics::ForestOptions{}.clip;
  uint64_t forest_seed = heuristics::ForestOptions{}.seed;
  std::string forest_configs = "all";
};

// The --testset database: same kernel, architecture, config space and kernel source as the
// training database (a test set measured on other code scores code that no longer exists).
heuristics::TrainingSet load_test_set(const std::string& path, const tuner::ResultsDatabase& train,
                                      const std::string& train_path) {
  const auto db = tuner::load_database(path);
  if (!db) throw InvalidArgument(fmt::format("--testset: no results database at {}", path));
  if (db->kernel != train.kernel)
    throw InvalidArgument(
        fmt::format("--testset: {} holds kernel '{}', not '{}'", path, db->kernel, train.kernel));
  if (db->arch != train.arch)
    throw InvalidArgument(fmt::format("--testset: {} was measured on {}, {} on {}", path, db->arch,
                                      train_path, train.arch));
  if (db->source_hash != train.source_hash)
    throw InvalidArgument(fmt::format(
        "--testset: {} was measured with kernel source {}, {} with {}: the test set times "
        "other code; re-measure it (bench/testset/README.md)",
        path, db->source_hash.substr(0, 12), train_path, train.source_hash.substr(0, 12)));
  if (db->device.name != train.device.name)
    spdlog::warn("--testset: {} was measured on {}, {} on {}", path, db->device.name, train_path,
                 train.device.name);
  return heuristics::training_set_from_database(*db);
}

void print_table(const nlohmann::ordered_json& r) {
  auto num = [](const nlohmann::ordered_json& v) {
    return v.is_null() ? std::string("inf") : fmt::format("{:.4f}", v.get<double>());
  };
  // The model `emit` ships: the tree, or the forest where it holds out better (heldout is its).
  const bool forest = r.contains("model") && r["model"] == "forest";
  fmt::print("{} on {}: {} shapes, {} configs kept, {}\n", r["kernel"].get<std::string>(),
             r["arch"].get<std::string>(), r["shapes"].get<std::size_t>(),
             r["num_configs"].get<std::size_t>(),
             forest ? fmt::format("a forest of {} trees (deepest {})", r["forest_trees"].get<std::size_t>(),
                                  r["tree_depth"].get<int>())
                    : fmt::format("tree depth {}", r["tree_depth"].get<int>()));
  if (const auto draw = r["heldout"]["draw"].get<uint64_t>(); draw != 0)
    fmt::print("held-out rows: fold draw {}\n", draw);
  fmt::print("{:<38} {:>9} {:>9} {:>9}\n", "slowdown vs per-shape best", "geomean", "p95", "max");
  const std::pair<const char*, const char*> rows[] = {{"heldout", "held-out (cross-validated)"},
                                                      {"training", "training shapes (optimistic)"},
                                                      {"best_single_config", "best single config"},
                                                      {"default_config", "default config"}};
  for (const auto& [key, label] : rows) {
    const auto& s = r[key];
    fmt::print("{:<38} {:>9} {:>9} {:>9}\n", label, num(s["geomean_slowdown"]),
               num(s["p95_slowdown"]), num(s["max_slowdown"]));
  }
  if (r.contains("heldout_by_size")) {
    for (const auto& c : r["heldout_by_size"]) {
      if (c["shapes"].get<std::size_t>() == 0) continue;
      fmt::print("{:<38} {:>9} {:>9} {:>9}\n",
                 fmt::format("held-out, {} ({} shapes)", c["bytes_moved"].get<std::string>(),
                             c["shapes"].get<std::size_t>()),
                 num(c["geomean_slowdown"]), num(c["p95_slowdown"]), num(c["max_slowdown"]));
    }
  }
  if (r.contains("heldout_repeated")) {
    const auto& rep = r["heldout_repeated"];
    for (const char* stat : {"mean", "min", "max"}) {
      fmt::print("{:<38} {:>9} {:>9} {:>9}\n",
                 fmt::format("held-out, {} of {} fold draws", stat, rep["repeats"].get<std::size_t>()),
                 num(rep["geomean_slowdown"][stat]), num(rep["p95_slowdown"][stat]),
                 num(rep["max_slowdown"][stat]));
    }
  }
  if (r.contains("heldout_tree") && forest) {
    const auto& t = r["heldout_tree"];
    fmt::print("{:<38} {:>9} {:>9} {:>9}\n", "held-out, the single tree instead", num(t["geomean_slowdown"]),
               num(t["p95_slowdown"]), num(t["max_slowdown"]));
  }
  if (r.contains("heldout_forest")) {
    const auto& f = r["heldout_forest"];
    const std::string what = fmt::format("forest x{} d{} ({})", f["trees"].get<std::size_t>(),
                                         f["max_depth"].get<int>(), f["configs"].get<std::string>());
    fmt::print("{:<38} {:>9} {:>9} {:>9}\n", fmt::format("held-out, {}", what), num(f["geomean_slowdown"]),
               num(f["p95_slowdown"]), num(f["max_slowdown"]));
    if (r.contains("heldout_forest_repeated")) {
      const auto& rep = r["heldout_forest_repeated"];
      fmt::print("{:<38} {:>9} {:>9} {:>9}\n",
                 fmt::format("held-out, {}, mean of {} draws", what, rep["repeats"].get<std::size_t>()),
                 num(rep["geomean_slowdown"]["mean"]), num(rep["p95_slowdown"]["mean"]),
                 num(rep["max_slowdown"]["mean"]));
    }
  }
  for (const auto& t : r.value("testsets", nlohmann::ordered_json::array())) {
    const std::size_t n = t["shapes"].get<std::size_t>();
    fmt::print("{}\n", t["database"].get<std::string>());
    for (const auto& [key, label] :
         {std::pair{"heuristic", fmt::format("test set ({} shapes)", n)},
          std::pair{"best_single_config", std::string("test set, best single config")},
          std::pair{"default_config", std::string("test set, default config")}}) {
      fmt::print("{:<38} {:>9} {:>9} {:>9}\n", label, num(t[key]["geomean_slowdown"]),
                 num(t[key]["p95_slowdown"]), num(t[key]["max_slowdown"]));
    }
  }
}

}  // namespace

void register_fit(CLI::App& app) {
  auto args = std::make_shared<FitArgs>();
  auto* cmd = app.add_subcommand(
      "fit", "Fit a kernel's heuristic from its results database and score it on held-out shapes");
  // clang-format off  (one example a line, as --help prints them)
  cmd->footer(
      "Examples: aot-runner fit --kernel jagged_sum --arch sm90 --json\n"
      "          aot-runner fit --kernel jagged_sum --repeats 10   # held-out over 10 fold draws\n"
      "          aot-runner fit --kernel jagged_mean --draw 1 --worst 20 --json   # draw 1's worst picks\n"
      "          aot-runner fit --kernel jagged_sum --repeats 10 --forest-trees 8   # tree vs a forest of 8 (32 by default)\n"
      "          aot-runner fit --kernel jagged_mean --testset bench/testset/sm90/jagged_mean.json   # out of grid\n"
      "          aot-runner fit --kernel jagged_mean --forest-seed 1 --testset A.json --testset B.json   # another forest draw");
  // clang-format on
  cmd->add_option("--kernel", args->kernel, "Kernel name (see `aot-runner list`)")->required();
  auto* arch = cmd->add_option("--arch", args->arch, "Architecture of the database, e.g. sm90")
                   ->capture_default_str();
  cmd->add_option("--db", args->db, "Results database (default: <configs>/<arch>/<kernel>.json)");
  cmd->add_option("--configs", args->configs_dir, "Folder of results databases")
      ->capture_default_str();
  cmd->add_option("--testset", args->testsets,
                  "Also score the fitted model on this database's shapes, e.g. "
                  "bench/testset/sm90/<kernel>.json: random shapes outside the grid with every "
                  "config timed (\"testset\" in --json; repeat the option for several, all in \"testsets\")");
  cmd->add_option("--max-configs", args->max_configs, "Cap on the configs a heuristic keeps: cross-validation picks the size among 8, 12 and the cap (those not above it)")
      ->capture_default_str();
  cmd->add_option("--folds", args->folds, "Cross-validation folds")->capture_default_str();
  cmd->add_option("--repeats", args->repeats,
                  "Score held-out over this many fold draws (mean/min/max in heldout_repeated); "
                  "compare fitter variants this way, one split is noisy")
      ->capture_default_str();
  cmd->add_option("--draw", args->draw,
                  "Fold draw (the shapes' assignment to folds) that heldout and heldout_worst "
                  "describe; with --repeats, draws N .. N+repeats-1. The fitted model does not "
                  "depend on it")
      ->capture_default_str();
  cmd->add_option("--worst", args->worst, "Slowest held-out shapes listed in heldout_worst")
      ->capture_default_str();
  cmd->add_option("--cap", args->cap, "Worst-case slowdown the config subset tries to stay under")
      ->capture_default_str();
  cmd->add_option("--forest-trees", args->forest_trees,
                  "Trees of the forest (heuristics/forest.h) scored next to the single tree by the "
                  "same nested cross-validation, on the same fold draws (heldout_forest, heldout_tree; "
                  "with --repeats also *_repeated). The model reported under heldout (and shipped by "
                  "emit, which uses the default) is the forest where it holds out at least 0.75 % "
                  "better on the first draw, else the tree. 0: the tree only")
      ->capture_default_str()
      ->check([](const std::string& v) -> std::string {
        // CLI11 has parsed nothing yet: a negative value would wrap around in size_t.
        long long n = -1;
        try {
          std::size_t used = 0;
          n = std::stoll(v, &used);
          if (used != v.size()) n = -1;
        } catch (const std::exception&) {
          n = -1;
        }
        return n >= 0 && n <= 256 ? std::string() : "--forest-trees must be in [0, 256], got " + v;
      });
  cmd->add_option("--forest-depth", args->forest_depth, "Depth limit of every forest tree")
      ->capture_default_str()
      ->check(CLI::Range(1, 30));
  cmd->add_option("--forest-min-leaf", args->forest_min_leaf, "Fewest training shapes in a forest leaf")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option(
         "--forest-clip", args->forest_clip,
         "Training targets' ln slowdown is clipped here (1.5: e^1.5 = 4.5x); illegal and failed "
         "cells train at the clip (at most 3: a leaf's 16-bit cost holds ln 3.28)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, heuristics::kMaxLeafCostLn));
  cmd->add_option("--forest-configs", args->forest_configs,
                  "Configs the forest predicts and may pick: 'all' (the whole config space, or the "
                  "subset where it has more than 128 configs) or 'subset' (fitted on each fold's "
                  "training shapes, of the size the tree's cross-validation chose there, as the tree's)")
      ->capture_default_str()
      ->check(CLI::IsMember({"subset", "all"}));
  cmd->add_option("--forest-seed", args->forest_seed,
                  "Seed of the forest's random thresholds and features (emit ships 0). A fit with "
                  "another seed shows how much of a difference between two fits (a grown grid, say) "
                  "is the forest's own draw: adding 32 shapes to a grid of 1100 changed a quarter of "
                  "the test sets' picks (session 59)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the report as JSON");
  cmd->callback([args, arch] {
    find_kernel(args->kernel);  // unknown kernel: a usage error listing the known ones
    if (args->max_configs < 1) throw InvalidArgument("--max-configs must be >= 1");
    if (args->folds < 2)
      throw InvalidArgument("--folds must be >= 2, got " + std::to_string(args->folds));
    if (args->repeats < 1 || args->repeats > 1000)
      throw InvalidArgument("--repeats must be in [1, 1000], got " + std::to_string(args->repeats));
    if (args->draw > 1000000)
      throw InvalidArgument("--draw must be in [0, 1000000], got " + std::to_string(args->draw));
    if (args->worst < 1)
      throw InvalidArgument("--worst must be >= 1, got " + std::to_string(args->worst));
    const std::string path =
        args->db.empty() ? fmt::format("{}/{}/{}.json", args->configs_dir, args->arch, args->kernel)
                         : args->db;
    const auto db = tuner::load_database(path);
    if (!db)
      throw InvalidArgument(
          fmt::format("no results database at {}: run `aot-runner tune --kernel {}` first", path,
                      args->kernel));
    if (db->kernel != args->kernel) {
      throw InvalidArgument(
          fmt::format("{} holds kernel '{}', not '{}'", path, db->kernel, args->kernel));
    }
    if (arch->count() > 0 && db->arch != args->arch) {
      throw InvalidArgument(fmt::format("{} was tuned on {}, not {}", path, db->arch, args->arch));
    }
    if (db->device.simulated)
      spdlog::warn("{} comes from the simulated device: these scores say nothing about a GPU",
                   path);
    heuristics::FitOptions options;
    options.cv.folds = args->folds;
    options.repeats = args->repeats;
    options.first_draw = args->draw;
    options.cv.subset.max_configs = args->max_configs;
    options.cv.subset.worst_case_cap = args->cap;
    options.forest.trees = args->forest_trees;
    options.forest.max_depth = args->forest_depth;
    options.forest.min_leaf = args->forest_min_leaf;
    options.forest.clip = args->forest_clip;
    options.forest.seed = args->forest_seed;
    options.forest.configs =
        args->forest_configs == "all" ? heuristics::ForestConfigs::all : heuristics::ForestConfigs::subset;
    const heuristics::TrainingSet ts = heuristics::training_set_from_database(*db);
    if (ts.num_shapes() == 0)
      throw Error(fmt::format("{} has no shape with a passing config: nothing to fit", path));
    // assign_folds clamps the folds to the shapes: say so, since leave-one-out over hundreds of
    // shapes fits hundreds of models per draw and runs for minutes with nothing printed.
    if (args->folds > ts.num_shapes()) {
      spdlog::warn("--folds {} is more than the {} shapes: each shape is its own fold (leave-one-out), "
                   "one fit per shape and draw",
                   args->folds, ts.num_shapes());
    }
    // The test set is read and checked before the fit, which takes a minute on large databases.
    std::vector<heuristics::TrainingSet> tests;
    for (const std::string& t : args->testsets) tests.push_back(load_test_set(t, *db, path));
    const heuristics::FitResult fit = heuristics::fit_heuristic(ts, options);
    nlohmann::ordered_json report = heuristics::fit_report_json(fit, ts, db->arch, args->worst);
    report["database"] = path;
    report["simulated"] = db->device.simulated;
    // "testset" (the first) as before; "testsets" holds every one, in the order given.
    for (std::size_t i = 0; i < tests.size(); ++i) {
      nlohmann::ordered_json t = heuristics::test_set_json(fit, ts, tests[i], args->worst);
      t["database"] = args->testsets[i];
      if (i == 0) report["testset"] = t;
      report["testsets"].push_back(std::move(t));
    }
    if (args->json) {
      fmt::print("{}\n", report.dump(2));
    } else {
      print_table(report);
    }
  });
}

}  // namespace aotune::cli
