// `aot-runner refresh-features`: rewrite the shape features stored in results databases from each
// shape's spec with the features code of this build (tuner/feature_refresh.h says why that needs no
// GPU and no re-tuning). Timings, configs and everything else in a database are left as they are.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/aot-runner/commands.h"
#include "codegen/manifest.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/feature_refresh.h"
#include "tuner/file_lock.h"
#include "tuner/progress.h"
#include "tuner/results_database.h"
#include "tuner/shard.h"

namespace aotune::cli {

namespace {

struct RefreshOptions {
  std::string configs_dir = "configs";
  std::vector<std::string> kernels;  // empty: every kernel of the manifest
  std::vector<std::string> archs;    // empty: every architecture of the manifest
  bool check = false;
  bool json = false;
};

void run_refresh(const RefreshOptions& o) {
  const codegen::Manifest manifest = codegen::load_manifest(o.configs_dir + "/manifest.json");
  const std::vector<std::string>& kernels = o.kernels.empty() ? manifest.kernels : o.kernels;
  const std::vector<std::string>& archs = o.archs.empty() ? manifest.architectures : o.archs;
  for (const std::string& name : kernels) find_kernel(name);  // an unknown name fails before any write
  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  std::size_t stale_databases = 0;
  for (const std::string& arch : archs) {
    for (const std::string& name : kernels) {
      const TunableKernel& kernel = find_kernel(name);
      const std::string path = tuner::database_path(o.configs_dir, arch, name, tuner::ShardSpec{});
      // The same lock a sweep holds: never rewrite a database a running tune is writing.
      const tuner::FileLock lock(path + ".lock", 0);
      auto db = tuner::load_database(path);
      if (!db) {
        if (!o.kernels.empty() && !o.archs.empty()) throw InvalidArgument("no results database at " + path);
        spdlog::info("{}: no database, skipped", path);
        continue;
      }
      const std::vector<tuner::StaleFeatures> stale = tuner::find_stale_features(kernel, *db);
      nlohmann::ordered_json entry = {{"database", path}, {"kernel", name}, {"arch", arch},
                                      {"shapes", db->shapes.size()}, {"stale_shapes", stale.size()},
                                      {"written", false}};
      if (!stale.empty()) {
        ++stale_databases;
        spdlog::info("{}", tuner::describe_stale_features(stale, db->shapes.size(), path, name));
        if (!o.check) {
          tuner::refresh_features(kernel, *db);
          tuner::save_database(path, *db);
          entry["written"] = true;
          spdlog::info("{}: features of {} shapes rewritten; next: aot-runner emit", path, stale.size());
        }
      } else {
        spdlog::info("{}: features up to date ({} shapes)", path, db->shapes.size());
      }
      report.push_back(std::move(entry));
    }
  }
  if (o.json) fmt::print("{}\n", report.dump(2));
  if (o.check && stale_databases > 0) {
    throw Error(fmt::format("{} database(s) store stale features: run aot-runner refresh-features",
                            stale_databases));
  }
}

}  // namespace

void register_refresh_features(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "refresh-features",
      "Recompute the shape features stored in results databases after a features change (no GPU)");
  cmd->footer(R"(A database stores each shape's features next to its timings; the fitter and emit read
them from there. After editing kernels/<k>/<k>_features.cpp (which is outside the kernel source
hash, since features never change a timing), this rewrites them from each shape's spec with this
build's code, leaving timings untouched, and writes a database only when something changed. Then
run 'aot-runner emit'. verify fails while stored features differ from the code's.
Examples:
  aot-runner refresh-features -k causal_trailing_mean && aot-runner emit
  aot-runner refresh-features --check   # exit 1 if any database is stale, write nothing)");
  auto o = std::make_shared<RefreshOptions>();
  cmd->add_option("-k,--kernel", o->kernels, "Kernel(s) to refresh (default: every kernel of the manifest)")
      ->delimiter(',');
  cmd->add_option("--arch", o->archs, "Architecture(s), e.g. sm90 (default: every architecture of the manifest)")
      ->delimiter(',');
  cmd->add_option("--configs-dir,--configs", o->configs_dir, "Folder with manifest.json and <arch>/<kernel>.json")
      ->capture_default_str();
  cmd->add_flag("--check", o->check, "Only report; exit 1 when a database stores stale features");
  cmd->add_flag("--json", o->json,
                "Print [{\"database\", \"kernel\", \"arch\", \"shapes\", \"stale_shapes\", \"written\"}] on stdout");
  cmd->callback([o] {
    tuner::route_logs_to_stderr();
    run_refresh(*o);
  });
}

}  // namespace aotune::cli
