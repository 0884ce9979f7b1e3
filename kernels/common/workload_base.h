// Shared plumbing of every kernel's Workload: the output buffer, poisoning, and the comparison
// with the float64 reference. A kernel's workload uploads its inputs and implements launch().
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/common/cuda_raii.h"
#include "kernels/common/dtype.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune {

// Device copy of `bytes` placed `misalign_bytes` past a 256-byte boundary (to test unaligned inputs).
struct PlacedBuffer {
  DeviceBuffer storage;
  void* ptr = nullptr;
};
PlacedBuffer upload_placed(const void* host, std::size_t bytes, std::size_t misalign_bytes);

class WorkloadBase : public Workload {
 public:
  const ProblemInfo& info() const override { return info_; }
  void poison_output(cudaStream_t stream) override;
  CheckResult check() override;

 protected:
  // `ref` and `scale` are per output element (see reference_check.h).
  WorkloadBase(ProblemInfo info, DType out_dtype, std::size_t out_elems, std::vector<double> ref,
               std::vector<double> scale);
  void* out() const { return out_.get(); }
  // Scratch memory sized for the largest need of any config (grown on demand), zeroed when
  // allocated: kernels leave their scratch zeroed, so it is never zeroed per launch.
  void* workspace(std::size_t bytes);

  ProblemInfo info_;

 private:
  DType out_dtype_;
  std::size_t out_elems_;
  DeviceBuffer out_;
  DeviceBuffer workspace_;
  DeviceBuffer ref_;    // n doubles on the device
  DeviceBuffer scale_;  // n doubles on the device
};

}  // namespace aotune
