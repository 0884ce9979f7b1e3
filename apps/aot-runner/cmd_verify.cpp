// `aot-runner verify`: the CI assertion, no GPU needed. The committed tuning must be complete and
// current: a database per (manifest architecture, kernel), real (not simulated), tuned against the
// kernel source in this tree, with a measurement for every grid shape and the features this build
// computes; trees that send no training shape to an illegal config; generated headers equal to
// what `emit` writes now. --tuning-only stops after the databases: the last two checks refit every
// heuristic (a cross-validated emit, minutes), which a caller asking only about the databases or
// the source hashes (the CliVerifyKernelEdit tests) need not pay for.
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/aot-runner/commands.h"
#include "apps/aot-runner/kernel_source_hash.h"
#include "codegen/emit.h"
#include "codegen/manifest.h"
#include "heuristics/heuristic.h"
#include "heuristics/training_set.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "source_hash/kernel_source_hashes.h"
#include "tuner/cache_check.h"
#include "tuner/feature_refresh.h"
#include "tuner/results_database.h"
#include "tuner/shape_grid.h"
#include "tuner/shard.h"

namespace aotune::cli {

namespace {

struct Problem {
  std::string kernel, arch, what, fix;
};

struct VerifyOptions {
  std::string configs_dir = "configs";
  std::string grid_dir = "configs/grids";
  std::string generated_dir = "heuristics/generated";
  // Empty: the kernel source hashes compiled into this binary. Else the tree whose kernels/ is hashed
  // now (as cmake/SourceHash.cmake does), and the default root of the three folders above.
  std::string source_root;
  bool json = false;
  bool tuning_only = false;  // skip the refit: no route or generated-header check
  std::size_t max_listed = 20;  // shapes listed per (kernel, arch) before "... and N more"
};

std::string read_file(const std::string& path, bool* exists) {
  std::ifstream in(path, std::ios::binary);
  *exists = static_cast<bool>(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The source hash each kernel has in the tree being verified.
std::map<std::string, std::string> tree_source_hashes(const VerifyOptions& o) {
  std::map<std::string, std::string> out;
  if (o.source_root.empty()) {
    for (const TunableKernel* k : all_kernels()) out[std::string(k->name())] = k->source_hash();
    return out;
  }
  const auto folders = source_hash::hash_kernel_folders(o.source_root);
  for (const TunableKernel* k : all_kernels()) {
    out[std::string(k->name())] = folders.at(kernel_folder(o.source_root, k->name()));
  }
  return out;
}

void check_tuning(const VerifyOptions& o, const std::string& arch, const TunableKernel& kernel,
                  const std::string& tree_hash, std::vector<Problem>& problems) {
  const std::string name(kernel.name());
  const std::string db_path = tuner::database_path(o.configs_dir, arch, name, tuner::ShardSpec{});
  const std::string retune = fmt::format("on a {} GPU: aot-runner tune -k {} --force, then aot-runner emit", arch, name);
  const auto db = tuner::load_database(db_path);
  if (!db) {
    problems.push_back({name, arch, "no results database at " + db_path, retune});
    return;
  }
  if (db->device.simulated) {
    problems.push_back({name, arch, db_path + " comes from the simulated device, which is never real tuning", retune});
    return;
  }
  if (db->source_hash != tree_hash) {
    problems.push_back({name, arch,
                        fmt::format("kernel {} changed after tuning: {} was tuned against source {}, the tree has {}",
                                    name, db_path, db->source_hash.substr(0, 12), tree_hash.substr(0, 12)),
                        retune});
    return;
  }
  const tuner::ShapeGrid grid = tuner::load_shape_grid(tuner::grid_path(o.grid_dir, name), kernel);
  const auto misses = tuner::find_cache_misses(kernel, grid, tuner::ShardSpec{}, arch, db_path, false);
  for (std::size_t i = 0; i < misses.size() && i < o.max_listed; ++i) {
    problems.push_back({name, arch, fmt::format("cache miss: shape {} ({})", misses[i].shape_key, misses[i].reason),
                        fmt::format("on a {} GPU: aot-runner tune -k {} --resume, then aot-runner emit", arch, name)});
  }
  if (misses.size() > o.max_listed) {
    problems.push_back({name, arch, fmt::format("... and {} more cache misses", misses.size() - o.max_listed), ""});
  }
  // Features are outside the source hash (tuner/feature_refresh.h): compare them with this build's
  // features code instead.
  const auto stale = tuner::find_stale_features(kernel, *db);
  if (!stale.empty()) {
    problems.push_back({name, arch, tuner::describe_stale_features(stale, db->shapes.size(), db_path, name),
                        fmt::format("aot-runner refresh-features -k {} --arch {}, then aot-runner emit", name, arch)});
  }
}

void check_routes(const std::string& arch, const codegen::ArchHeuristics& heuristics, const VerifyOptions& o,
                  std::vector<Problem>& problems) {
  for (const auto& entry : heuristics.kernels) {
    if (!entry.tuned()) continue;
    const auto db = tuner::load_database(tuner::database_path(o.configs_dir, arch, entry.kernel, tuner::ShardSpec{}));
    if (!db) continue;  // reported by check_tuning
    const auto ts = heuristics::training_set_from_database(*db);
    for (const std::string& key : heuristics::unsound_training_routes(entry.model, ts)) {
      problems.push_back({entry.kernel, arch, "the tree routes training shape " + key + " to an illegal or failing config",
                          "aot-runner emit (refit), and report this as a bug if it persists"});
    }
  }
}

// Fills `built` with what emit fits now (empty when it cannot run), for check_routes.
void check_generated(const VerifyOptions& o, std::vector<Problem>& problems,
                     std::vector<codegen::ArchHeuristics>& built) {
  codegen::EmitOptions eo;
  eo.configs_dir = o.configs_dir;
  eo.out_dir = o.generated_dir;
  std::vector<codegen::GeneratedFile> files;
  try {
    files = codegen::generate_files(eo, &built);
  } catch (const InvalidArgument& e) {
    // A database emit cannot use (e.g. tuned with another config list): one more problem to list,
    // not a reason to hide the others.
    problems.push_back({"", "", std::string("emit cannot regenerate the headers: ") + e.what(),
                        "fix the problems above (re-tune the kernel it names), then aot-runner emit"});
    return;
  }
  for (const auto& file : files) {
    bool exists = false;
    const std::string committed = read_file(file.path, &exists);
    if (!exists) {
      problems.push_back({"", "", file.path + " is missing", "aot-runner emit, then commit it"});
    } else if (committed != file.content) {
      problems.push_back({"", "", file.path + " differs from what emit generates from the committed databases",
                          "aot-runner emit, then commit it (never edit generated files by hand)"});
    }
  }
}

int run_verify(const VerifyOptions& o) {
  const std::map<std::string, std::string> hashes = tree_source_hashes(o);
  const codegen::Manifest manifest = codegen::load_manifest(o.configs_dir + "/manifest.json");
  std::vector<Problem> problems;
  for (const TunableKernel* k : all_kernels()) {
    bool listed = false;
    for (const auto& name : manifest.kernels) listed = listed || name == k->name();
    if (!listed) {
      problems.push_back({std::string(k->name()), "", "registered kernel missing from " + o.configs_dir + "/manifest.json",
                          "add it to the manifest's \"kernels\" and tune it"});
    }
  }
  for (const auto& arch : manifest.architectures) {
    for (const auto& name : manifest.kernels) check_tuning(o, arch, find_kernel(name), hashes.at(std::string(find_kernel(name).name())), problems);
  }
  // One fit serves both checks below (the cross-validated fit is most of verify's time).
  if (!o.tuning_only) {
    const bool tuning_ok = problems.empty();
    std::vector<Problem> generated_problems;
    std::vector<codegen::ArchHeuristics> built;
    check_generated(o, generated_problems, built);
    if (tuning_ok) {
      for (const auto& h : built) check_routes(h.arch, h, o, problems);
    }
    problems.insert(problems.end(), generated_problems.begin(), generated_problems.end());
  }

  // The problems go to stderr in every mode (CI logs show them even with --json); stdout holds the
  // result: the JSON document, or the ok line.
  for (const auto& p : problems) {
    fmt::print(stderr, "verify: FAIL {}{}{}{}\n", p.kernel, p.arch.empty() ? "" : " " + p.arch,
               p.kernel.empty() && p.arch.empty() ? "" : ": ", p.what);
    if (!p.fix.empty()) fmt::print(stderr, "        fix: {}\n", p.fix);
  }
  if (!problems.empty()) fmt::print(stderr, "verify: {} problem(s)\n", problems.size());
  if (o.json) {
    nlohmann::ordered_json out = {{"ok", problems.empty()},
                                  {"headers_checked", !o.tuning_only},
                                  {"problems", nlohmann::json::array()}};
    out["source_hashes"] = hashes;
    out["source_hashes_from"] = o.source_root.empty() ? "binary" : o.source_root;
    for (const auto& p : problems) {
      out["problems"].push_back({{"kernel", p.kernel}, {"arch", p.arch}, {"problem", p.what}, {"fix", p.fix}});
    }
    fmt::print("{}\n", out.dump(2));
  } else if (problems.empty()) {
    fmt::print("verify: ok — {} kernels x {} architectures tuned, current and complete; {}\n",
               manifest.kernels.size(), manifest.architectures.size(),
               o.tuning_only ? "generated headers not checked (--tuning-only)" : "generated headers up to date");
  }
  return problems.empty() ? kOk : kFailure;
}

}  // namespace

void register_verify(CLI::App& app) {
  auto* cmd = app.add_subcommand("verify", "Check, without a GPU, that the committed tuning is complete and current");
  cmd->footer(
      "Fails (exit 1) naming kernel, architecture and shape, and the command that fixes it, when a manifest\n"
      "architecture lacks a database, a database was tuned against other kernel sources or on the simulated\n"
      "device, a grid shape has no measurement, stored shape features differ from this build's features\n"
      "code, a tree routes a training shape to an illegal config, or a generated header differs from\n"
      "what 'aot-runner emit' writes.\n"
      "Kernel source hashes are those compiled in (cmake/SourceHash.cmake at configure time), or with\n"
      "--source-root those of that tree now (features are always checked against this build's code).\n"
      "--tuning-only checks the databases alone, in seconds: no refit, so no route or header check.\n"
      "Examples: aot-runner verify --json\n"
      "          aot-runner verify --source-root /tmp/edited-checkout\n"
      "          aot-runner verify --tuning-only   # after tune --resume, before the minutes of emit");
  auto o = std::make_shared<VerifyOptions>();
  cmd->add_option("--configs-dir,--configs", o->configs_dir, "Folder with manifest.json and <arch>/<kernel>.json")->capture_default_str();
  cmd->add_option("--grid-dir", o->grid_dir, "Folder of the shape grids")->capture_default_str();
  cmd->add_option("--generated-dir", o->generated_dir, "Folder of the generated headers")->capture_default_str();
  auto* root = cmd->add_option("--source-root", o->source_root,
                  "Verify the checkout at DIR: hash its kernels/ now (no rebuild needed) and read its "
                  "configs/ and heuristics/generated/ unless given");
  cmd->add_flag("--json", o->json,
                "Print {\"ok\": ..., \"headers_checked\": ..., \"problems\": [...], \"source_hashes\": {...}} on stdout");
  cmd->add_flag("--tuning-only", o->tuning_only,
                "Check the databases only (present, real, current, complete, fresh features); skip refitting the "
                "heuristics, so neither the trees' routes nor the generated headers are checked");
  cmd->callback([o, root] {
    if (root->count() > 0) {
      if (!std::filesystem::is_directory(o->source_root)) {
        throw InvalidArgument("--source-root " + o->source_root + " is not a folder");
      }
      const VerifyOptions defaults;
      const std::string r = o->source_root + "/";
      if (o->configs_dir == defaults.configs_dir) o->configs_dir = r + defaults.configs_dir;
      if (o->grid_dir == defaults.grid_dir) o->grid_dir = r + defaults.grid_dir;
      if (o->generated_dir == defaults.generated_dir) o->generated_dir = r + defaults.generated_dir;
    }
    // Problems are printed above; Error makes main() exit with kFailure.
    if (run_verify(*o) != kOk) throw Error("verify failed: the committed tuning is incomplete or stale");
  });
}

}  // namespace aotune::cli
