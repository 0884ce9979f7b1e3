// aotune::ops::jagged_sum and aotune::ops::jagged_mean: validate, choose, launch.
#include <string>
#include <string_view>

#include "aotune/device.h"
#include "aotune/jagged_mean.h"
#include "aotune/jagged_sum.h"
#include "dispatch/src/kernel_selection.h"
#include "dispatch/src/workspace_cache.h"
#include "kernels/common/registry.h"

namespace aotune {

namespace dispatch {

int64_t feature_max_len(std::string_view op, int64_t max_len, int64_t B, int64_t nnz) {
  if (max_len < -1 || max_len > nnz) {
    throw InvalidArgument(std::string(op) + ": max_len=" + std::to_string(max_len) +
                          " must be -1 (unknown) or in [0, nnz=" + std::to_string(nnz) + "]");
  }
  // offsets[0] = 0 and offsets[B] = nnz: without rows there are no elements. (The kernels'
  // validate() cannot read offsets on the host; a kernel given nnz > 0 and B = 0 would search
  // row starts that are not there.)
  if (B == 0 && nnz > 0) {
    throw InvalidArgument(std::string(op) + ": nnz=" + std::to_string(nnz) +
                          " elements in B=0 rows (offsets[B] must equal nnz)");
  }
  // The longest row is at least the mean row: a smaller max_len describes no possible offsets
  // (nnz elements do not fit in B rows of it), and the heuristic would choose for a shape that
  // does not exist.
  const int64_t mean_row = B > 0 ? nnz / B + (nnz % B != 0) : 0;
  if (max_len >= 0 && max_len < mean_row) {
    throw InvalidArgument(std::string(op) + ": max_len=" + std::to_string(max_len) +
                          " is shorter than the mean row (nnz=" + std::to_string(nnz) + " over B=" +
                          std::to_string(B) + " rows needs one of at least " + std::to_string(mean_row) +
                          "); pass the longest row's length, or -1 when unknown");
  }
  if (max_len >= 0) return max_len;
  return mean_row;
}

const char* jagged_reduce_heuristic(jagged_reduce::Op op, bool has_feature_counts) {
  return op == jagged_reduce::Op::sum || !has_feature_counts ? "jagged_sum" : "jagged_mean";
}

Features jagged_reduce_call_features(const jagged_reduce::Problem& p, int64_t max_len) {
  jagged_reduce::validate(p);
  const int64_t longest = feature_max_len(p.op == jagged_reduce::Op::sum ? "jagged_sum" : "jagged_mean",
                                          max_len, p.B, p.nnz);
  return jagged_reduce::features(p.dtype, p.B, p.M, p.nnz, longest);
}

Selection select_jagged_reduce(const HeuristicStore& store, const jagged_reduce::Problem& p,
                               int64_t max_len, int device_arch) {
  return select_jagged_reduce(store, p, jagged_reduce_call_features(p, max_len), device_arch);
}

Selection select_jagged_reduce(const HeuristicStore& store, const jagged_reduce::Problem& p,
                               const Features& features, int device_arch) {
  const char* name = jagged_reduce_heuristic(p.op, p.feature_counts != nullptr);
  const bool sum = std::string_view(name) == "jagged_sum";
  static const uint32_t default_sum = default_config_index(find_kernel("jagged_sum"));
  static const uint32_t default_mean = default_config_index(find_kernel("jagged_mean"));
  const auto& space = jagged_reduce::config_space();
  return select_config(store, name, device_arch, features, sum ? default_sum : default_mean, static_cast<uint32_t>(space.size()),
                       [&](uint32_t i) { return jagged_reduce::supports(space[i], p).ok; });
}

}  // namespace dispatch

namespace {

void run(const jagged_reduce::Problem& p, int64_t max_len, cudaStream_t stream) {
  // Host checks first: a bad call fails the same way with or without a GPU.
  const Features features = dispatch::jagged_reduce_call_features(p, max_len);
  const int device = dispatch::current_device();
  const dispatch::Selection s = dispatch::select_jagged_reduce(
      *dispatch::current_store(), p, features, dispatch::device_arch(device));
  const jagged_reduce::Config& c = jagged_reduce::config_space()[s.config];
  // The lease keeps the scratch from being freed or replaced until the launch is enqueued.
  const dispatch::ScratchLease scratch =
      dispatch::workspace_for(device, stream, jagged_reduce::workspace_bytes(c, p));
  jagged_reduce::launch(c, p, scratch.get(), stream);
}

}  // namespace

void ops::jagged_sum(const void* values, const void* offsets, void* out, int64_t B, int64_t M,
                     int64_t nnz, int64_t max_len, DType dtype, IndexType index_type,
                     cudaStream_t stream) {
  run({.op = jagged_reduce::Op::sum, .B = B, .M = M, .nnz = nnz, .dtype = dtype, .index = index_type,
       .values = values, .offsets = offsets, .feature_counts = nullptr, .out = out},
      max_len, stream);
}

void ops::jagged_mean(const void* values, const void* offsets, const void* feature_counts,
                      void* out, int64_t B, int64_t M, int64_t nnz, int64_t max_len, DType dtype,
                      IndexType index_type, cudaStream_t stream) {
  run({.op = jagged_reduce::Op::mean, .B = B, .M = M, .nnz = nnz, .dtype = dtype, .index = index_type,
       .values = values, .offsets = offsets, .feature_counts = feature_counts, .out = out},
      max_len, stream);
}

}  // namespace aotune
