#include "kernels/common/workload_base.h"

#include <cstddef>
#include <utility>

#include <string>

#include "kernels/common/device_compare.h"
#include "kernels/common/errors.h"

namespace aotune {

PlacedBuffer upload_placed(const void* host, std::size_t bytes, std::size_t misalign_bytes) {
  PlacedBuffer b;
  b.storage = DeviceBuffer(bytes + misalign_bytes + 16);  // +16: never a zero-byte allocation
  b.ptr = static_cast<char*>(b.storage.get()) + misalign_bytes;
  // A pageable cudaMemcpy returns once the bytes are staged, the copy to the device possibly still
  // in flight on the legacy default stream (likewise workspace()'s cudaMemset). The tuner orders
  // both before any timed launch: GpuDevice::prepare() waits for that stream after building the
  // workload, and a config's first launch is its check() on that stream (tuner/gpu_device.cpp).
  if (bytes > 0) AOTUNE_CUDA_CHECK(cudaMemcpy(b.ptr, host, bytes, cudaMemcpyHostToDevice));
  return b;
}

WorkloadBase::WorkloadBase(ProblemInfo info, DType out_dtype, std::size_t out_elems, std::vector<double> ref,
                           std::vector<double> scale)
    : info_(std::move(info)),
      out_dtype_(out_dtype),
      out_elems_(out_elems),
      out_(out_elems * dtype_size(out_dtype) + 16),
      ref_(out_elems * sizeof(double) + 16),
      scale_(out_elems * sizeof(double) + 16) {
  if (ref.size() != out_elems || scale.size() != out_elems) {
    throw Error("workload reference has " + std::to_string(ref.size()) + " elements and scale " +
                std::to_string(scale.size()) + ", output " + std::to_string(out_elems));
  }
  ref_.upload(ref.data(), ref.size() * sizeof(double));
  scale_.upload(scale.data(), scale.size() * sizeof(double));
}

void WorkloadBase::poison_output(cudaStream_t stream) {
  // All-ones bytes are a NaN in f32, bf16 and f16 alike.
  AOTUNE_CUDA_CHECK(cudaMemsetAsync(out_.get(), 0xFF, out_elems_ * dtype_size(out_dtype_), stream));
}

CheckResult WorkloadBase::check() {
  AOTUNE_CUDA_CHECK(cudaDeviceSynchronize());  // surfaces asynchronous faults of the launch
  return compare_on_device(out_.get(), ref_.as<double>(), scale_.as<double>(), out_elems_, out_dtype_, nullptr);
}

void* WorkloadBase::workspace(std::size_t bytes) {
  if (bytes > workspace_.bytes()) {
    workspace_ = DeviceBuffer();  // free first: the old and new buffers need not fit together
    workspace_ = DeviceBuffer(bytes);
    // Kernels take their scratch zeroed once and leave it zeroed (jagged_reduce::workspace_bytes).
    AOTUNE_CUDA_CHECK(cudaMemset(workspace_.get(), 0, bytes));
  }
  return workspace_.get();
}

}  // namespace aotune
