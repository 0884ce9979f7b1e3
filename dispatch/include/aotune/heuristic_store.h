// The heuristics the dispatch library can use: those compiled in from heuristics/generated/, with
// any in $AOTUNE_HEURISTIC_DIR (heuristic_<arch>.json files written by `aot-runner emit --json`)
// taking their place without recompiling. A file that cannot be used is a warning, and the
// compiled heuristic stays.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heuristics/tree_node.h"

namespace aotune::dispatch {

// One kernel's heuristic for one architecture, checked against the kernel as built (features,
// config space) before it is ever used.
struct KernelHeuristic {
  std::string kernel;
  int arch = 0;        // e.g. 90
  std::string source;  // "compiled" or the JSON file it came from
  std::vector<std::string> features;
  std::vector<std::string> config_ids;      // per table position
  std::vector<uint32_t> configs;            // table position -> index in the kernel's config space
  std::vector<heuristics::TreeNode> nodes;  // never empty
  std::vector<uint16_t> leaf_configs;
  std::vector<uint16_t> fallback;
  // A forest when roots is not empty (heuristics/tree_node.h, HeuristicView): each tree's first
  // node in `nodes`, and the leaves' predicted costs, configs.size() per leaf.
  std::vector<int32_t> roots;
  std::vector<uint16_t> leaf_values;  // 16-bit costs (heuristics/tree_node.h, leaf_cost())
  // Set by the HeuristicStore that holds it, unique in the process (never reused, even after the
  // store is gone): the key of the dispatch library's per-thread forest memo. 0: not in a store.
  uint64_t uid = 0;

  heuristics::HeuristicView view() const;
};

class HeuristicStore {
 public:
  HeuristicStore() = default;
  // Exactly these heuristics; a later one for the same kernel and architecture replaces an earlier
  // one.
  explicit HeuristicStore(std::vector<KernelHeuristic> heuristics);

  // `base` (normally compiled_heuristics()) overridden by the files in `override_dir` (none when
  // empty). `warnings` carries problems met building `base`.
  static std::shared_ptr<const HeuristicStore> load(const std::string& override_dir,
                                                    std::vector<KernelHeuristic> base,
                                                    std::vector<std::string> warnings = {});

  const KernelHeuristic* find(std::string_view kernel, int arch) const;
  // Architectures the kernel has a heuristic for, newest first.
  std::vector<int> tuned_archs(std::string_view kernel) const;
  // The heuristic a device of `device_arch` uses (see arch_fallback.h); null: the default config.
  const KernelHeuristic* for_device(std::string_view kernel, int device_arch) const;
  // Problems met while loading (each also logged once as a warning).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<KernelHeuristic> heuristics_;  // by kernel, then architecture newest first
  std::vector<std::string> warnings_;
};

// Compiled heuristics only, each checked against its kernel (a mismatch is a warning and drops it).
std::vector<KernelHeuristic> compiled_heuristics(std::vector<std::string>* warnings);

// The heuristics of one heuristic_<arch>.json, checked. Throws InvalidArgument naming the file and
// the problem.
std::vector<KernelHeuristic> load_heuristic_file(const std::string& path);

// The process-wide store: compiled + $AOTUNE_HEURISTIC_DIR, loaded on first use. Thread-safe.
std::shared_ptr<const HeuristicStore> current_store();
// Re-reads $AOTUNE_HEURISTIC_DIR (e.g. after writing new files there).
void reload_heuristics();

}  // namespace aotune::dispatch
