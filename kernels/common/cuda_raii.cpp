#include "kernels/common/cuda_raii.h"

namespace aotune {

bool cuda_device_available() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the error so later calls are not poisoned by it
    return false;
  }
  return count > 0;
}

}  // namespace aotune
