// Device-side helpers shared by the kernels: float conversion of each storage type and aligned
// vectors for 16-byte loads. All arithmetic is done in fp32 whatever the storage type.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/dtype.h"

namespace aotune {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

// N elements of T loaded or stored as one access of N*sizeof(T) bytes (at most 16).
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  static_assert(sizeof(T) * N <= 16, "a vector access is at most 16 bytes");
  T v[N];
};

// Maps the DType enum to the CUDA storage type.
template <DType D>
struct StorageOf;
template <>
struct StorageOf<DType::f32> { using type = float; };
template <>
struct StorageOf<DType::bf16> { using type = __nv_bfloat16; };
template <>
struct StorageOf<DType::f16> { using type = __half; };

}  // namespace aotune
