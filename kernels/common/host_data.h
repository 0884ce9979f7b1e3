// Host-side inputs and outputs: random values rounded to the storage type, kept as float64 for the
// reference, and conversion to and from the bytes the device sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/common/dtype.h"

namespace aotune {

// Runs fn(begin, end) over [0, n) split into contiguous chunks, one per hardware thread, each at
// least min_per_thread long (inline when n is below that, where starting threads costs more than
// it saves). A sweep builds gigabytes of inputs and references per grid on the host; one thread
// doing it left the GPU idle 90 % of a jagged sweep (docs/PERF.md, session 7).
void for_each_chunk(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn,
                    std::size_t min_per_thread = std::size_t{1} << 21);

// n values of `dtype` in the bytes the device reads, readable on the host as the float64 each
// one converts to (exactly: every f32, bf16 and f16 value is a double). The storage is allocated
// without zeroing, so its pages are first touched by whichever threads fill it: a sweep's 1 GB
// input then costs no single-threaded pass, where a std::vector of doubles and then of bytes took
// two, about 0.65 s per GB each on the build VM (docs/PERF.md, Session 42).
class EncodedValues {
 public:
  EncodedValues() = default;
  EncodedValues(std::size_t n, DType dtype);  // uninitialised: the caller writes every element

  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * dtype_size(dtype_); }
  DType dtype() const { return dtype_; }
  const std::byte* data() const { return bytes_.get(); }
  std::byte* data() { return bytes_.get(); }

  double operator[](std::size_t i) const;
  // Elements [begin, begin + count) as float64, into out.
  void decode_to(std::size_t begin, std::size_t count, double* out) const;

 private:
  std::unique_ptr<std::byte[]> bytes_;
  std::size_t n_ = 0;
  DType dtype_ = DType::f32;
};

// Values drawn uniformly from [mean - spread, mean + spread] and rounded to `dtype` (to nearest,
// ties to even), so the float64 reference sees exactly what the kernel reads. Takes exactly one
// draw from `rng` (the key of a counter-based generator) whatever n is, and fills large arrays on
// every host thread; the values depend on rng's state alone. Not part of any kernel's source hash
// (cmake/SourceHash.cmake): input values never change a timing, so the input builder can change
// without a re-tune.
EncodedValues random_encoded(std::size_t n, DType dtype, std::mt19937_64& rng, double mean = 0.0,
                             double spread = 1.0);

// The same values (the same draw of `rng`) as float64: decode of random_encoded.
std::vector<double> random_values(std::size_t n, DType dtype, std::mt19937_64& rng, double mean = 0.0,
                                  double spread = 1.0);

std::vector<std::byte> encode(const std::vector<double>& values, DType dtype);
std::vector<double> decode(const std::vector<std::byte>& bytes, DType dtype);

// Offsets as bytes of the index type.
std::vector<std::byte> encode_index(const std::vector<int64_t>& values, IndexType type);

// The jagged kernels' test shapes (<k>_inputs.cpp): each of `base` in f32, bf16 and f16, each
// with int32 and int64 offsets, seeded first_seed, first_seed + 1, ... in that order.
std::vector<nlohmann::json> in_every_dtype_and_index(const std::vector<nlohmann::json>& base, uint64_t first_seed);

}  // namespace aotune
