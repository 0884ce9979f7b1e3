#include "kernels/common/device_compare.h"

#include <cmath>
#include <cstring>
#include <type_traits>
#include <sstream>

#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_raii.h"
#include "kernels/common/device_types.cuh"

namespace aotune {

namespace {

struct CompareResult {
  unsigned long long max_error_bits;  // non-negative doubles order like their bit patterns
  unsigned long long first_bad;
};

template <typename T>
__global__ void compare_kernel(const T* out, const double* ref, const double* scale, std::size_t n, double tol,
                               CompareResult* result) {
  double local_max = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double o = to_float(out[i]);
    const double denom = fabs(ref[i]) + scale[i] + 1e-30;
    double err = isnan(o) ? INFINITY : fabs(o - ref[i]) / denom;
    if (isnan(err)) err = INFINITY;
    local_max = fmax(local_max, err);
    if (!(err <= tol)) atomicMin(&result->first_bad, static_cast<unsigned long long>(i));
  }
  atomicMax(&result->max_error_bits, static_cast<unsigned long long>(__double_as_longlong(local_max)));
}

template <typename T>
double read_element(const void* out, std::size_t i) {
  T v;
  AOTUNE_CUDA_CHECK(cudaMemcpy(&v, static_cast<const T*>(out) + i, sizeof(T), cudaMemcpyDeviceToHost));
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return __half2float(v);
  }
}

}  // namespace

CheckResult compare_on_device(const void* out, const double* ref, const double* scale, std::size_t n,
                              DType dtype, cudaStream_t stream) {
  constexpr unsigned long long kNone = ~0ull;
  const CompareResult init{0, kNone};
  DeviceBuffer buf(sizeof(CompareResult));
  AOTUNE_CUDA_CHECK(cudaMemcpyAsync(buf.get(), &init, sizeof init, cudaMemcpyHostToDevice, stream));
  const double tol = dtype_tolerance(dtype);
  if (n > 0) {
    const int threads = 256;
    const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, 8192));
    auto* r = buf.as<CompareResult>();
    switch (dtype) {
      case DType::f32: compare_kernel<<<blocks, threads, 0, stream>>>(static_cast<const float*>(out), ref, scale, n, tol, r); break;
      case DType::bf16: compare_kernel<<<blocks, threads, 0, stream>>>(static_cast<const __nv_bfloat16*>(out), ref, scale, n, tol, r); break;
      case DType::f16: compare_kernel<<<blocks, threads, 0, stream>>>(static_cast<const __half*>(out), ref, scale, n, tol, r); break;
    }
    AOTUNE_CUDA_CHECK_LAUNCH();
  }
  CompareResult res{};
  AOTUNE_CUDA_CHECK(cudaMemcpyAsync(&res, buf.get(), sizeof res, cudaMemcpyDeviceToHost, stream));
  AOTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  CheckResult r;
  double max_err = 0;
  static_assert(sizeof(max_err) == sizeof(res.max_error_bits));
  std::memcpy(&max_err, &res.max_error_bits, sizeof max_err);
  r.max_error = max_err;
  r.ok = res.first_bad == kNone;
  if (!r.ok) {
    const std::size_t i = res.first_bad;
    r.bad_index = static_cast<long long>(i);
    const double got = dtype == DType::f32 ? read_element<float>(out, i)
                       : dtype == DType::bf16 ? read_element<__nv_bfloat16>(out, i)
                                              : read_element<__half>(out, i);
    double expected = 0;
    AOTUNE_CUDA_CHECK(cudaMemcpy(&expected, ref + i, sizeof(double), cudaMemcpyDeviceToHost));
    std::ostringstream msg;
    msg.precision(9);
    msg << "element " << i << ": got " << got << ", expected " << expected << " (max relative error "
        << max_err << " > " << tol << ")";
    r.message = msg.str();
  }
  return r;
}

}  // namespace aotune
