#include "aotune/heuristic_store.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "dispatch/src/library_log.h"
#include "kernels/common/errors.h"

namespace aotune::dispatch {

namespace fs = std::filesystem;

heuristics::HeuristicView KernelHeuristic::view() const {
  heuristics::HeuristicView v = heuristics::make_view(nodes, leaf_configs, fallback, configs);
  if (!roots.empty()) {
    v.roots = roots.data();
    v.num_trees = static_cast<int32_t>(roots.size());
    v.leaf_values = leaf_values.data();
  }
  return v;
}

HeuristicStore::HeuristicStore(std::vector<KernelHeuristic> heuristics) {
  // Later entries replace earlier ones: overrides are appended after the compiled heuristics.
  std::map<std::pair<std::string, int>, std::size_t> latest;
  for (std::size_t i = 0; i < heuristics.size(); ++i)
    latest[{heuristics[i].kernel, heuristics[i].arch}] = i;
  for (const auto& [key, i] : latest) heuristics_.push_back(std::move(heuristics[i]));
  std::stable_sort(heuristics_.begin(), heuristics_.end(),
                   [](const KernelHeuristic& a, const KernelHeuristic& b) {
                     return a.kernel != b.kernel ? a.kernel < b.kernel : a.arch > b.arch;
                   });
  // A process-wide count, so a heuristic of a reloaded store never shares a uid with one of an
  // earlier store at the same address.
  static std::atomic<uint64_t> next_uid{1};
  for (KernelHeuristic& h : heuristics_) h.uid = next_uid.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<const HeuristicStore> HeuristicStore::load(const std::string& override_dir,
                                                           std::vector<KernelHeuristic> base,
                                                           std::vector<std::string> warnings) {
  std::vector<KernelHeuristic> all = std::move(base);
  if (!override_dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(override_dir, ec)) {
      warnings.push_back("AOTUNE_HEURISTIC_DIR=" + override_dir +
                         " is not a directory; the compiled heuristics stay");
    } else {
      std::vector<std::string> files;
      for (const auto& entry : fs::directory_iterator(override_dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with("heuristic_") && name.ends_with(".json"))
          files.push_back(entry.path().string());
      }
      std::sort(files.begin(), files.end());
      for (const std::string& file : files) {
        try {
          std::vector<KernelHeuristic> loaded = load_heuristic_file(file);
          for (KernelHeuristic& h : loaded) all.push_back(std::move(h));
        } catch (const Error& e) {
          warnings.push_back(std::string(e.what()) + "; the compiled heuristics stay");
        }
      }
    }
  }
  auto store = std::make_shared<HeuristicStore>(std::move(all));
  for (const std::string& w : warnings) library_log().warn("aotune: {}", w);
  store->warnings_ = std::move(warnings);
  return store;
}

const KernelHeuristic* HeuristicStore::find(std::string_view kernel, int arch) const {
  for (const KernelHeuristic& h : heuristics_) {
    if (h.kernel == kernel && h.arch == arch) return &h;
  }
  return nullptr;
}

std::vector<int> HeuristicStore::tuned_archs(std::string_view kernel) const {
  std::vector<int> archs;
  for (const KernelHeuristic& h : heuristics_) {
    if (h.kernel == kernel) archs.push_back(h.arch);
  }
  return archs;
}

const KernelHeuristic* HeuristicStore::for_device(std::string_view kernel, int device_arch) const {
  // Newest first within a kernel, so the first one not newer than the device is the nearest.
  for (const KernelHeuristic& h : heuristics_) {
    if (h.kernel == kernel && h.arch <= device_arch) return &h;
  }
  return nullptr;
}

namespace {

std::mutex store_mutex;
std::shared_ptr<const HeuristicStore> store;

std::shared_ptr<const HeuristicStore> load_from_environment() {
  const char* dir = std::getenv("AOTUNE_HEURISTIC_DIR");
  std::vector<std::string> warnings;
  std::vector<KernelHeuristic> compiled = compiled_heuristics(&warnings);
  return HeuristicStore::load(dir ? dir : "", std::move(compiled), std::move(warnings));
}

}  // namespace

std::shared_ptr<const HeuristicStore> current_store() {
  const std::lock_guard lock(store_mutex);
  if (!store) store = load_from_environment();
  return store;
}

void reload_heuristics() {
  auto fresh = load_from_environment();
  const std::lock_guard lock(store_mutex);
  store = std::move(fresh);
}

}  // namespace aotune::dispatch
