// `aot-runner list`: the registered kernels and the size of each config space.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "apps/aot-runner/commands.h"
#include "kernels/common/registry.h"

namespace aotune::cli {

void register_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List the tunable kernels and their config-space sizes");
  cmd->footer("Example: aot-runner list --json");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print a JSON array instead of a table");
  cmd->callback([json] {
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const TunableKernel* k : all_kernels()) {
        out.push_back({{"kernel", k->name()},
                       {"configs", k->num_configs()},
                       {"summary", k->summary()},
                       {"source_hash", k->source_hash()}});
      }
      fmt::print("{}\n", out.dump(2));
      return;
    }
    fmt::print("{:<22} {:>7}  {}\n", "kernel", "configs", "summary");
    for (const TunableKernel* k : all_kernels()) {
      fmt::print("{:<22} {:>7}  {}\n", k->name(), k->num_configs(), k->summary());
    }
  });
}

}  // namespace aotune::cli
