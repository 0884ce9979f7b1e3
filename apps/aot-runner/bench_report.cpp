#include "apps/aot-runner/bench_report.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>

#include "aotune/arch_fallback.h"
#include "aotune/explain.h"
#include "aotune/heuristic_store.h"
#include "heuristics/training_set.h"
#include "kernels/common/errors.h"

namespace aotune::cli {

namespace {

using heuristics::TrainingSet;

// The database's shapes that belong to the grid, in grid order.
tuner::ResultsDatabase restrict_to_grid(const tuner::ResultsDatabase& db,
                                        const tuner::ShapeGrid& grid, const std::string& db_path) {
  tuner::ResultsDatabase out = db;
  out.shapes.clear();
  std::size_t missing = 0;
  std::string first_missing;
  for (const tuner::GridShape& s : grid.shapes) {
    if (const tuner::ShapeResult* r = db.find(s.key)) {
      out.shapes.push_back(*r);
    } else if (missing++ == 0) {
      first_missing = s.key;
    }
  }
  if (missing > 0) {
    throw InvalidArgument(fmt::format(
        "{} lacks {} of the grid's {} shapes (first: {}); drop --db to measure them, or finish that "
        "database with `aot-runner tune --resume`",
        db_path, missing, grid.shapes.size(), first_missing));
  }
  return out;
}

// The heuristic's pick is an index in the kernel's config space as built, the database's cells are
// indexed by the configs it was tuned over: scoring one against the other needs the same list in
// the same order (a database tuned before the space grew read another config's cell for every pick
// past the change, and a pick it never measured scored as a miss).
void require_the_built_config_space(const TunableKernel& kernel, const TrainingSet& ts,
                                    const std::string& db_path) {
  const std::size_t built = kernel.num_configs(), tuned = ts.num_configs();
  for (std::size_t i = 0; i < std::max(built, tuned); ++i) {
    const std::string here = i < built ? kernel.config_id(i) : std::string("none");
    const std::string there = i < tuned ? ts.config_ids[i] : std::string("none");
    if (here == there) continue;
    throw InvalidArgument(fmt::format(
        "{} was tuned over {} {} configs, this build has {} (config {}: {} in the database, {} here); "
        "re-tune it (`aot-runner tune -k {} --force`) or score it with the build it was tuned with",
        db_path, tuned, kernel.name(), built, i, there, here, kernel.name()));
  }
}

// The config with the fewest shapes it cannot run, then the least summed log slowdown (fit's rule).
uint32_t best_single_config(const TrainingSet& ts) {
  uint32_t best = 0;
  std::pair<std::size_t, double> best_cost{std::numeric_limits<std::size_t>::max(), 0};
  for (uint32_t c = 0; c < ts.num_configs(); ++c) {
    std::pair<std::size_t, double> cost{0, 0};
    for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
      if (ts.ok(row, c)) {
        cost.second += std::log(ts.slowdown_at(row, c));
      } else {
        ++cost.first;
      }
    }
    if (cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

std::string cell_kind(heuristics::CellKind k) {
  switch (k) {
    case heuristics::CellKind::measured:
      return "measured";
    case heuristics::CellKind::unmeasured:
      return "unmeasured";
    case heuristics::CellKind::broken:
      return "broken";
    case heuristics::CellKind::illegal:
      return "illegal";
  }
  return "broken";
}

std::string number(double v, const char* format = "{:.4f}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(format), v) : std::string("inf");
}

// RFC 4180: quote fields holding a comma or a quote.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string spec_value(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

BenchReport evaluate_bench(const TunableKernel& kernel, const tuner::ShapeGrid& grid,
                           const tuner::ResultsDatabase& full_db, const std::string& db_path,
                           int arch) {
  if (full_db.kernel != kernel.name()) {
    throw InvalidArgument(fmt::format("{} holds kernel {}, the grid is for {}", db_path,
                                      full_db.kernel, kernel.name()));
  }
  const tuner::ResultsDatabase db = restrict_to_grid(full_db, grid, db_path);
  const TrainingSet ts = heuristics::training_set_from_database(db);
  require_the_built_config_space(kernel, ts, db_path);
  if (db.source_hash != kernel.source_hash()) {
    spdlog::warn("{} was tuned from other {} sources than this build's (source hash {:.12} there, {:.12} here): "
                 "its times are of those kernels; `aot-runner verify` names stale databases",
                 db_path, kernel.name(), db.source_hash, kernel.source_hash());
  }
  std::map<std::string, std::size_t> row_of;
  for (std::size_t i = 0; i < ts.num_shapes(); ++i) row_of[ts.shape_keys[i]] = i;

  BenchReport r;
  r.kernel = std::string(kernel.name());
  r.arch = db.arch;
  r.simulated = db.device.simulated;
  r.database = db_path;
  const auto store = dispatch::current_store();
  const dispatch::KernelHeuristic* h = store->for_device(kernel.name(), arch);
  r.heuristic_arch = h != nullptr ? arch_name(h->arch) : "none";
  const uint32_t single = best_single_config(ts);
  r.best_single_config = ts.config_ids.at(single);
  r.default_config = ts.config_ids.at(ts.default_config);
  std::vector<double> heuristic, best_single, default_config;
  for (const tuner::ShapeResult& s : db.shapes) {
    const auto row = row_of.find(s.key);
    if (row == row_of.end() || !s.best) {
      r.no_passing_config.push_back(s.key);
      continue;
    }
    const std::size_t i = row->second;
    // Features and legality from the kernel as built, exactly as a call would see them.
    const ProblemInfo info = kernel.describe(s.spec);
    const dispatch::Explanation e = dispatch::explain(*store, kernel, info, arch);
    BenchRow b;
    b.index = s.index;
    b.key = s.key;
    b.spec = s.spec;
    b.bytes_moved = s.bytes_moved;
    b.oracle_config = ts.config_ids[*s.best];
    b.oracle_us = s.cells[*s.best].timing.median_us;
    b.heuristic_config = e.config_id;
    const heuristics::CellKind kind = ts.kind_at(i, e.config);
    b.heuristic_cell = cell_kind(kind);
    b.heuristic_slowdown = ts.slowdown_at(i, e.config);
    if (kind == heuristics::CellKind::broken || kind == heuristics::CellKind::illegal) {
      b.heuristic_reason = s.cells.at(e.config).reason;
    }
    b.best_single_slowdown = ts.slowdown_at(i, single);
    b.default_slowdown = ts.slowdown_at(i, ts.default_config);
    heuristic.push_back(b.heuristic_slowdown);
    best_single.push_back(b.best_single_slowdown);
    default_config.push_back(b.default_slowdown);
    r.rows.push_back(std::move(b));
  }
  r.heuristic = heuristics::summarize_slowdowns(heuristic);
  std::vector<double> ran;
  std::copy_if(heuristic.begin(), heuristic.end(), std::back_inserter(ran),
               [](double v) { return std::isfinite(v); });
  r.heuristic_where_it_ran = heuristics::summarize_slowdowns(ran);
  r.best_single = heuristics::summarize_slowdowns(best_single);
  r.default_config_summary = heuristics::summarize_slowdowns(default_config);
  return r;
}

void print_bench_table(const BenchReport& r) {
  fmt::print("{} on {}{}: {} shapes, heuristic of {}, database {}\n", r.kernel, r.arch,
             r.simulated ? " [simulated device: the numbers say nothing about a GPU]" : "",
             r.rows.size(), r.heuristic_arch, r.database);
  fmt::print("{:>5} {:>10} {:>9} {:>9} {:>9}  {:<24} {}\n", "index", "oracle_us", "heuristic",
             "single", "default", "heuristic config", "shape");
  for (const BenchRow& b : r.rows) {
    const bool imputed = b.heuristic_cell == "unmeasured";
    const char* mark = imputed ? "*" : !b.heuristic_reason.empty() ? "!" : " ";
    fmt::print("{:>5} {:>10.2f} {:>9}{} {:>9} {:>9}  {:<24} {}\n", b.index, b.oracle_us,
               number(b.heuristic_slowdown, "{:.3f}"), mark,
               number(b.best_single_slowdown, "{:.3f}"), number(b.default_slowdown, "{:.3f}"),
               b.heuristic_config, b.key);
  }
  fmt::print("\n{:<44} {:>9} {:>9} {:>9}\n", "slowdown vs per-shape oracle", "geomean", "p95", "max");
  const std::pair<std::string, const heuristics::SlowdownSummary*> lines[] = {
      {"heuristic (" + r.heuristic_arch + ")", &r.heuristic},
      {"best single config (" + r.best_single_config + ")", &r.best_single},
      {"default config (" + r.default_config + ")", &r.default_config_summary}};
  for (const auto& [label, s] : lines) {
    fmt::print("{:<44} {:>9} {:>9} {:>9}\n", label, number(s->geomean), number(s->p95),
               number(s->max));
  }
  if (r.heuristic.misses > 0) {
    const std::string label = fmt::format("heuristic, the {} of {} shapes it ran on",
                                          r.heuristic_where_it_ran.shapes, r.rows.size());
    fmt::print("{:<44} {:>9} {:>9} {:>9}\n", label, number(r.heuristic_where_it_ran.geomean),
               number(r.heuristic_where_it_ran.p95), number(r.heuristic_where_it_ran.max));
  }
  const bool any_imputed = std::any_of(r.rows.begin(), r.rows.end(), [](const BenchRow& b) {
    return b.heuristic_cell == "unmeasured";
  });
  if (any_imputed) {
    fmt::print("* the heuristic's config was not timed on that shape (quick search): slowdown "
               "imputed as the worst measured there, at least 2x\n");
  }
  for (const BenchRow& b : r.rows) {
    if (b.heuristic_reason.empty()) continue;
    fmt::print("! index {}: the heuristic's {} is {} there ({}); the shape's best is {}\n", b.index,
               b.heuristic_config, b.heuristic_cell == "illegal" ? "illegal" : "a failed cell",
               b.heuristic_reason, b.oracle_config);
  }
  for (const std::string& key : r.no_passing_config) {
    fmt::print("no config passed its check on {}: left out\n", key);
  }
}

void write_bench_csv(const BenchReport& r, const std::string& path) {
  std::set<std::string> fields;
  for (const BenchRow& b : r.rows) {
    for (const auto& [k, v] : b.spec.items()) fields.insert(k);
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InvalidArgument("--csv " + path + ": cannot open it for writing");
  out << "kernel,arch,heuristic_arch,simulated,index,shape";
  for (const std::string& f : fields) out << ",shape." << f;
  out << ",bytes_moved,oracle_config,oracle_us,oracle_gbps,heuristic_config,heuristic_cell,"
         "heuristic_slowdown,best_single_config,best_single_slowdown,default_config,"
         "default_slowdown\n";
  for (const BenchRow& b : r.rows) {
    out << r.kernel << ',' << r.arch << ',' << r.heuristic_arch << ','
        << (r.simulated ? "true" : "false") << ',' << b.index << ',' << csv_field(b.key);
    for (const std::string& f : fields) {
      out << ',' << (b.spec.contains(f) ? csv_field(spec_value(b.spec[f])) : std::string());
    }
    out << ',' << fmt::format("{:.0f}", b.bytes_moved) << ',' << b.oracle_config << ','
        << fmt::format("{:.3f}", b.oracle_us) << ','
        << fmt::format("{:.1f}", b.bytes_moved / (b.oracle_us * 1e3)) << ',' << b.heuristic_config
        << ',' << b.heuristic_cell << ',' << number(b.heuristic_slowdown, "{:.5f}") << ','
        << r.best_single_config << ',' << number(b.best_single_slowdown, "{:.5f}") << ','
        << r.default_config << ',' << number(b.default_slowdown, "{:.5f}") << '\n';
  }
  if (!out.flush()) throw Error("--csv " + path + ": write failed");
}

nlohmann::ordered_json to_json(const BenchReport& r) {
  auto summary = [](const heuristics::SlowdownSummary& s, const std::string& config) {
    nlohmann::ordered_json j = heuristics::to_json(s);
    if (!config.empty()) j["config"] = config;
    return j;
  };
  nlohmann::ordered_json j;
  j["kernel"] = r.kernel;
  j["arch"] = r.arch;
  j["heuristic_arch"] = r.heuristic_arch;
  j["simulated"] = r.simulated;
  j["database"] = r.database;
  j["shapes"] = r.rows.size();
  j["heuristic"] = summary(r.heuristic, "");
  j["heuristic_where_it_ran"] = summary(r.heuristic_where_it_ran, "");
  j["heuristic_where_it_ran"]["shapes"] = r.heuristic_where_it_ran.shapes;
  j["best_single_config"] = summary(r.best_single, r.best_single_config);
  j["default_config"] = summary(r.default_config_summary, r.default_config);
  j["no_passing_config"] = r.no_passing_config;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const BenchRow& b : r.rows) {
    rows.push_back({{"index", b.index},
                    {"shape", b.key},
                    {"oracle_config", b.oracle_config},
                    {"oracle_us", b.oracle_us},
                    {"heuristic_config", b.heuristic_config},
                    {"heuristic_cell", b.heuristic_cell},
                    {"heuristic_reason", b.heuristic_reason},
                    {"heuristic_slowdown", heuristics::json_number(b.heuristic_slowdown)},
                    {"best_single_slowdown", heuristics::json_number(b.best_single_slowdown)},
                    {"default_slowdown", heuristics::json_number(b.default_slowdown)}});
  }
  j["rows"] = rows;
  return j;
}

}  // namespace aotune::cli
