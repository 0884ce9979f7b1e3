#include "tuner/merge.h"

#include <fmt/core.h>

#include <map>

#include "kernels/common/errors.h"

namespace aotune::tuner {

ResultsDatabase merge_databases(
    const std::vector<std::pair<std::string, ResultsDatabase>>& inputs) {
  if (inputs.empty()) throw InvalidArgument("nothing to merge: name at least one database");
  const auto& [first_origin, first] = inputs.front();
  ResultsDatabase out = first;
  out.shard.reset();
  out.shapes.clear();
  std::map<std::string, std::pair<std::string, nlohmann::ordered_json>>
      seen;  // key -> (origin, shape JSON)
  for (const auto& [origin, db] : inputs) {
    if (const std::string diff = incompatibility(first, db); !diff.empty()) {
      throw InvalidArgument(
          fmt::format("cannot merge {} and {}: they differ in {}; merge only the pieces of one "
                      "sweep (same device, kernel source, protocol and grid)",
                      first_origin, origin, diff));
    }
    for (const ShapeResult& s : db.shapes) {
      const nlohmann::ordered_json text = to_json(s);
      const auto [it, fresh] = seen.try_emplace(s.key, origin, text);
      if (fresh) {
        out.put(s);
      } else if (it->second.second != text) {
        throw InvalidArgument(
            fmt::format("{} and {} both hold shape '{}' with different results; they are not "
                        "pieces of one sweep (re-tune one of them)",
                        it->second.first, origin, s.key));
      }
    }
  }
  return out;
}

}  // namespace aotune::tuner
