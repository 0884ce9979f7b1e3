#include "tuner/results_database.h"

#include <fmt/core.h>

#include <algorithm>

#include "kernels/common/errors.h"
#include "tuner/atomic_file.h"
#include "tuner/json_text.h"

namespace aotune::tuner {

namespace {

using ordered_json = nlohmann::ordered_json;

}  // namespace

ordered_json to_json(const ShapeResult& s) {
  ordered_json j;
  j["index"] = s.index;
  j["key"] = s.key;
  j["spec"] = to_ordered(s.spec);
  ordered_json features = ordered_json::object();
  for (const auto& [name, value] : s.features) features[name] = value;
  j["features"] = features;
  j["bytes_moved"] = s.bytes_moved;
  j["search"] = s.search;
  j["best"] = s.best ? ordered_json(*s.best) : ordered_json(nullptr);
  ordered_json cells = ordered_json::array();
  for (const Cell& c : s.cells) cells.push_back(to_json(c));
  j["cells"] = cells;
  return j;
}

namespace {

ShapeResult shape_from_json(const ordered_json& j, std::size_t num_configs) {
  ShapeResult s;
  s.index = j.at("index").get<int64_t>();
  s.key = j.at("key").get<std::string>();
  s.spec = to_sorted(j.at("spec"));
  for (auto it = j.at("features").begin(); it != j.at("features").end(); ++it) {
    s.features.emplace_back(it.key(), it->get<double>());
  }
  s.bytes_moved = j.at("bytes_moved").get<double>();
  s.search = j.at("search").get<std::string>();
  if (!j.at("best").is_null()) s.best = j.at("best").get<std::size_t>();
  for (const auto& c : j.at("cells")) s.cells.push_back(cell_from_json(c));
  if (s.cells.size() != num_configs) {
    throw InvalidArgument(
        fmt::format("shape '{}' has {} cells for {} configs", s.key, s.cells.size(), num_configs));
  }
  if (s.best && (*s.best >= num_configs || !s.cells[*s.best].ok())) {
    throw InvalidArgument(
        fmt::format("shape '{}' names best config {} whose cell is not ok", s.key, *s.best));
  }
  return s;
}

ResultsDatabase from_json(const ordered_json& j) {
  ResultsDatabase db;
  db.kernel = j.at("kernel").get<std::string>();
  db.arch = j.at("arch").get<std::string>();
  db.device = device_info_from_json(j.at("device"));
  db.source_hash = j.at("source_hash").get<std::string>();
  db.protocol = j.at("protocol");
  const auto& grid = j.at("grid");
  db.grid_shapes = grid.at("shapes").get<int64_t>();
  db.grid_digest = grid.at("digest").get<std::string>();
  if (j.contains("shard"))
    db.shard = ShardInfo{j["shard"].at("index").get<int>(), j["shard"].at("count").get<int>()};
  for (const auto& c : j.at("configs"))
    db.configs.push_back({c.at("id").get<std::string>(), to_sorted(c.at("config"))});
  for (const auto& s : j.at("shapes")) {
    ShapeResult shape = shape_from_json(s, db.configs.size());
    if (!db.shapes.empty() && shape.index <= db.shapes.back().index) {
      throw InvalidArgument(
          fmt::format("shapes are not in grid order at '{}' (index {})", shape.key, shape.index));
    }
    db.shapes.push_back(std::move(shape));
  }
  return db;
}

}  // namespace

const ShapeResult* ResultsDatabase::find(const std::string& key) const {
  for (const auto& s : shapes) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

void ResultsDatabase::put(ShapeResult shape) {
  std::erase_if(shapes, [&](const ShapeResult& s) { return s.key == shape.key; });
  const auto at = std::lower_bound(shapes.begin(), shapes.end(), shape.index,
                                   [](const ShapeResult& s, int64_t i) { return s.index < i; });
  shapes.insert(at, std::move(shape));
}

std::vector<ConfigEntry> config_entries(const TunableKernel& kernel) {
  std::vector<ConfigEntry> out;
  for (std::size_t i = 0; i < kernel.num_configs(); ++i)
    out.push_back({kernel.config_id(i), kernel.config_json(i)});
  return out;
}

ordered_json to_json(const ResultsDatabase& db) {
  ordered_json j;
  j["format"] = kResultsFormat;
  j["kernel"] = db.kernel;
  j["arch"] = db.arch;
  j["device"] = to_json(db.device);
  j["source_hash"] = db.source_hash;
  j["protocol"] = db.protocol;
  j["grid"] = {{"shapes", db.grid_shapes}, {"digest", db.grid_digest}};
  if (db.shard) j["shard"] = {{"index", db.shard->index}, {"count", db.shard->count}};
  ordered_json configs = ordered_json::array();
  for (std::size_t i = 0; i < db.configs.size(); ++i) {
    configs.push_back(
        {{"index", i}, {"id", db.configs[i].id}, {"config", to_ordered(db.configs[i].config)}});
  }
  j["configs"] = configs;
  ordered_json shapes = ordered_json::array();
  for (const auto& s : db.shapes) shapes.push_back(to_json(s));
  j["shapes"] = shapes;
  return j;
}

std::string serialize(const ResultsDatabase& db, ShapeTextCache* cache) {
  // Exactly what to_readable_json(to_json(db)) prints, with the shapes printed one by one: a
  // non-empty shapes array never fits on one line, so it is always expanded.
  ResultsDatabase header = db;
  header.shapes.clear();
  const ordered_json head = to_json(header);
  std::string out = "{\n";
  for (auto it = head.begin(); it != head.end(); ++it) {
    if (it.key() == "shapes") continue;
    out += "  " + ordered_json(it.key()).dump() + ": " + to_readable_json_at(*it, 1) + ",\n";
  }
  out += "  \"shapes\": ";
  if (db.shapes.empty()) return out + "[]\n}\n";
  out += "[\n";
  for (std::size_t i = 0; i < db.shapes.size(); ++i) {
    const ShapeResult& s = db.shapes[i];
    std::string fresh;
    const std::string* text = nullptr;
    if (cache != nullptr) {
      auto [it, inserted] = cache->try_emplace(s.key);
      if (inserted) it->second = to_readable_json_at(to_json(s), 2);
      text = &it->second;
    } else {
      fresh = to_readable_json_at(to_json(s), 2);
      text = &fresh;
    }
    out += "    " + *text + (i + 1 < db.shapes.size() ? ",\n" : "\n");
  }
  return out + "  ]\n}\n";
}

ResultsDatabase parse_database(const std::string& text, const std::string& origin) {
  const std::string keep =
      "; the file was left untouched (restore it, or re-tune over it with 'aot-runner tune --force')";
  ordered_json j;
  try {
    j = ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InvalidArgument(
        fmt::format("{} is not valid JSON ({} bytes; truncated or corrupt?): {}{}", origin,
                    text.size(), e.what(), keep));
  }
  if (!j.is_object() || !j.contains("format")) {
    throw InvalidArgument(origin + " is not an aotune results database (no \"format\" field)" +
                          keep);
  }
  if (j["format"] != kResultsFormat) {
    throw InvalidArgument(fmt::format("{} has format {}, expected \"{}\"{}", origin,
                                      j["format"].dump(), kResultsFormat, keep));
  }
  try {
    return from_json(j);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(origin + " is a malformed results database: " + e.what() + keep);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(origin + " is a malformed results database: " + e.what() + keep);
  }
}

std::optional<ResultsDatabase> load_database(const std::string& path) {
  const auto text = read_file_if_exists(path);
  if (!text) return std::nullopt;
  return parse_database(*text, path);
}

void save_database(const std::string& path, const ResultsDatabase& db, ShapeTextCache* cache) {
  write_file_atomically(path, serialize(db, cache));
}

namespace {

// "key a vs b" for each top-level key whose value differs ("absent" where one side lacks it), in
// a's key order then b's extra keys: the whole blocks are long and differ in one or two fields.
std::string json_object_difference(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  if (!a.is_object() || !b.is_object()) return a.dump() + " vs " + b.dump();
  std::string out;
  auto add = [&out](const std::string& key, const nlohmann::ordered_json* x, const nlohmann::ordered_json* y) {
    out += fmt::format("{}{} {} vs {}", out.empty() ? "" : ", ", key, x ? x->dump() : "absent",
                       y ? y->dump() : "absent");
  };
  for (const auto& [key, value] : a.items()) {
    const auto it = b.find(key);
    if (it == b.end()) {
      add(key, &value, nullptr);
    } else if (*it != value) {
      add(key, &value, &*it);
    }
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) add(key, nullptr, &value);
  }
  return out;
}

}  // namespace

std::string incompatibility(const ResultsDatabase& a, const ResultsDatabase& b) {
  if (a.kernel != b.kernel) return "kernel '" + a.kernel + "' vs '" + b.kernel + "'";
  if (a.arch != b.arch) return "architecture " + a.arch + " vs " + b.arch;
  if (const std::string d = describe_difference(a.device, b.device); !d.empty())
    return "device: " + d;
  if (a.source_hash != b.source_hash) {
    return "kernel source hash " + a.source_hash.substr(0, 12) + " vs " +
           b.source_hash.substr(0, 12);
  }
  if (a.protocol != b.protocol) return "timing protocol: " + json_object_difference(a.protocol, b.protocol);
  if (a.configs.size() != b.configs.size()) {
    return fmt::format("config lists of {} vs {} configs", a.configs.size(), b.configs.size());
  }
  for (std::size_t i = 0; i < a.configs.size(); ++i) {
    if (a.configs[i].id != b.configs[i].id || a.configs[i].config != b.configs[i].config) {
      return fmt::format("config {}: '{}' vs '{}'", i, a.configs[i].id, b.configs[i].id);
    }
  }
  if (a.grid_digest != b.grid_digest || a.grid_shapes != b.grid_shapes) {
    return fmt::format("shape grid {} ({} shapes) vs {} ({} shapes)", a.grid_digest, a.grid_shapes,
                       b.grid_digest, b.grid_shapes);
  }
  return {};
}

}  // namespace aotune::tuner
