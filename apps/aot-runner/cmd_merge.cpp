// `aot-runner merge`: shard databases of one sweep into one, identical to an unsharded sweep's.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "apps/aot-runner/commands.h"
#include "kernels/common/errors.h"
#include "tuner/merge.h"
#include "tuner/progress.h"
#include "tuner/results_database.h"

namespace aotune::cli {

void register_merge(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("merge", "Combine shard databases of one sweep into one results database");
  cmd->footer(R"(Example:
  aot-runner merge configs/sm90/jagged_sum.shard-*-of-4.json -o configs/sm90/jagged_sum.json
Refuses databases from different devices, architectures, kernels, kernel sources, protocols, config
lists or grids, and one shape with two different results.)");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("inputs", *inputs, "Shard databases to combine")->required();
  cmd->add_option("-o,--output", *output, "The merged database (written atomically)")->required();
  cmd->add_flag("--json", *json, "Print a JSON summary on stdout");
  cmd->callback([inputs, output, json] {
    tuner::route_logs_to_stderr();
    std::vector<std::pair<std::string, tuner::ResultsDatabase>> dbs;
    for (const std::string& path : *inputs) {
      auto db = tuner::load_database(path);
      if (!db) throw InvalidArgument("cannot merge " + path + ": no such file");
      dbs.emplace_back(path, std::move(*db));
    }
    const tuner::ResultsDatabase merged = tuner::merge_databases(dbs);
    tuner::save_database(*output, merged);
    const auto shapes = static_cast<int64_t>(merged.shapes.size());
    spdlog::info("merged {} database(s) into {}: {} of {} grid shapes", dbs.size(), *output, shapes,
                 merged.grid_shapes);
    if (shapes < merged.grid_shapes) {
      spdlog::warn(
          "{} lacks {} shapes of the grid: merge the missing shards too, or finish it with "
          "'aot-runner tune --resume'",
          *output, merged.grid_shapes - shapes);
    }
    if (*json) {
      const nlohmann::ordered_json j = {{"output", *output},
                                        {"inputs", *inputs},
                                        {"kernel", merged.kernel},
                                        {"arch", merged.arch},
                                        {"shapes", shapes},
                                        {"grid_shapes", merged.grid_shapes},
                                        {"complete", shapes == merged.grid_shapes}};
      fmt::print("{}\n", j.dump(2));
    }
  });
}

}  // namespace aotune::cli
