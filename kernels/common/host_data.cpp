#include "kernels/common/host_data.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <thread>
#include <type_traits>

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

// Value i of the array keyed `key`, before rounding to the storage type: uniform on
// [mean - spread, mean + spread], as float (the rounding to 16 bits starts from it, as the device's
// conversions do).
float drawn(uint64_t key, std::size_t i, double mean, double spread) {
  const double u = static_cast<double>(splitmix64_at(key, i) >> 11) * 0x1.0p-53;
  return static_cast<float>(mean + spread * (2.0 * u - 1.0));
}

// Round to nearest, ties to even, as __float2bfloat16_rn does, in integer arithmetic: the CUDA
// header's host path is a software routine that made drawing bf16 values 1.8x slower than f32.
// NaN (never drawn, but a caller's mean could be anything) goes through CUDA's conversion.
uint16_t bf16_bits(float f) {
  const auto u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::bit_cast<uint16_t>(__float2bfloat16_rn(f));
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

template <DType T>
void store(std::byte* dst, std::size_t i, float f) {
  if constexpr (T == DType::f32) {
    std::memcpy(dst + 4 * i, &f, 4);
  } else if constexpr (T == DType::bf16) {
    const uint16_t h = bf16_bits(f);
    std::memcpy(dst + 2 * i, &h, 2);
  } else {
    const __half h = __float2half_rn(f);
    std::memcpy(dst + 2 * i, &h, 2);
  }
}

template <DType T>
float load(const std::byte* src, std::size_t i) {
  if constexpr (T == DType::f32) {
    float f;
    std::memcpy(&f, src + 4 * i, 4);
    return f;
  } else if constexpr (T == DType::bf16) {
    uint16_t h;
    std::memcpy(&h, src + 2 * i, 2);
    return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
  } else {
    __half h;
    std::memcpy(&h, src + 2 * i, 2);
    return __half2float(h);
  }
}

// f rounded to T and back: the value the device holds, as the reference sees it.
template <DType T>
float rounded(float f) {
  if constexpr (T == DType::f32) {
    return f;
  } else if constexpr (T == DType::bf16) {
    return std::bit_cast<float>(static_cast<uint32_t>(bf16_bits(f)) << 16);
  } else {
    return __half2float(__float2half_rn(f));
  }
}

// fn(std::integral_constant<DType, T>{}) for the runtime `dtype`: one branch per array, not per
// element.
template <class Fn>
void with_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::f32: return fn(std::integral_constant<DType, DType::f32>{});
    case DType::bf16: return fn(std::integral_constant<DType, DType::bf16>{});
    case DType::f16: return fn(std::integral_constant<DType, DType::f16>{});
  }
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

EncodedValues::EncodedValues(std::size_t n, DType dtype)
    : bytes_(std::make_unique_for_overwrite<std::byte[]>(n * dtype_size(dtype))), n_(n), dtype_(dtype) {}

double EncodedValues::operator[](std::size_t i) const {
  double v = 0;
  decode_to(i, 1, &v);
  return v;
}

void EncodedValues::decode_to(std::size_t begin, std::size_t count, double* out) const {
  with_dtype(dtype_, [&](auto t) {
    for (std::size_t i = 0; i < count; ++i) out[i] = load<decltype(t)::value>(bytes_.get(), begin + i);
  });
}

EncodedValues random_encoded(std::size_t n, DType dtype, std::mt19937_64& rng, double mean, double spread) {
  // One draw from the caller's stream keys the counter-based generator, so the caller's later
  // draws (jagged_mean's feature counts) do not depend on n, and every host thread fills its own
  // chunk: the values depend on the seed alone, never on the thread count.
  const uint64_t key = rng();
  EncodedValues out(n, dtype);
  std::byte* dst = out.data();
  with_dtype(dtype, [&](auto t) {
    for_each_chunk(n, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) store<decltype(t)::value>(dst, i, drawn(key, i, mean, spread));
    });
  });
  return out;
}

std::vector<double> random_values(std::size_t n, DType dtype, std::mt19937_64& rng, double mean,
                                  double spread) {
  const uint64_t key = rng();  // one draw, as random_encoded takes
  std::vector<double> v(n);
  with_dtype(dtype, [&](auto t) {
    for_each_chunk(n, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) v[i] = rounded<decltype(t)::value>(drawn(key, i, mean, spread));
    });
  });
  return v;
}

std::vector<std::byte> encode(const std::vector<double>& values, DType dtype) {
  std::vector<std::byte> out(values.size() * dtype_size(dtype));
  with_dtype(dtype, [&](auto t) {
    for_each_chunk(values.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) store<decltype(t)::value>(out.data(), i, static_cast<float>(values[i]));
    });
  });
  return out;
}

std::vector<double> decode(const std::vector<std::byte>& bytes, DType dtype) {
  const std::size_t n = bytes.size() / dtype_size(dtype);
  std::vector<double> out(n);
  with_dtype(dtype, [&](auto t) {
    for (std::size_t i = 0; i < n; ++i) out[i] = load<decltype(t)::value>(bytes.data(), i);
  });
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
