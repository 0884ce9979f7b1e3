#include "tuner/shape_grid.h"

#include <fmt/core.h>

#include <set>
#include <unordered_set>

#include "kernels/common/errors.h"
#include "tuner/atomic_file.h"
#include "tuner/stable_hash.h"

namespace aotune::tuner {

namespace {

using ordered_json = nlohmann::ordered_json;

const std::set<std::string> kReserved = {"seed", "min_bytes", "max_bytes", "comment"};

struct Generator {
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> fields;
  uint64_t seed = 0;
  double min_bytes = 0;
  double max_bytes = 1e300;
};

Generator parse_generator(const ordered_json& g, const std::string& where) {
  if (!g.is_object()) throw InvalidArgument(where + " must be a JSON object, got " + g.dump());
  Generator gen;
  for (auto it = g.begin(); it != g.end(); ++it) {
    const std::string& name = it.key();
    if (kReserved.count(name)) continue;
    std::vector<nlohmann::json> values;
    if (it->is_array()) {
      if (it->empty()) throw InvalidArgument(where + ": field '" + name + "' is an empty list");
      for (const auto& v : *it) values.push_back(nlohmann::json::parse(v.dump()));
    } else {
      values.push_back(nlohmann::json::parse(it->dump()));
    }
    gen.fields.emplace_back(name, std::move(values));
  }
  if (g.contains("seed")) {
    if (!g["seed"].is_number_integer() || g["seed"].get<int64_t>() < 0) {
      throw InvalidArgument(where + ": 'seed' must be a non-negative integer, got " +
                            g["seed"].dump());
    }
    gen.seed = g["seed"].get<uint64_t>();
  }
  for (const char* bound : {"min_bytes", "max_bytes"}) {
    if (!g.contains(bound)) continue;
    if (!g[bound].is_number()) throw InvalidArgument(where + ": '" + bound + "' must be a number");
    (std::string(bound) == "min_bytes" ? gen.min_bytes : gen.max_bytes) = g[bound].get<double>();
  }
  return gen;
}

// Every combination of the generator's fields, first field outermost.
std::vector<nlohmann::json> combinations(const Generator& gen) {
  std::vector<nlohmann::json> out = {nlohmann::json::object()};
  for (const auto& [name, values] : gen.fields) {
    std::vector<nlohmann::json> next;
    next.reserve(out.size() * values.size());
    for (const auto& partial : out) {
      for (const auto& v : values) {
        nlohmann::json spec = partial;
        spec[name] = v;
        next.push_back(std::move(spec));
      }
    }
    out = std::move(next);
  }
  return out;
}

nlohmann::json without_seed(nlohmann::json spec) {
  spec.erase("seed");
  return spec;
}

}  // namespace

std::string shape_key(const nlohmann::json& spec) {
  std::string key;
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    if (!key.empty()) key += ',';
    key += it.key() + "=" + (it->is_string() ? it->get<std::string>() : it->dump());
  }
  return key;
}

std::string grid_path(const std::string& grid_dir, const std::string& kernel) {
  return grid_dir + "/" + kernel + ".json";
}

ShapeGrid expand_shape_grid(const ordered_json& doc, const TunableKernel& kernel,
                            const std::string& origin) {
  const std::string name(kernel.name());
  if (!doc.is_object() || !doc.contains("generators") || !doc["generators"].is_array()) {
    throw InvalidArgument(origin + ": a shape grid is {\"kernel\": ..., \"generators\": [...]}");
  }
  if (doc.value("kernel", std::string()) != name) {
    throw InvalidArgument(origin + ": grid is for kernel '" +
                          doc.value("kernel", std::string("?")) + "', expected '" + name + "'");
  }
  ShapeGrid grid;
  grid.kernel = name;
  std::unordered_set<std::string> seen;  // keys without the seed: same problem, same shape
  uint64_t digest = fnv1a64(name);
  for (std::size_t g = 0; g < doc["generators"].size(); ++g) {
    const std::string where = fmt::format("{}: generator {}", origin, g);
    const Generator gen = parse_generator(doc["generators"][g], where);
    for (const nlohmann::json& combo : combinations(gen)) {
      try {
        // Normalise first, so a spelled-out default does not change the seed or the identity.
        const std::string base_key = shape_key(without_seed(kernel.describe(combo).shape));
        if (seen.count(base_key)) continue;
        nlohmann::json spec = combo;
        spec["seed"] = mix64(fnv1a64(base_key) ^ mix64(gen.seed)) & 0x7fffffffull;
        GridShape shape;
        shape.info = kernel.describe(spec);
        if (shape.info.bytes_moved < gen.min_bytes || shape.info.bytes_moved > gen.max_bytes)
          continue;
        seen.insert(base_key);
        shape.spec = shape.info.shape;
        shape.key = shape_key(shape.spec);
        shape.index = static_cast<int64_t>(grid.shapes.size());
        digest = fnv1a64(shape.key + "\n", digest);
        grid.shapes.push_back(std::move(shape));
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(where + ", shape " + combo.dump() + ": " + e.what());
      }
    }
  }
  grid.digest = hex64(digest);
  return grid;
}

ShapeGrid load_shape_grid(const std::string& path, const TunableKernel& kernel) {
  const auto text = read_file_if_exists(path);
  if (!text) {
    throw InvalidArgument(
        "no shape grid for kernel '" + std::string(kernel.name()) + "' at " + path +
        ": write one (format in tuner/shape_grid.h) or point --grid-dir at its folder");
  }
  ordered_json doc;
  try {
    doc = ordered_json::parse(*text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InvalidArgument(path + " is not valid JSON: " + e.what());
  }
  return expand_shape_grid(doc, kernel, path);
}

}  // namespace aotune::tuner
