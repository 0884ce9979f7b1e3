// The two rules a heuristic takes from outside its database, both on jagged_sum / jagged_mean:
// a bandwidth bound on configs that reduce each row inside one thread block or warp (block_row,
// group_row and flat_row), and nnz_split passed over where most rows are empty (below).
//
// Such a config cannot finish before its longest row has streamed through the threads it gives
// a row. How fast that can go depends on the bytes those threads keep in flight: the fastest any
// config moved one row in the session-19 sm90 databases was 37 GB/s for block_row (32 KB in
// flight per row: 512 threads x 16 bytes x 4 loads), 30 GB/s for group_row (M x element size x
// slots x 4 loads: 1.8 per microsecond of its bytes in flight at best) and 4.5 GB/s for
// flat_row (lanes x 4 vectors of 16 bytes: 0.56 per microsecond). block_row's best per byte in
// flight, over every block_row cell of jagged_sum's sm90 database and test set (session 53),
// is 2.42 per microsecond (2 KB in flight moving 4.9 GB/s). The bound takes a generous rate:
// kInFlightPerUs = 5 per microsecond of the bytes in flight, for every row config, capped at
// 100 GB/s (block_row had the flat 100 GB/s until session 53, which let a 128-thread block with
// 2 KB in flight take a 496 KB row at 11x the best; see the RowBound tests). When the longest row
// alone at that rate outlasts the whole problem at the copy ceiling plus a launch, the config is
// passed over. The rate was 8 in sessions 53-54; 5 (session 55) also passes over block_row on a
// row of 50-500 KB among few or short others, where each lane's 4 loads in flight make a chain
// of dependent round trips (jagged_sum B=2 M=299 f16, a row of 115 x 299 values, 69 KB: 36 us
// for every block_row config, 1.9 GB/s, against nnz_split's 11.6). Scored without a GPU on the
// committed databases (PERF.md, Session 55), 5 improves fit's cross-validated score of both
// kernels and all four test sets; 4 and below change more grid picks for the worse. The
// bound's reference, the whole problem at the copy ceiling plus 5 us, is below the best time
// of many small shapes, so at 5 some near-best cells are passed over: of the block_row cells it
// passes over in jagged_sum's database, 9 of 1922 are within 1.25x of their shape's best
// (docs/wip/row_bound_cells.py; 1 of 1658 at 8), and none of them is the forest's pick there.
//
// jagged_mean's feature counts can leave the longest row's columns unread (a count of 0 costs
// nothing), which the features cannot see; the bound then passes over a row config that would
// have been fast (57 of the 2529 block_row cells it passes over in jagged_mean's database are
// within 1.25x; 27 of 2219 at 8). The fitter's scoring routes as the dispatch library does, so
// the trees and their held-out scores include that cost, and both test sets still improved with
// it (PERF.md, Sessions 53 and 55).
//
// The trees cannot learn this where the grid has no such shape: the peer benchmark's one_huge
// (B=2048 M=256 bf16, one 200000-element row of 102 MB among 2047 rows of about 1560) fell in a
// leaf learnt from long uniform rows and got block_row.t512 at 5.4 ms, against 0.57 ms for
// nnz_split; and a held-out B=64 M=16 len<=8192 f32 (rows of 512 KB) got group_row.t128.v1.s2
// at 73x its best (session 19, fit draw 6: 512 bytes in flight per row, where the earlier
// one-rate bound, 100 GB/s for every config, let it through). So the fitter's scoring
// (route()), the dispatch library and `explain` all pass over such configs when the bound holds
// and any other legal config exists. Header-only: the dispatch library uses it without the
// fitting code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "heuristics/tree_node.h"

namespace aotune::heuristics {

inline constexpr double kOneBlockBytesPerUs = 100e3;  // 100 GB/s
inline constexpr double kInFlightPerUs = 5.0;  // a row config's rate per byte in flight, per us
inline constexpr double kCopyCeilingBytesPerUs = 4.3e6;  // the H200's copy ceiling (BENCH.md)
inline constexpr double kLaunchUs = 5.0;

// Whether some of `kernel`'s configs hold a row in one block (the only kernels the bound concerns).
inline bool has_row_per_block_configs(std::string_view kernel) {
  return kernel == "jagged_sum" || kernel == "jagged_mean";
}

// Whether config `id` of `kernel` is one of those: block_row (a block per row), group_row and
// flat_row (a group of lanes, up to a whole block, per row). nnz_split, flat_scan and flat_split
// spread rows over blocks.
inline bool reduces_each_row_in_one_block(std::string_view kernel, std::string_view id) {
  return has_row_per_block_configs(kernel) &&
         (id.starts_with("block_row.") || id.starts_with("group_row.") || id.starts_with("flat_row."));
}

// The whole problem at the copy ceiling plus a launch: what the longest row is held against.
inline double ideal_us(double log2_bytes) { return std::exp2(log2_bytes) / kCopyCeilingBytesPerUs + kLaunchUs; }

// The slowest rate row_rate_bytes_per_us() gives any config at this M: group_row with one slot,
// flat_row with two lanes.
inline double slowest_row_rate_bytes_per_us(double m, double elem_bytes) {
  return std::min({kOneBlockBytesPerUs, kInFlightPerUs * m * elem_bytes * 4, kInFlightPerUs * 2 * 16.0 * 4});
}

// The bound at the slowest rate, on the jagged_reduce features (kernels/jagged_reduce,
// features()): false means no config is past it, so the dispatch library looks no further.
inline bool longest_row_past_bound(double max_row_elems, double elem_bytes, double log2_bytes, double m) {
  return max_row_elems * elem_bytes / slowest_row_rate_bytes_per_us(m, elem_bytes) > ideal_us(log2_bytes);
}

// The second rule, on the other side: nnz_split where most rows are empty. Its blocks take
// chunks of values entries, and an empty row's zeros are written by the chunk holding the row's
// start position (kernels/jagged_reduce/jagged_reduce_kernels.cuh, nnz_split_kernel), so where
// there are fewer values rows than output rows the empty rows' outputs fall to the few blocks
// at the few positions where rows start: jagged_mean B=4691 M=441 bf16 with 32 values rows (one
// row) took 1036 us in nnz_split.t256.v1.ca against 15.7 us for block_row.t128.v1 (66x, the
// worst held-out pick of session 57's cross-validation). Over the eight sm90 jagged databases
// (both grids and the three test sets, 3138 shapes), where nnz < B / 2 (kNnzSplitMinAvgLen)
// nnz_split's best is never within 1.13x of the shape's best and reaches 554x; at 0.5 <= nnz / B
// < 1 it is sometimes the best (PERF.md, Session 57). So nnz_split is passed over there, as a
// row config past the row bound.
inline constexpr double kNnzSplitMinAvgLen = 0.5;

inline bool mostly_empty_rows(double nnz, double b) { return b > 0 && nnz >= 0 && nnz < kNnzSplitMinAvgLen * b; }

// The features the bounds read, looked up by name: `at(i)` gives the i-th (name, value) of n.
// No allocation: the dispatch library reads them on every jagged call.
struct RowBoundFeatures {
  double max_row_elems = -1, elem_bytes = -1, log2_bytes = -1, m = -1, b = -1, nnz = -1;
  bool known() const { return max_row_elems >= 0 && elem_bytes > 0 && log2_bytes >= 0 && m > 0; }
};

template <typename At>
RowBoundFeatures row_bound_features_at(std::size_t n, At&& at) {
  RowBoundFeatures f;
  for (std::size_t i = 0; i < n; ++i) {
    const auto [name, value] = at(i);
    if (name == "max_row_elems") f.max_row_elems = value;
    if (name == "elem_bytes") f.elem_bytes = value;
    if (name == "log2_bytes") f.log2_bytes = value;
    if (name == "M") f.m = value;
    if (name == "B") f.b = value;
    if (name == "nnz") f.nnz = value;
  }
  return f;
}

// Whether either bound may pass over a config of this problem (longest_row_past_bound() or
// mostly_empty_rows()) on a feature list; false for a kernel the bounds spare.
template <typename At>
bool longest_row_past_bound_at(std::string_view kernel, std::size_t n, At&& at) {
  if (!has_row_per_block_configs(kernel)) return false;
  const RowBoundFeatures f = row_bound_features_at(n, at);
  return (f.known() && longest_row_past_bound(f.max_row_elems, f.elem_bytes, f.log2_bytes, f.m)) ||
         mostly_empty_rows(f.nnz, f.b);
}

// On parallel name and value lists (the fitter's training set).
inline bool longest_row_past_bound(std::string_view kernel, const std::vector<std::string>& names,
                                   const double* values) {
  return longest_row_past_bound_at(kernel, names.size(), [&](std::size_t i) {
    return std::pair<std::string_view, double>(names[i], values[i]);
  });
}

// On a (name, value) list, as ProblemInfo and the dispatch library hold features.
inline bool longest_row_past_bound(std::string_view kernel,
                                   const std::vector<std::pair<std::string, double>>& features) {
  return longest_row_past_bound_at(kernel, features.size(), [&](std::size_t i) {
    return std::pair<std::string_view, double>(features[i].first, features[i].second);
  });
}

// The number after ".<key>" in a config id ("group_row.t128.v2.s16": 's' -> 16), 0 if absent.
inline int config_id_field(std::string_view id, char key) {
  for (std::size_t p = id.find('.'); p != std::string_view::npos; p = id.find('.', p + 1)) {
    if (p + 1 >= id.size() || id[p + 1] != key) continue;
    int v = 0;
    for (std::size_t i = p + 2; i < id.size() && id[i] >= '0' && id[i] <= '9'; ++i) v = v * 10 + (id[i] - '0');
    return v;
  }
  return 0;
}

// The widest vector block_row's auto width ("va") can take at this M: the largest of 8, 4, 2
// elements within 16 bytes that divides M (jagged_reduce_config.cpp, resolve(); alignment can
// only narrow it, and a narrower vector keeps fewer bytes in flight, so this is the generous one).
inline int widest_block_row_vec(double m, double elem_bytes) {
  for (int v : {8, 4, 2}) {
    if (v * elem_bytes <= 16 && std::fmod(m, v) == 0) return v;
  }
  return 1;
}

// The bytes block_row config `id` keeps in flight on one row: blockDim / tx rows of lanes (tx =
// the column lanes, a power of two up to the threads; jagged_reduce_launch_impl.cuh), each lane
// 4 loads of its vector, over every column tile of the row.
inline double block_row_bytes_in_flight(std::string_view id, double m, double elem_bytes) {
  const int threads = std::max(32, config_id_field(id, 't'));
  const int vec_field = config_id_field(id, 'v');
  const int vec = vec_field > 0 ? vec_field : widest_block_row_vec(m, elem_bytes);
  const double lanes = std::ceil(m / vec);
  double tx = 1;
  while (tx < threads && tx < lanes) tx *= 2;
  return threads / tx * 4 * lanes * vec * elem_bytes;
}

// Bytes per microsecond config `id` of `kernel` streams through one row at best, generously (see
// the top of this file); 0 for a config that spreads rows over blocks, which the bound spares.
inline double row_rate_bytes_per_us(std::string_view kernel, std::string_view id, double m, double elem_bytes) {
  if (!reduces_each_row_in_one_block(kernel, id)) return 0;
  // At least 1 slot / 2 lanes, as supports() allows, so slowest_row_rate_bytes_per_us() holds.
  double in_flight = 0;
  if (id.starts_with("block_row.")) {
    in_flight = block_row_bytes_in_flight(id, m, elem_bytes);
  } else if (id.starts_with("group_row.")) {
    in_flight = std::max(1, config_id_field(id, 's')) * m * elem_bytes * 4;  // every column's lanes, slots x 4 loads
  } else {  // flat_row
    in_flight = std::max(2, config_id_field(id, 's')) * 16.0 * 4;  // lanes x 4 vectors of 16 bytes
  }
  return std::min(kOneBlockBytesPerUs, kInFlightPerUs * in_flight);
}

// Which rule, if any, passes over config `id` of `kernel` on these features.
enum class PassedOver {
  no,
  slow_row,            // its longest row alone, at its rate, outlasts the whole problem at the copy
                       // ceiling plus a launch (implies longest_row_past_bound(): no config's rate
                       // is below the slowest, which the dispatch library checks first)
  mostly_empty_rows,   // nnz_split where most rows are empty (mostly_empty_rows())
};

inline PassedOver row_bound_rule(std::string_view kernel, std::string_view id, const RowBoundFeatures& f) {
  if (has_row_per_block_configs(kernel) && id.starts_with("nnz_split.") && mostly_empty_rows(f.nnz, f.b)) {
    return PassedOver::mostly_empty_rows;
  }
  if (!f.known()) return PassedOver::no;
  const double rate = row_rate_bytes_per_us(kernel, id, f.m, f.elem_bytes);
  return rate > 0 && f.max_row_elems * f.elem_bytes / rate > ideal_us(f.log2_bytes) ? PassedOver::slow_row
                                                                                    : PassedOver::no;
}

// Whether either rule passes over config `id` (row_bound_rule()).
inline bool config_past_row_bound(std::string_view kernel, std::string_view id, const RowBoundFeatures& f) {
  return row_bound_rule(kernel, id, f) != PassedOver::no;
}

// The features the bound reads, read once for the many configs a walk may check: from a (name,
// value) list, as ProblemInfo and the dispatch library hold them, or from parallel name and value
// lists (the fitter's training set).
inline RowBoundFeatures row_bound_features(const std::vector<std::pair<std::string, double>>& features) {
  return row_bound_features_at(features.size(), [&](std::size_t i) {
    return std::pair<std::string_view, double>(features[i].first, features[i].second);
  });
}

inline RowBoundFeatures row_bound_features(const std::vector<std::string>& names, const double* values) {
  return row_bound_features_at(names.size(), [&](std::size_t i) {
    return std::pair<std::string_view, double>(names[i], values[i]);
  });
}

inline bool config_past_row_bound(std::string_view kernel, std::string_view id,
                                  const std::vector<std::pair<std::string, double>>& features) {
  return config_past_row_bound(kernel, id, row_bound_features(features));
}

// choose_config(), passing over the configs `avoid` names while any other legal choice exists.
template <typename IsLegal, typename Avoid>
Choice choose_config_avoiding(const HeuristicView& h, const double* features, uint32_t default_config,
                              uint32_t space_size, IsLegal&& legal, Avoid&& avoid,
                              const int64_t* known_costs = nullptr) {
  const Choice c = choose_config(
      h, features, default_config, space_size, [&](uint32_t i) { return legal(i) && !avoid(i); }, known_costs);
  return c.source == ChoiceSource::none
             ? choose_config(h, features, default_config, space_size, legal, known_costs)
             : c;
}

}  // namespace aotune::heuristics
