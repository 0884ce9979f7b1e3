#include "tuner/kernel_state.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "kernels/common/errors.h"
#include "tuner/atomic_file.h"
#include "tuner/timing_protocol.h"

namespace aotune::tuner {

std::string crashes_path(const std::string& db_path) { return db_path + ".crashes"; }
std::string journal_path(const std::string& worker_db_path) { return worker_db_path + ".journal"; }

ResultsDatabase make_header(const TunableKernel& kernel, const DeviceSetup& setup,
                            const ShapeGrid& grid, const ShardSpec& shard, Effort effort) {
  ResultsDatabase db;
  db.kernel = std::string(kernel.name());
  db.arch = setup.info.arch();
  db.device = setup.info;
  db.source_hash = std::string(kernel.source_hash());
  db.protocol = to_json(setup.protocol, std::string(to_string(effort)));
  db.configs = config_entries(kernel);
  db.grid_shapes = static_cast<int64_t>(grid.shapes.size());
  db.grid_digest = grid.digest;
  if (shard.sharded()) db.shard = ShardInfo{shard.index, shard.count};
  return db;
}

namespace {

// Why `existing` cannot be continued by this sweep, phrased for the user; empty when it can.
std::string why_not_current(const ResultsDatabase& existing, const ResultsDatabase& header) {
  if (existing.kernel != header.kernel || existing.arch != header.arch) {
    return fmt::format("it holds {} on {}, not {} on {}", existing.kernel, existing.arch,
                       header.kernel, header.arch);
  }
  if (existing.source_hash != header.source_hash) return "it was tuned on an older kernel source";
  if (existing.shard != header.shard) return "it holds a different shard";
  const std::string diff = incompatibility(existing, header);
  if (diff.empty()) return "";
  // The one protocol field a user flips by a flag rather than by a number: say which flag.
  const auto inputs = [](const ResultsDatabase& db) {
    return db.protocol.value("inputs", std::string());
  };
  if (diff.starts_with("timing protocol") && inputs(existing) != inputs(header)) {
    const bool overlapped = inputs(existing) == kInputsOverlapped;
    return fmt::format("it differs in {} (it was tuned {} --overlap: pass {} to continue it)", diff,
                       overlapped ? "with" : "without", overlapped ? "--overlap" : "--no-overlap");
  }
  return "it differs in " + diff;
}

// A database of an earlier version of this grid whose every shape is still in it (shapes were
// added: new generators or values): re-indexes its shapes to the grid and takes the grid's digest,
// so a resume measures only the new shapes. Returns false, touching nothing, when it differs in
// anything else or a measured shape is no longer in the grid (`missing` then names one), since
// continuing would drop measurements.
bool adopt_grown_grid(ResultsDatabase& db, const ResultsDatabase& header, const ShapeGrid& grid,
                      std::string* missing) {
  if (db.grid_digest == header.grid_digest && db.grid_shapes == header.grid_shapes) return false;
  // Everything but the grid must match: compare with the new grid's fields in place (no copy of
  // the shapes), and put the old ones back if anything else differs or a shape is gone.
  std::string old_digest = std::exchange(db.grid_digest, header.grid_digest);
  const int64_t old_shapes = std::exchange(db.grid_shapes, header.grid_shapes);
  auto keep_old_grid = [&] {
    db.grid_digest = std::move(old_digest);
    db.grid_shapes = old_shapes;
    return false;
  };
  if (!why_not_current(db, header).empty()) return keep_old_grid();
  std::map<std::string, int64_t> index;
  for (const GridShape& s : grid.shapes) index.emplace(s.key, s.index);
  for (const ShapeResult& s : db.shapes) {
    if (!index.count(s.key)) {
      *missing = s.key;
      return keep_old_grid();
    }
  }
  for (ShapeResult& s : db.shapes) s.index = index.at(s.key);
  return true;
}

// Temporaries of this database's own files (itself, its worker pieces, journals, crash list) left
// by a process killed mid-write. Only called under the database's lock.
void remove_stale_temporaries(const std::string& db_path) {
  namespace fs = std::filesystem;
  const fs::path db(db_path);
  const std::string own = db.filename().string() + ".";
  const std::string stem = db.stem().string() + ".worker-";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(db.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if ((name.starts_with(own) || name.starts_with(stem)) &&
        name.find(".tmp.") != std::string::npos) {
      fs::remove(entry.path(), ec);
    }
  }
}

}  // namespace

std::size_t below_effort(const ResultsDatabase& db, Effort effort) {
  const auto below = [&](const ShapeResult& s) { return !meets_effort(s.search, effort); };
  return static_cast<std::size_t>(std::count_if(db.shapes.begin(), db.shapes.end(), below));
}

KernelState prepare_kernel(const TuneOptions& o, const DeviceSetup& setup, const ShardSpec& shard,
                           const TunableKernel& kernel, ShapeGrid grid) {
  KernelState st;
  st.kernel = &kernel;
  st.grid = std::move(grid);
  for (const GridShape& s : st.grid.shapes) {
    if (shard.holds(s.index)) st.mine.push_back(static_cast<std::size_t>(s.index));
  }
  st.db_path = database_path(o.out_dir, setup.info.arch(), std::string(kernel.name()), shard);
  st.lock = std::make_unique<FileLock>(st.db_path + ".lock", o.lock_timeout_seconds);
  remove_stale_temporaries(st.db_path);
  st.base = make_header(kernel, setup, st.grid, shard, o.effort);

  std::optional<ResultsDatabase> existing;
  std::vector<std::pair<std::string, ResultsDatabase>> pieces;
  try {
    existing = load_database(st.db_path);
    for (const std::string& path : find_worker_databases(st.db_path))
      pieces.emplace_back(path, *load_database(path));
  } catch (const InvalidArgument& e) {
    if (!o.force) throw;
    spdlog::warn("{}; --force: it will be replaced", e.what());
  }
  // Pieces of an interrupted multi-GPU run and their journals. The journals only served the
  // supervisor that died with that run (its workers are gone: we hold the lock they inherited); a
  // resume with fewer workers would otherwise leave them behind.
  for (const std::string& path : find_worker_databases(st.db_path)) st.leftovers.push_back(path);
  for (const std::string& path : find_worker_journals(st.db_path)) st.leftovers.push_back(path);
  if (o.force) {
    remove_file_if_exists(crashes_path(st.db_path));
    st.remaining = st.mine;
    return st;
  }

  const std::set<std::size_t> mine(st.mine.begin(), st.mine.end());
  auto fold = [&](const std::string& origin, ResultsDatabase db) {
    std::string missing;
    if (adopt_grown_grid(db, st.base, st.grid, &missing)) {
      spdlog::info(
          "{}: the grid grew to {} shapes; its {} measured shapes are all still in it and "
          "are kept",
          origin, st.grid.shapes.size(), db.shapes.size());
    }
    if (std::string why = why_not_current(db, st.base); !why.empty()) {
      if (!missing.empty()) {
        why += fmt::format(
            " and shape {} it measured is no longer in the grid (continuing would "
            "drop it)",
            missing);
      }
      // A killed `tune -k a,b --force` leaves b on its old database; --force on the whole list
      // would throw away a's finished shapes too, hence the per-kernel hint.
      throw InvalidArgument(
          fmt::format("{} cannot be continued: {}. Pass --force to re-tune from scratch (the file "
                      "is replaced; in a sweep of several kernels, `--kernel {} --force` restarts "
                      "only this one and the others can still --resume), or restore the setup it "
                      "was made with",
                      origin, why, kernel.name()));
    }
    // Features are outside the source hash (tuner/feature_refresh.h): shapes measured before a
    // features change take the grid's current ones, so old and new shapes agree.
    std::size_t refreshed = 0;
    for (ShapeResult& s : db.shapes) {
      if (!mine.count(static_cast<std::size_t>(s.index))) continue;
      const Features& now = st.grid.shapes[static_cast<std::size_t>(s.index)].info.features;
      if (s.features != now) {
        s.features = now;
        ++refreshed;
      }
      st.base.put(std::move(s));
    }
    if (refreshed > 0) {
      spdlog::info("{}: features of {} measured shapes refreshed from the current features code", origin,
                   refreshed);
    }
  };
  if (existing) fold(st.db_path, *existing);
  for (const auto& [path, db] : pieces) fold(path, db);
  st.measured_before = st.base.shapes.size();
  for (std::size_t i : st.mine) {
    const ShapeResult* found = st.base.find(st.grid.shapes[i].key);
    if (found == nullptr) {
      st.remaining.push_back(i);
    } else if (o.resume && !meets_effort(found->search, o.effort)) {
      // Searched less than asked because an earlier budget ran short: measured again, and its
      // result stays in the database until the new one replaces it.
      st.remaining.push_back(i);
      st.remeasure.push_back(found->key);
    }
  }
  if (!st.remeasure.empty()) {
    spdlog::info("{}: {} shapes were searched less than --effort {} asks (a budget ran short); "
                 "--resume measures them again, keeping their results until replaced",
                 st.db_path, st.remeasure.size(), to_string(o.effort));
  }
  const bool anything = existing.has_value() || !pieces.empty();
  if (anything && !o.resume) {
    if (st.remaining.empty() && pieces.empty()) {
      if (const std::size_t below = below_effort(st.base, o.effort); below > 0) {
        spdlog::info("{}: {} shapes were searched quick to fit an earlier budget; --resume "
                     "times them in full",
                     st.db_path, below);
      }
      st.up_to_date = true;
      return st;
    }
    throw InvalidArgument(fmt::format(
        "{} is incomplete ({} of {} shapes measured{}): pass --resume to continue, or "
        "--force to start over",
        st.db_path, st.measured_before, st.mine.size(),
        pieces.empty() ? "" : ", some in worker files of an interrupted multi-GPU run"));
  }
  st.crashes = load_crash_records(crashes_path(st.db_path));
  return st;
}

}  // namespace aotune::tuner
