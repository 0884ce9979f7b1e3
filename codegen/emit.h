// The emitter as a library: from configs/manifest.json and the results databases, fit every
// kernel of every architecture and render heuristic_<arch>.h (and .json). `aot-runner emit`
// writes the files; `verify` compares them with what is committed.
#pragma once

#include <string>
#include <vector>

#include "codegen/arch_heuristics.h"
#include "codegen/manifest.h"
#include "heuristics/fit.h"

namespace aotune::codegen {

struct EmitOptions {
  std::string configs_dir = "configs";           // manifest.json and <arch>/<kernel>.json
  std::string out_dir = "heuristics/generated";  // heuristic_<arch>.h and heuristic_archs.h
  std::string json_dir;                          // heuristic_<arch>.json when not empty
  std::vector<std::string> archs;                // empty: every architecture in the manifest
  // Simulated databases are never real tuning: without this their kernels get empty tables.
  bool allow_simulated = false;
  heuristics::FitOptions fit;
};

struct GeneratedFile {
  std::string path;
  std::string content;
};

// One architecture's content. Throws InvalidArgument when a database does not match the kernel
// it names (other kernel or architecture, config list or features that differ from the code now).
ArchHeuristics build_arch_heuristics(const std::string& arch, const Manifest& manifest,
                                     const EmitOptions& options);

// Every file emit would write, without writing anything. `built`, when given, receives each
// architecture's fitted content too (verify checks its routes without fitting a second time).
std::vector<GeneratedFile> generate_files(const EmitOptions& options,
                                          std::vector<ArchHeuristics>* built = nullptr);

struct WriteOutcome {
  std::string path;
  bool changed = false;  // false: the file already had this content and was not touched
};

// Writes each file whose content differs from what is on disk (atomically); leaves the others
// alone so their modification times, and builds depending on them, stay put.
std::vector<WriteOutcome> write_if_changed(const std::vector<GeneratedFile>& files);

}  // namespace aotune::codegen
