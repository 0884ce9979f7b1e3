// aotune::ops::causal_trailing_mean: validate, choose, launch.
#include "aotune/causal_trailing_mean.h"
#include "aotune/device.h"
#include "dispatch/src/kernel_selection.h"
#include "dispatch/src/workspace_cache.h"
#include "kernels/common/registry.h"

namespace aotune {

namespace dispatch {

Features causal_trailing_mean_call_features(const causal_trailing_mean::Problem& p) {
  causal_trailing_mean::validate(p);
  return causal_trailing_mean::features(p.dtype, p.B, p.D, p.T, p.cf);
}

Selection select_causal_trailing_mean(const HeuristicStore& store,
                                      const causal_trailing_mean::Problem& p, int device_arch) {
  return select_causal_trailing_mean(store, p, causal_trailing_mean_call_features(p), device_arch);
}

Selection select_causal_trailing_mean(const HeuristicStore& store,
                                      const causal_trailing_mean::Problem& p,
                                      const Features& features, int device_arch) {
  static const uint32_t default_config = default_config_index(find_kernel("causal_trailing_mean"));
  const auto& space = causal_trailing_mean::config_space();
  return select_config(store, "causal_trailing_mean", device_arch, features, default_config,
                       static_cast<uint32_t>(space.size()),
                       [&](uint32_t i) { return causal_trailing_mean::supports(space[i], p).ok; });
}

}  // namespace dispatch

void ops::causal_trailing_mean(const void* x, void* out, int64_t B, int64_t D, int64_t T,
                               int64_t cf, DType dtype, cudaStream_t stream) {
  causal_trailing_mean::Problem p;
  p.B = B;
  p.D = D;
  p.T = T;
  p.cf = cf;
  p.dtype = dtype;
  p.x = x;
  p.out = out;
  const Features features = dispatch::causal_trailing_mean_call_features(p);  // validates: before any CUDA call
  const int device = dispatch::current_device();
  const dispatch::Selection s = dispatch::select_causal_trailing_mean(
      *dispatch::current_store(), p, features, dispatch::device_arch(device));
  const causal_trailing_mean::Config& c = causal_trailing_mean::config_space()[s.config];
  const dispatch::ScratchLease scratch =
      dispatch::workspace_for(device, stream, causal_trailing_mean::workspace_bytes(c, p));
  causal_trailing_mean::launch(c, p, scratch.get(), stream);
}

}  // namespace aotune
