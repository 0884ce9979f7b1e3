// The results database of one kernel on one architecture: device identity, kernel source hash,
// protocol, config list, and the full shapes x configs timing matrix (DESIGN.md). Saved with a
// stable key order and shapes in grid order, so equal content is equal bytes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/common/tunable_kernel.h"
#include "tuner/cell.h"
#include "tuner/device_info.h"

namespace aotune::tuner {

inline constexpr const char* kResultsFormat = "aotune-results/1";

struct ShapeResult {
  int64_t index = 0;    // position in the grid
  std::string key;      // shape_key(spec)
  nlohmann::json spec;  // normalised shape spec
  Features features;
  double bytes_moved = 0;
  std::string search;       // how its configs were chosen: exhaustive | quick | none | crashed
  std::vector<Cell> cells;  // one per config, in config-space order
  std::optional<std::size_t> best;  // fastest ok config; none when no config passed
};

struct ShardInfo {
  int index = 0;
  int count = 1;
  friend bool operator==(const ShardInfo&, const ShardInfo&) = default;
};

struct ConfigEntry {
  std::string id;
  nlohmann::json config;
};

struct ResultsDatabase {
  std::string kernel;
  std::string arch;
  DeviceInfo device;
  std::string source_hash;
  nlohmann::ordered_json protocol;
  std::vector<ConfigEntry> configs;
  int64_t grid_shapes = 0;  // shapes in the whole grid (a shard holds a slice of them)
  std::string grid_digest;
  std::optional<ShardInfo> shard;
  std::vector<ShapeResult> shapes;  // sorted by index

  const ShapeResult* find(const std::string& key) const;
  // Inserts or replaces by key, keeping grid order.
  void put(ShapeResult shape);
};

// The config list of a kernel as databases record it.
std::vector<ConfigEntry> config_entries(const TunableKernel& kernel);

nlohmann::ordered_json to_json(const ShapeResult& shape);
nlohmann::ordered_json to_json(const ResultsDatabase& db);

// Printed shapes by key. A sweep rewrites its database after every shape; printing each shape once
// keeps that linear instead of quadratic. Only for shapes that do not change once printed.
using ShapeTextCache = std::unordered_map<std::string, std::string>;

std::string serialize(const ResultsDatabase& db, ShapeTextCache* cache = nullptr);
// Throws InvalidArgument "<origin>: <what is wrong>" for text that is not a complete database.
ResultsDatabase parse_database(const std::string& text, const std::string& origin);
// nullopt when the file does not exist; throws as parse_database otherwise.
std::optional<ResultsDatabase> load_database(const std::string& path);
// Atomic: temporary in the same folder, fsync, rename.
void save_database(const std::string& path, const ResultsDatabase& db,
                   ShapeTextCache* cache = nullptr);

// Empty when `a` and `b` can hold parts of one sweep (same kernel, arch, device, source hash,
// protocol, configs and grid); else what differs, for an error message.
std::string incompatibility(const ResultsDatabase& a, const ResultsDatabase& b);

}  // namespace aotune::tuner
