#include "kernels/common/host_data.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

namespace aotune {

namespace {

double round_to(double v, DType dtype) {
  switch (dtype) {
    case DType::f32: return static_cast<float>(v);
    case DType::bf16: return __bfloat162float(__float2bfloat16_rn(static_cast<float>(v)));
    case DType::f16: return __half2float(__float2half_rn(static_cast<float>(v)));
  }
  return v;
}

}  // namespace

std::vector<double> random_values(std::size_t n, DType dtype, std::mt19937_64& rng, double mean,
                                  double spread) {
  std::vector<double> v(n);
  for (auto& x : v) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    x = round_to(mean + spread * (2.0 * u - 1.0), dtype);
  }
  return v;
}

std::vector<std::byte> encode(const std::vector<double>& values, DType dtype) {
  std::vector<std::byte> out(values.size() * dtype_size(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    std::byte* dst = out.data() + i * dtype_size(dtype);
    if (dtype == DType::f32) {
      std::memcpy(dst, &f, 4);
    } else if (dtype == DType::bf16) {
      const __nv_bfloat16 h = __float2bfloat16_rn(f);
      std::memcpy(dst, &h, 2);
    } else {
      const __half h = __float2half_rn(f);
      std::memcpy(dst, &h, 2);
    }
  }
  return out;
}

std::vector<double> decode(const std::vector<std::byte>& bytes, DType dtype) {
  const std::size_t n = bytes.size() / dtype_size(dtype);
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* src = bytes.data() + i * dtype_size(dtype);
    if (dtype == DType::f32) {
      float f;
      std::memcpy(&f, src, 4);
      out[i] = f;
    } else if (dtype == DType::bf16) {
      __nv_bfloat16 h;
      std::memcpy(&h, src, 2);
      out[i] = __bfloat162float(h);
    } else {
      __half h;
      std::memcpy(&h, src, 2);
      out[i] = __half2float(h);
    }
  }
  return out;
}

std::vector<std::byte> encode_index(const std::vector<int64_t>& values, IndexType type) {
  std::vector<std::byte> out(values.size() * index_size(type));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (type == IndexType::i32) {
      const auto v = static_cast<int32_t>(values[i]);
      std::memcpy(out.data() + 4 * i, &v, 4);
    } else {
      std::memcpy(out.data() + 8 * i, &values[i], 8);
    }
  }
  return out;
}

}  // namespace aotune
