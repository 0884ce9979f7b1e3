#include "tuner/feature_refresh.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace aotune::tuner {

namespace {

std::vector<std::string> names_of(const Features& f) {
  std::vector<std::string> names;
  for (const auto& [name, value] : f) names.push_back(name);
  return names;
}

// Features are doubles that went through the database's JSON text, which round-trips them exactly;
// the tolerance only absorbs a different but equivalent order of floating-point operations.
bool same_value(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-12 * std::max({1.0, std::abs(a), std::abs(b)});
}

// Empty when equal; else the first difference, for a person to read.
std::string difference(const Features& stored, const Features& now) {
  if (names_of(stored) != names_of(now)) {
    return fmt::format("the database has features [{}], the code computes [{}]",
                       fmt::join(names_of(stored), ", "), fmt::join(names_of(now), ", "));
  }
  for (std::size_t i = 0; i < now.size(); ++i) {
    if (!same_value(stored[i].second, now[i].second)) {
      return fmt::format("'{}' is {} in the database, {} now", now[i].first, stored[i].second,
                         now[i].second);
    }
  }
  return "";
}

}  // namespace

std::vector<StaleFeatures> find_stale_features(const TunableKernel& kernel, const ResultsDatabase& db) {
  std::vector<StaleFeatures> stale;
  for (const ShapeResult& s : db.shapes) {
    const Features now = kernel.describe(s.spec).features;
    if (std::string d = difference(s.features, now); !d.empty()) stale.push_back({s.key, std::move(d)});
  }
  return stale;
}

std::size_t refresh_features(const TunableKernel& kernel, ResultsDatabase& db) {
  std::size_t changed = 0;
  for (ShapeResult& s : db.shapes) {
    Features now = kernel.describe(s.spec).features;
    if (!difference(s.features, now).empty()) {
      s.features = std::move(now);
      ++changed;
    }
  }
  return changed;
}

std::string describe_stale_features(const std::vector<StaleFeatures>& stale, std::size_t shapes,
                                    const std::string& path, std::string_view kernel) {
  return fmt::format("{} of {} shapes of {} store features that differ from what {} computes now "
                     "(first: shape {}: {})",
                     stale.size(), shapes, path, kernel, stale.front().shape_key, stale.front().detail);
}

}  // namespace aotune::tuner
