// A shape given as one call's exact sizes (`--shape B=2048,M=256,nnz=3376000,max_len=200000`)
// rather than as a grid spec with a length distribution: the features and legality the dispatch
// library computes for that call, so `explain` can show the config a real call gets.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "kernels/common/tunable_kernel.h"

namespace aotune::cli {

// Whether `spec` is in the call form (it has "nnz").
bool is_call_shape(const nlohmann::json& spec);

// The kernel whose heuristic the dispatch library asks for this shape: `kernel`'s own, except for
// a jagged_mean call without feature counts (fc=none), which takes jagged_sum's
// (dispatch::jagged_reduce_heuristic).
std::string heuristic_kernel(const TunableKernel& kernel, const nlohmann::json& spec);

// Whether `kernel` takes the call form besides its grid shape (the jagged kernels, whose grid
// shape gives a mean row length `len` where a call gives `nnz`).
bool has_call_form(const TunableKernel& kernel);

// The call's ProblemInfo, as the aotune::ops entry point of `kernel` sees it: features from the
// same features() (max_len -1 or absent: the mean row length rounded up, as dispatch does) and
// each config's legality for 256-byte-aligned buffers (what cudaMalloc returns). Keys:
// jagged_sum / jagged_mean: B, M, nnz, max_len, dtype (f32), index (i64), and for jagged_mean fc
// (given, the default, or none: the call passes no feature counts); jagged_dense_add: B, N, nnz,
// max_len, dtype, index. Throws InvalidArgument naming a missing, unknown or bad key or
// value, or a kernel without this form. bytes_moved is left 0 (explain does not use it).
ProblemInfo call_problem_info(const TunableKernel& kernel, const nlohmann::json& spec);

}  // namespace aotune::cli
