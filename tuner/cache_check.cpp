#include "tuner/cache_check.h"

#include <fmt/core.h>

#include "kernels/common/errors.h"
#include "tuner/results_database.h"
#include "tuner/search.h"

namespace aotune::tuner {

std::vector<CacheMiss> find_cache_misses(const TunableKernel& kernel, const ShapeGrid& grid,
                                         const ShardSpec& shard, const std::string& arch,
                                         const std::string& db_path, bool accept_simulated) {
  const std::string name(kernel.name());
  std::vector<CacheMiss> misses;
  auto miss_all = [&](const std::string& reason) {
    for (const GridShape& s : grid.shapes) {
      if (shard.holds(s.index)) misses.push_back({name, arch, s.key, reason});
    }
    return misses;
  };
  std::optional<ResultsDatabase> db;
  try {
    db = load_database(db_path);
  } catch (const InvalidArgument& e) {
    return miss_all(std::string("database unreadable: ") + e.what());
  }
  if (!db) return miss_all("no results database at " + db_path);
  if (db->kernel != name || db->arch != arch) {
    return miss_all(fmt::format("{} holds {} on {}", db_path, db->kernel, db->arch));
  }
  if (db->device.simulated && !accept_simulated) {
    return miss_all(db_path + " holds simulated results, which are not tuning");
  }
  if (db->source_hash != kernel.source_hash()) {
    return miss_all(fmt::format("tuned on kernel source {}, the tree has {}",
                                db->source_hash.substr(0, 12),
                                std::string(kernel.source_hash()).substr(0, 12)));
  }
  const auto configs = config_entries(kernel);
  bool same_configs = configs.size() == db->configs.size();
  for (std::size_t i = 0; same_configs && i < configs.size(); ++i) {
    same_configs = configs[i].id == db->configs[i].id && configs[i].config == db->configs[i].config;
  }
  if (!same_configs) return miss_all("tuned with a different config list");
  // A shape searched less than the database's own effort was cut to quick by a budget: the
  // tuning is not finished (tune --resume times it in full). Databases before the field: full.
  const Effort effort = parse_effort(db->protocol.value("effort", std::string("full")));
  for (const GridShape& s : grid.shapes) {
    if (!shard.holds(s.index)) continue;
    const ShapeResult* found = db->find(s.key);
    if (found == nullptr) {
      misses.push_back({name, arch, s.key, "not measured"});
    } else if (!meets_effort(found->search, effort)) {
      misses.push_back({name, arch, s.key,
                        fmt::format("searched {} under a budget where the database asks for effort "
                                    "{}: tune --resume times it in full",
                                    found->search, to_string(effort))});
    }
  }
  return misses;
}

}  // namespace aotune::tuner
