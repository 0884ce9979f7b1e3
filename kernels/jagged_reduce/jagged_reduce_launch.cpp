// Entry point of jagged_sum / jagged_mean launches: checks legality, then routes by storage type.
#include <string>

#include "kernels/common/errors.h"
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::jagged_reduce {

void launch_f32(const Config& c, const Problem& p, void* workspace, cudaStream_t stream);
void launch_bf16(const Config& c, const Problem& p, void* workspace, cudaStream_t stream);
void launch_f16(const Config& c, const Problem& p, void* workspace, cudaStream_t stream);

void launch(const Config& auto_config, const Problem& p, void* workspace, cudaStream_t stream) {
  const Config c = resolved(auto_config, p);  // the per-dtype launchers take concrete configs
  const Legality legal = supports(c, p);
  const std::string id = auto_config == c ? config_id(c) : config_id(auto_config) + " (as " + config_id(c) + ")";
  if (!legal.ok) throw InvalidArgument("config " + id + " cannot run this problem: " + legal.reason);
  if (workspace == nullptr && workspace_bytes(c, p) > 0) {
    throw InvalidArgument("config " + id + " needs a workspace of " + std::to_string(workspace_bytes(c, p)) + " bytes");
  }
  switch (p.dtype) {
    case DType::f32: return launch_f32(c, p, workspace, stream);
    case DType::bf16: return launch_bf16(c, p, workspace, stream);
    case DType::f16: return launch_f16(c, p, workspace, stream);
  }
}

}  // namespace aotune::jagged_reduce
