// Per kernel: host validation, features and config choice for one call, without launching. The
// public entry points add workspace and launch; benchmarks and tests time and inspect this part.
#pragma once

#include <cstdint>
#include <string_view>

#include "aotune/heuristic_store.h"
#include "dispatch/src/select_config.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::dispatch {

// Each validates the problem first (throws InvalidArgument naming the problem and the value).
Selection select_jagged_reduce(const HeuristicStore& store, const jagged_reduce::Problem& p,
                               int64_t max_len, int device_arch);
Selection select_jagged_dense_add(const HeuristicStore& store, const jagged_dense_add::Problem& p,
                                  int device_arch);
Selection select_causal_trailing_mean(const HeuristicStore& store,
                                      const causal_trailing_mean::Problem& p, int device_arch);

// The same for a problem already validated, with the features *_call_features gave for it. The
// entry points validate before their first CUDA call (so a bad call fails the same way with or
// without a GPU) and then choose with these, so no call is validated twice.
Selection select_jagged_reduce(const HeuristicStore& store, const jagged_reduce::Problem& p,
                               const Features& features, int device_arch);
Selection select_jagged_dense_add(const HeuristicStore& store, const jagged_dense_add::Problem& p,
                                  const Features& features, int device_arch);
Selection select_causal_trailing_mean(const HeuristicStore& store,
                                      const causal_trailing_mean::Problem& p,
                                      const Features& features, int device_arch);

// The features the entry points compute for one call (after validating it, which throws
// InvalidArgument naming the problem): the caller's max_len, or the mean row length rounded up.
// `explain` uses them for a call given by its exact sizes.
Features jagged_reduce_call_features(const jagged_reduce::Problem& p, int64_t max_len);
Features jagged_dense_add_call_features(const jagged_dense_add::Problem& p);
Features causal_trailing_mean_call_features(const causal_trailing_mean::Problem& p);

// The kernel whose heuristic chooses for a jagged_sum / jagged_mean call. jagged_mean without
// feature counts does jagged_sum's work (every column of every row, the same loads and adds; only
// the stores scale by 1/len), so jagged_sum's heuristic, fitted on exactly those timings, chooses
// for it. jagged_mean's own was fitted on random feature counts (masked columns skipped): on
// jagged_sum's timings, grid points held out, it picks 1.052x the best against jagged_sum's
// 1.043x, max 2.4-4.1x against 1.6-2.1x (docs/PERF.md, Session 40).
const char* jagged_reduce_heuristic(jagged_reduce::Op op, bool has_feature_counts);

// The longest row for the features: max_len when known, else the mean row length rounded up.
// Throws InvalidArgument when max_len is neither -1 nor in [ceil(nnz / B), nnz] (the longest row
// is at least the mean one), or when nnz > 0 elements are given B = 0 rows.
int64_t feature_max_len(std::string_view op, int64_t max_len, int64_t B, int64_t nnz);

}  // namespace aotune::dispatch
