// aotune::ops::jagged_dense_add: validate, choose, launch.
#include <algorithm>

#include "aotune/device.h"
#include "aotune/jagged_dense_add.h"
#include "dispatch/src/kernel_selection.h"
#include "dispatch/src/workspace_cache.h"
#include "kernels/common/registry.h"

namespace aotune {

namespace dispatch {

Features jagged_dense_add_call_features(const jagged_dense_add::Problem& p) {
  jagged_dense_add::validate(p);
  const int64_t longest = std::min(p.N, feature_max_len("jagged_dense_add", p.max_len, p.B, p.nnz));
  return jagged_dense_add::features(p.dtype, p.B, p.N, p.nnz, longest);
}

Selection select_jagged_dense_add(const HeuristicStore& store, const jagged_dense_add::Problem& p,
                                  int device_arch) {
  return select_jagged_dense_add(store, p, jagged_dense_add_call_features(p), device_arch);
}

Selection select_jagged_dense_add(const HeuristicStore& store, const jagged_dense_add::Problem& p,
                                  const Features& features, int device_arch) {
  static const uint32_t default_config = default_config_index(find_kernel("jagged_dense_add"));
  const auto& space = jagged_dense_add::config_space();
  return select_config(store, "jagged_dense_add", device_arch, features, default_config, static_cast<uint32_t>(space.size()),
                       [&](uint32_t i) { return jagged_dense_add::supports(space[i], p).ok; });
}

}  // namespace dispatch

void ops::jagged_dense_add(const void* x, const void* offsets, const void* y, void* out, int64_t B,
                           int64_t N, int64_t nnz, int64_t max_len, DType dtype,
                           IndexType index_type, cudaStream_t stream) {
  jagged_dense_add::Problem p;
  p.B = B;
  p.N = N;
  p.nnz = nnz;
  p.max_len = max_len;
  p.dtype = dtype;
  p.index = index_type;
  p.x = x;
  p.offsets = offsets;
  p.y = y;
  p.out = out;
  const Features features = dispatch::jagged_dense_add_call_features(p);  // validates: before any CUDA call
  const int device = dispatch::current_device();
  const dispatch::Selection s = dispatch::select_jagged_dense_add(*dispatch::current_store(), p, features,
                                                                  dispatch::device_arch(device));
  const jagged_dense_add::Config& c = jagged_dense_add::config_space()[s.config];
  const dispatch::ScratchLease scratch =
      dispatch::workspace_for(device, stream, jagged_dense_add::workspace_bytes(c, p));
  jagged_dense_add::launch(c, p, scratch.get(), stream);
}

}  // namespace aotune
