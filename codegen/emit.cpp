#include "codegen/emit.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "codegen/header_writer.h"
#include "codegen/json_writer.h"
#include "codegen/sha256.h"
#include "heuristics/kernel_defaults.h"
#include "heuristics/kernel_features.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/atomic_file.h"
#include "tuner/feature_refresh.h"
#include "tuner/results_database.h"

namespace aotune::codegen {

namespace {

double rounded(double v) { return std::isfinite(v) ? std::round(v * 1e4) / 1e4 : v; }

heuristics::SlowdownSummary rounded(heuristics::SlowdownSummary s) {
  s.geomean = rounded(s.geomean);
  s.p95 = rounded(s.p95);
  s.max = rounded(s.max);
  return s;
}

void check_matches_kernel(const tuner::ResultsDatabase& db, const TunableKernel& kernel,
                          const std::string& arch, const std::string& path) {
  const std::string retune =
      fmt::format("re-tune: aot-runner tune --kernel {} on an {} GPU", kernel.name(), arch);
  if (db.kernel != kernel.name() || db.arch != arch) {
    throw InvalidArgument(fmt::format("{} holds kernel '{}' on '{}', expected '{}' on '{}'", path,
                                      db.kernel, db.arch, kernel.name(), arch));
  }
  bool same_configs = db.configs.size() == kernel.num_configs();
  for (std::size_t i = 0; same_configs && i < db.configs.size(); ++i)
    same_configs = db.configs[i].id == kernel.config_id(i);
  if (!same_configs) {
    throw InvalidArgument(
        fmt::format("{} lists {} configs that differ from the {} configs of {} now; {}", path,
                    db.configs.size(), kernel.num_configs(), kernel.name(), retune));
  }
  // Stored features feed the fit; a header fitted on features the dispatch code no longer computes
  // would route calls by the wrong numbers.
  if (const auto stale = tuner::find_stale_features(kernel, db); !stale.empty()) {
    throw InvalidArgument(fmt::format(
        "{}; refresh them (no GPU needed): aot-runner refresh-features -k {} --arch {}",
        tuner::describe_stale_features(stale, db.shapes.size(), path, kernel.name()), kernel.name(), arch));
  }
  if (db.source_hash != kernel.source_hash()) {
    spdlog::warn(
        "{} was tuned against kernel source {}, the tree has {}: its timings may be stale ({})",
        path, db.source_hash.substr(0, 16), std::string(kernel.source_hash()).substr(0, 16),
        retune);
  }
}

DatabaseIdentity identity_of(const tuner::ResultsDatabase& db, const std::string& text,
                             const std::string& path) {
  DatabaseIdentity id;
  id.path = path;
  id.sha256 = sha256_hex(text);
  id.device = db.device.name;
  id.compute_capability = db.device.compute_capability();
  id.sm_count = db.device.sm_count;
  id.simulated = db.device.simulated;
  id.source_hash = db.source_hash;
  return id;
}

void fill_from_fit(KernelEntry& entry, const tuner::ResultsDatabase& db,
                   const EmitOptions& options) {
  const heuristics::TrainingSet ts = heuristics::training_set_from_database(db);
  entry.database->shapes = ts.num_shapes();
  if (ts.num_shapes() == 0) {
    entry.note = "no shape in the database has a passing config";
    return;
  }
  const heuristics::FitResult fit = heuristics::fit_heuristic(ts, options.fit);
  entry.model = fit.model;
  for (const uint32_t c : fit.model.configs) {
    entry.config_ids.push_back(db.configs[c].id);
    entry.config_json.push_back(db.configs[c].config);
  }
  FitScores s;
  s.heldout = rounded(fit.heldout);
  s.best_single_geomean = rounded(fit.best_single.geomean);
  s.best_single_id = ts.config_ids[fit.best_single_config];
  s.default_geomean = rounded(fit.default_config.geomean);
  s.default_id = ts.config_ids[ts.default_config];
  s.folds = fit.heldout_detail.per_fold.size();
  s.max_depth = fit.params.max_depth;
  s.min_leaf = fit.params.min_leaf;
  s.tree_geomean = rounded(fit.heldout_tree.geomean);
  s.forest_geomean = fit.heldout_forest_repeats.empty() ? 0 : rounded(fit.heldout_forest.geomean);
  entry.scores = s;
}

KernelEntry build_kernel_entry(const TunableKernel& kernel, const std::string& arch,
                               const Manifest& manifest, const EmitOptions& options) {
  KernelEntry entry;
  entry.kernel = std::string(kernel.name());
  entry.default_config_id = std::string(heuristics::default_config_id(kernel.name()));
  entry.features = heuristics::current_feature_names(kernel);
  const std::string repo_path = fmt::format("configs/{}/{}.json", arch, kernel.name());
  if (std::find(manifest.kernels.begin(), manifest.kernels.end(), entry.kernel) ==
      manifest.kernels.end()) {
    entry.note = "not listed in configs/manifest.json";
    return entry;
  }
  const std::string path = fmt::format("{}/{}/{}.json", options.configs_dir, arch, kernel.name());
  const auto text = tuner::read_file_if_exists(path);
  if (!text) {
    entry.note = fmt::format("no results database {}", repo_path);
    return entry;
  }
  const tuner::ResultsDatabase db = tuner::parse_database(*text, path);
  check_matches_kernel(db, kernel, arch, path);
  entry.database = identity_of(db, *text, repo_path);
  if (db.device.simulated && !options.allow_simulated) {
    entry.note =
        fmt::format("{} comes from the simulated device, which is not real tuning", repo_path);
    return entry;
  }
  fill_from_fit(entry, db, options);
  return entry;
}

std::string path_in(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

}  // namespace

std::string emit_command(const std::string& arch) { return "aot-runner emit --arch " + arch; }

ArchHeuristics build_arch_heuristics(const std::string& arch, const Manifest& manifest,
                                     const EmitOptions& options) {
  ArchHeuristics h;
  h.arch = arch;
  for (const TunableKernel* kernel : all_kernels()) {
    h.kernels.push_back(build_kernel_entry(*kernel, arch, manifest, options));
  }
  return h;
}

std::vector<GeneratedFile> generate_files(const EmitOptions& options, std::vector<ArchHeuristics>* built) {
  const Manifest manifest = load_manifest(path_in(options.configs_dir, "manifest.json"));
  std::vector<std::string> archs = options.archs.empty() ? manifest.architectures : options.archs;
  for (const std::string& arch : archs) {
    if (std::find(manifest.architectures.begin(), manifest.architectures.end(), arch) ==
        manifest.architectures.end()) {
      throw InvalidArgument(fmt::format(
          "architecture '{}' is not in {}/manifest.json (it lists {}); add it there first", arch,
          options.configs_dir, fmt::join(manifest.architectures, ", ")));
    }
  }
  std::vector<GeneratedFile> files;
  for (const std::string& arch : archs) {
    ArchHeuristics h = build_arch_heuristics(arch, manifest, options);
    files.push_back({path_in(options.out_dir, "heuristic_" + arch + ".h"), render_header(h)});
    if (!options.json_dir.empty()) {
      files.push_back({path_in(options.json_dir, "heuristic_" + arch + ".json"), render_json(h)});
    }
    if (built != nullptr) built->push_back(std::move(h));
  }
  files.push_back(
      {path_in(options.out_dir, "heuristic_archs.h"), render_arch_index(manifest.architectures)});
  return files;
}

std::vector<WriteOutcome> write_if_changed(const std::vector<GeneratedFile>& files) {
  std::vector<WriteOutcome> outcomes;
  for (const GeneratedFile& f : files) {
    const auto existing = tuner::read_file_if_exists(f.path);
    const bool changed = !existing || *existing != f.content;
    if (changed) tuner::write_file_atomically(f.path, f.content);
    outcomes.push_back({f.path, changed});
  }
  return outcomes;
}

}  // namespace aotune::codegen
