// `aot-runner emit`: fit every kernel of every architecture in configs/manifest.json and write
// heuristics/generated/heuristic_<arch>.h (and with --json, heuristic_<arch>.json for
// AOTUNE_HEURISTIC_DIR). Files whose content is unchanged are not touched.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>

#include "apps/aot-runner/commands.h"
#include "codegen/emit.h"
#include "kernels/common/errors.h"

namespace aotune::cli {

namespace {

struct EmitArgs {
  std::string arch = "all";
  codegen::EmitOptions options;
  bool json = false;
};

// Simulated timings must never reach the committed headers.
void refuse_simulated_into_repository(const codegen::EmitOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path out = fs::weakly_canonical(o.out_dir, ec);
  const fs::path repo_generated = fs::weakly_canonical("heuristics/generated", ec);
  // Any checkout's heuristics/generated counts, not only the one under the current directory.
  const bool into_generated = out.filename() == "generated" && out.parent_path().filename() == "heuristics";
  if (o.allow_simulated && (out == repo_generated || into_generated)) {
    throw InvalidArgument(
        "--allow-simulated writes headers fitted on the cost model: pass --out DIR outside "
        "heuristics/generated");
  }
}

// heuristic_archs.h includes every manifest architecture's header: one never emitted breaks the
// build.
void warn_about_missing_headers(const codegen::EmitOptions& o) {
  const codegen::Manifest manifest = codegen::load_manifest(o.configs_dir + "/manifest.json");
  for (const std::string& arch : manifest.architectures) {
    const std::string header = o.out_dir + "/heuristic_" + arch + ".h";
    if (!std::filesystem::exists(header)) {
      spdlog::warn(
          "{} does not exist yet but heuristic_archs.h includes it: run aot-runner emit --arch {}",
          header, arch);
    }
  }
}

}  // namespace

void register_emit(CLI::App& app) {
  auto args = std::make_shared<EmitArgs>();
  auto* cmd = app.add_subcommand(
      "emit", "Fit and write the generated heuristic headers (and JSON) for each architecture");
  cmd->footer(
      "Example: aot-runner emit --arch all --json out/heuristics\n"
      "Kernels without a real results database get empty tables: dispatch runs their default "
      "config.");
  cmd->add_option("--arch", args->arch, "An architecture of configs/manifest.json, or all")
      ->capture_default_str();
  cmd->add_option("--json", args->options.json_dir,
                  "Also write heuristic_<arch>.json into this folder");
  cmd->add_option("--configs", args->options.configs_dir,
                  "Folder with manifest.json and <arch>/<kernel>.json")
      ->capture_default_str();
  cmd->add_option("--out", args->options.out_dir, "Folder for the headers")->capture_default_str();
  cmd->add_option("--max-configs", args->options.fit.cv.subset.max_configs,
                  "Cap on the configs a heuristic keeps: cross-validation picks the size among 8, 12 and the cap (those not above it)")
      ->capture_default_str();
  cmd->add_flag(
      "--allow-simulated", args->options.allow_simulated,
      "Fit simulated-device databases too (tests only; refused for heuristics/generated)");
  cmd->add_flag("--report-json", args->json, "Print what was written as JSON");
  cmd->callback([args] {
    codegen::EmitOptions options = args->options;
    if (args->arch != "all") options.archs = {args->arch};
    refuse_simulated_into_repository(options);
    const std::vector<codegen::GeneratedFile> files = codegen::generate_files(options);
    const std::vector<codegen::WriteOutcome> outcomes = codegen::write_if_changed(files);
    nlohmann::ordered_json report = nlohmann::ordered_json::array();
    for (const auto& o : outcomes) {
      report.push_back({{"path", o.path}, {"changed", o.changed}});
      if (!args->json) fmt::print("{} {}\n", o.changed ? "wrote    " : "unchanged", o.path);
    }
    if (args->json) fmt::print("{}\n", report.dump(2));
    warn_about_missing_headers(options);
  });
}

}  // namespace aotune::cli
