#include "kernels/common/host_data.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <thread>

namespace aotune {

namespace {

// SplitMix64 (Steele, Lea and Flood, 2014) in counter mode: the i-th output of the generator
// seeded with `key` is mix(key + (i + 1) * golden), so any element is computed without the ones
// before it: a well-studied 64-bit mixer, ample for test inputs, two multiplies per value. The
// standard library has no counter-based engine before C++26's philox_engine.
uint64_t splitmix64_at(uint64_t key, uint64_t i) {
  uint64_t z = key + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double round_to(double v, DType dtype) {
  switch (dtype) {
    case DType::f32: return static_cast<float>(v);
    case DType::bf16: return __bfloat162float(__float2bfloat16_rn(static_cast<float>(v)));
    case DType::f16: return __half2float(__float2half_rn(static_cast<float>(v)));
  }
  return v;
}

}  // namespace

void for_each_chunk(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn,
                    std::size_t min_per_thread) {
  const std::size_t threads = std::clamp<std::size_t>(n / std::max<std::size_t>(1, min_per_thread), 1,
                                                      std::max(1u, std::thread::hardware_concurrency()));
  if (threads == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  const std::size_t per = (n + threads - 1) / threads;
  for (std::size_t t = 1; t < threads; ++t) {
    const std::size_t begin = std::min(n, t * per), end = std::min(n, begin + per);
    pool.emplace_back(fn, begin, end);
  }
  fn(0, std::min(n, per));
  for (std::thread& th : pool) th.join();
}

std::vector<double> random_values(std::size_t n, DType dtype, std::mt19937_64& rng, double mean,
                                  double spread) {
  // One draw from the caller's stream keys the counter-based generator, so the caller's later
  // draws (jagged_mean's feature counts) do not depend on n, and every host thread fills its own
  // chunk: the values depend on the seed alone, never on the thread count.
  const uint64_t key = rng();
  std::vector<double> v(n);
  for_each_chunk(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const double u = static_cast<double>(splitmix64_at(key, i) >> 11) * 0x1.0p-53;
      v[i] = round_to(mean + spread * (2.0 * u - 1.0), dtype);
    }
  });
  return v;
}

std::vector<std::byte> encode(const std::vector<double>& values, DType dtype) {
  const std::size_t size = dtype_size(dtype);
  std::vector<std::byte> out(values.size() * size);
  for_each_chunk(values.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const float f = static_cast<float>(values[i]);
      std::byte* dst = out.data() + i * size;
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
  });
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

std::vector<nlohmann::json> in_every_dtype_and_index(const std::vector<nlohmann::json>& base, uint64_t first_seed) {
  std::vector<nlohmann::json> shapes;
  uint64_t seed = first_seed;
  for (const auto& b : base) {
    for (const char* dtype : {"f32", "bf16", "f16"}) {
      for (const char* index : {"i32", "i64"}) {
        nlohmann::json s = b;
        s["dtype"] = dtype;
        s["index"] = index;
        s["seed"] = seed++;
        shapes.push_back(s);
      }
    }
  }
  return shapes;
}

}  // namespace aotune
