// Device-side validation of jagged_sum / jagged_mean inputs (offsets and feature counts).
#include <string>

#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_raii.h"
#include "kernels/common/errors.h"
#include "kernels/common/offsets_check.h"
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::jagged_reduce {

namespace {

template <typename IndexT>
__global__ void check_feature_counts(const IndexT* fc, int64_t B, int64_t M, unsigned long long* first_bad) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < B; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = fc[i];
    if (v < 0 || v > M) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

}  // namespace

void validate_device_data(const Problem& p, cudaStream_t stream) {
  check_offsets_on_device(p.offsets, p.index, p.B, p.nnz, -1, "", stream);
  if (p.feature_counts == nullptr || p.B == 0) return;
  constexpr unsigned long long kNone = ~0ull;
  DeviceBuffer flag(sizeof(unsigned long long));
  AOTUNE_CUDA_CHECK(cudaMemcpyAsync(flag.get(), &kNone, sizeof kNone, cudaMemcpyHostToDevice, stream));
  const int64_t blocks = std::min<int64_t>((p.B + 255) / 256, 4096);
  if (p.index == IndexType::i32) {
    check_feature_counts<<<blocks, 256, 0, stream>>>(static_cast<const int32_t*>(p.feature_counts), p.B, p.M,
                                                     flag.as<unsigned long long>());
  } else {
    check_feature_counts<<<blocks, 256, 0, stream>>>(static_cast<const int64_t*>(p.feature_counts), p.B, p.M,
                                                     flag.as<unsigned long long>());
  }
  AOTUNE_CUDA_CHECK_LAUNCH();
  unsigned long long bad = kNone;
  AOTUNE_CUDA_CHECK(cudaMemcpyAsync(&bad, flag.get(), sizeof bad, cudaMemcpyDeviceToHost, stream));
  AOTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (bad == kNone) return;
  int64_t v = 0;
  if (p.index == IndexType::i32) {
    int32_t v32 = 0;
    AOTUNE_CUDA_CHECK(cudaMemcpy(&v32, static_cast<const int32_t*>(p.feature_counts) + bad, 4, cudaMemcpyDeviceToHost));
    v = v32;
  } else {
    AOTUNE_CUDA_CHECK(cudaMemcpy(&v, static_cast<const int64_t*>(p.feature_counts) + bad, 8, cudaMemcpyDeviceToHost));
  }
  throw InvalidArgument("feature counts must lie in [0, M=" + std::to_string(p.M) + "]: feature_counts[" +
                        std::to_string(bad) + "]=" + std::to_string(v));
}

}  // namespace aotune::jagged_reduce
