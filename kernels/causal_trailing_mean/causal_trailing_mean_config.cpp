// Config space, ids, JSON, legality and host-side validation of causal_trailing_mean.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_launch.h"
#include "kernels/common/errors.h"

namespace aotune::causal_trailing_mean {

namespace {

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::block: return "block";
    case Unit::warp: return "warp";
    case Unit::thread: return "thread";
    case Unit::flat: return "flat";
  }
  return "unknown";
}

Unit parse_unit(const std::string& s) {
  if (s == "block") return Unit::block;
  if (s == "warp") return Unit::warp;
  if (s == "thread") return Unit::thread;
  if (s == "flat") return Unit::flat;
  throw InvalidArgument("unknown causal_trailing_mean unit '" + s + "' (expected block, warp, thread or flat)");
}

std::string pointer_text(const void* p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

}  // namespace

const std::vector<Config>& config_space() {
  // Block units for long rows, warp units (several rows per block) for short ones; one-tile
  // segments give the most parallelism (few rows, long T), 16-tile segments re-read the least halo.
  // Persistent grids keep loads in flight across items (many short rows or segments).
  static const std::vector<Config> space = [] {
    std::vector<Config> s;
    for (bool persistent : {false, true})
      for (Unit unit : {Unit::block, Unit::warp})
        for (int threads : {128, 256})
          for (int vecs : {1, 2, 4})
            for (int seg_tiles : {1, 4, 16}) s.push_back({unit, threads, vecs, seg_tiles, persistent});
    // Appended (indices are database config numbers): one thread per output, for tiny problems.
    for (int threads : {128, 256}) s.push_back({Unit::thread, threads, 1, 1, false});
    // Appended: one thread per 16-byte vector of outputs over the flat array, for many short rows.
    for (int threads : {128, 256}) s.push_back({Unit::flat, threads, 1, 1, false});
    return s;
  }();
  return space;
}

std::string config_id(const Config& c) {
  if (detail::per_output_unit(c)) return std::string(unit_name(c.unit)) + ".t" + std::to_string(c.threads);
  return std::string(unit_name(c.unit)) + ".t" + std::to_string(c.threads) + ".v" +
         std::to_string(c.vecs) + ".s" + std::to_string(c.seg_tiles) + (c.persistent ? ".p" : "");
}

nlohmann::json to_json(const Config& c) {
  return {{"unit", unit_name(c.unit)},
          {"threads", c.threads},
          {"vecs", c.vecs},
          {"seg_tiles", c.seg_tiles},
          {"persistent", c.persistent}};
}

Config config_from_json(const nlohmann::json& j) {
  try {
    return {parse_unit(j.at("unit").get<std::string>()), j.at("threads").get<int>(),
            j.at("vecs").get<int>(), j.at("seg_tiles").get<int>(), j.value("persistent", false)};
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument("causal_trailing_mean config " + j.dump() + " is malformed: " + e.what());
  }
}

void validate(const Problem& p) {
  const std::string op = "causal_trailing_mean";
  if (p.B < 0) throw InvalidArgument(op + ": B must be >= 0, got " + std::to_string(p.B));
  if (p.D < 0) throw InvalidArgument(op + ": D must be >= 0, got " + std::to_string(p.D));
  if (p.T < 0) throw InvalidArgument(op + ": T must be >= 0, got " + std::to_string(p.T));
  if (p.cf < 1) throw InvalidArgument(op + ": window cf must be >= 1, got " + std::to_string(p.cf));
  int64_t rows = 0, elems = 0, bytes = 0;
  if (__builtin_mul_overflow(p.B, p.D, &rows) || __builtin_mul_overflow(rows, p.T, &elems) ||
      __builtin_mul_overflow(elems, static_cast<int64_t>(dtype_size(p.dtype)), &bytes)) {
    throw InvalidArgument(op + ": B*D*T elements of " + std::to_string(dtype_size(p.dtype)) +
                          " bytes overflow int64: B=" + std::to_string(p.B) +
                          ", D=" + std::to_string(p.D) + ", T=" + std::to_string(p.T));
  }
  if (elems == 0) return;
  if (p.x == nullptr) {
    throw InvalidArgument(op + ": x is a null pointer with B*D*T=" + std::to_string(elems));
  }
  if (p.out == nullptr) {
    throw InvalidArgument(op + ": out is a null pointer with B*D*T=" + std::to_string(elems));
  }
  const auto x0 = reinterpret_cast<std::uintptr_t>(p.x);
  const auto o0 = reinterpret_cast<std::uintptr_t>(p.out);
  const auto n = static_cast<std::uintptr_t>(bytes);
  if (x0 < o0 + n && o0 < x0 + n) {
    throw InvalidArgument(op + ": out=" + pointer_text(p.out) + " overlaps x=" + pointer_text(p.x) +
                          " (" + std::to_string(bytes) +
                          " bytes each); in place is not supported because windows re-read x");
  }
}

Legality supports(const Config& c, const Problem& p) {
  if (!detail::has_instance(c)) {
    return Legality::no("no compiled kernel for " + config_id(c) +
                        (detail::per_output_unit(c)
                             ? std::string(" (threads 128|256, vecs 1, seg_tiles 1)")
                             : " (threads 128|256, vecs 1|2|4, seg_tiles 1.." +
                                   std::to_string(detail::kMaxSegTiles) + ")"));
  }
  if (p.B == 0 || p.D == 0 || p.T == 0) return Legality::yes();  // nothing to launch
  if (detail::per_output_unit(c)) {
    if (!detail::per_output_takes(c.unit, p.cf, p.T, p.dtype)) {
      std::string reason = "window min(cf,T)=" + std::to_string(std::min(p.cf, p.T)) + " exceeds " +
                           std::to_string(detail::max_direct_window(c.unit)) + ", the most a " +
                           (c.unit == Unit::flat ? "flat" : "thread-per-output") + " config sums directly";
      if (c.unit == Unit::flat && p.cf >= p.T) {
        reason += ", and its prefix means take rows of at most " +
                  std::to_string(detail::max_flat_prefix_row(p.dtype)) + " " + std::string(to_string(p.dtype)) +
                  " elements (T=" + std::to_string(p.T) + ")";
      }
      return Legality::no(reason);
    }
    return Legality::yes();
  }
  const int64_t seg = detail::segment_length(c, p.T, p.dtype);
  const int64_t window = std::min(p.cf, p.T);
  if (!detail::always_legal(c) && seg < p.T && window > detail::kMaxHaloRatio * seg) {
    return Legality::no("halo of min(cf,T)=" + std::to_string(window) + " elements exceeds " +
                        std::to_string(detail::kMaxHaloRatio) + "x the segment length " +
                        std::to_string(seg) + " (redundant reads; longer segments win)");
  }
  return Legality::yes();
}

std::size_t workspace_bytes(const Config& /*c*/, const Problem& /*p*/) { return 0; }

}  // namespace aotune::causal_trailing_mean
