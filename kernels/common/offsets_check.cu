#include "kernels/common/offsets_check.h"

#include <string>

#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_raii.h"
#include "kernels/common/errors.h"

namespace aotune {

namespace {

// Flags of what went wrong, and the smallest index at which it did (atomicMin).
struct OffsetsFault {
  unsigned long long first_decrease;  // i with offsets[i] > offsets[i+1]
  unsigned long long first_too_long;  // i with offsets[i+1] - offsets[i] > limit
};

template <typename IndexT>
__global__ void check_offsets_kernel(const IndexT* offsets, int64_t B, int64_t limit,
                                     OffsetsFault* fault) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < B;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t a = offsets[i], b = offsets[i + 1];
    if (a > b) atomicMin(&fault->first_decrease, static_cast<unsigned long long>(i));
    if (limit >= 0 && b - a > limit) atomicMin(&fault->first_too_long, static_cast<unsigned long long>(i));
  }
}

int64_t read_offset(const void* offsets, IndexType type, int64_t i, cudaStream_t stream) {
  int64_t v = 0;
  if (type == IndexType::i32) {
    int32_t v32 = 0;
    AOTUNE_CUDA_CHECK(cudaMemcpyAsync(&v32, static_cast<const int32_t*>(offsets) + i, 4,
                                      cudaMemcpyDeviceToHost, stream));
    AOTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
    v = v32;
  } else {
    AOTUNE_CUDA_CHECK(cudaMemcpyAsync(&v, static_cast<const int64_t*>(offsets) + i, 8,
                                      cudaMemcpyDeviceToHost, stream));
    AOTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return v;
}

std::string at(int64_t i, int64_t v) { return "offsets[" + std::to_string(i) + "]=" + std::to_string(v); }

}  // namespace

void check_offsets_on_device(const void* offsets, IndexType type, int64_t B, int64_t nnz,
                             int64_t max_row_length, const char* row_limit_name,
                             cudaStream_t stream) {
  if (offsets == nullptr) throw InvalidArgument("offsets is a null pointer");
  const int64_t first = read_offset(offsets, type, 0, stream);
  if (first != 0) throw InvalidArgument("offsets must start at 0: " + at(0, first));
  const int64_t last = read_offset(offsets, type, B, stream);
  if (last != nnz) {
    throw InvalidArgument("offsets must end at nnz=" + std::to_string(nnz) + ": " + at(B, last));
  }
  if (B == 0) return;

  constexpr unsigned long long kNone = ~0ull;
  const OffsetsFault clean{kNone, kNone};
  DeviceBuffer fault_buf(sizeof(OffsetsFault));
  AOTUNE_CUDA_CHECK(cudaMemcpyAsync(fault_buf.get(), &clean, sizeof clean, cudaMemcpyHostToDevice, stream));
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((B + threads - 1) / threads, 4096);
  if (type == IndexType::i32) {
    check_offsets_kernel<<<blocks, threads, 0, stream>>>(static_cast<const int32_t*>(offsets), B,
                                                         max_row_length, fault_buf.as<OffsetsFault>());
  } else {
    check_offsets_kernel<<<blocks, threads, 0, stream>>>(static_cast<const int64_t*>(offsets), B,
                                                         max_row_length, fault_buf.as<OffsetsFault>());
  }
  AOTUNE_CUDA_CHECK_LAUNCH();
  OffsetsFault fault{};
  AOTUNE_CUDA_CHECK(cudaMemcpyAsync(&fault, fault_buf.get(), sizeof fault, cudaMemcpyDeviceToHost, stream));
  AOTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (fault.first_decrease != kNone) {
    const auto i = static_cast<int64_t>(fault.first_decrease);
    throw InvalidArgument("offsets must be non-decreasing: " + at(i, read_offset(offsets, type, i, stream)) +
                          " > " + at(i + 1, read_offset(offsets, type, i + 1, stream)));
  }
  if (fault.first_too_long != kNone) {
    const auto i = static_cast<int64_t>(fault.first_too_long);
    const int64_t len = read_offset(offsets, type, i + 1, stream) - read_offset(offsets, type, i, stream);
    throw InvalidArgument("row " + std::to_string(i) + " has length " + std::to_string(len) + " > " +
                          row_limit_name + "=" + std::to_string(max_row_length));
  }
}

}  // namespace aotune
