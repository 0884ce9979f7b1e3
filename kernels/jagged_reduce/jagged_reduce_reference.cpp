// Float64 reference for jagged_sum / jagged_mean, and its error scale.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/common/host_data.h"
#include "kernels/jagged_reduce/jagged_reduce.h"

namespace aotune::jagged_reduce {

namespace {

// Entries [e, e + count) (count * M values) as float64: where they already are doubles, or decoded
// into `buf`, which holds kDecodeValues.
constexpr int64_t kDecodeValues = 4096;
const double* entries(const std::vector<double>& values, int64_t e, int64_t /*count*/, int64_t M, double*) {
  return values.data() + e * M;
}
const double* entries(const EncodedValues& values, int64_t e, int64_t count, int64_t M, double* buf) {
  values.decode_to(static_cast<std::size_t>(e * M), static_cast<std::size_t>(count * M), buf);
  return buf;
}

// Rows [b0, b1): each row's elements are walked in order and added along M, so values are read
// once and sequentially. (Walking a row once per column, stride M apart, took 1.7 s per GB of
// float64 values and ran twice per tuned shape, for the scale too.) Every output is still summed
// over e ascending from 0.0, so the results are the same bits as that column-major walk. Encoded
// values are decoded a run of entries at a time (one call per 4096 values, not per entry: M is
// often 1), and not at all for a row whose columns are all masked.
template <class Values>
void reduce_rows(Op op, const Values& values, const std::vector<int64_t>& offsets,
                 const std::vector<int64_t>& fc, int64_t M, int64_t b0, int64_t b1, double* out, double* scale) {
  constexpr bool kDecode = std::is_same_v<Values, EncodedValues>;
  const int64_t run = kDecode ? std::max<int64_t>(1, kDecodeValues / M) : std::numeric_limits<int64_t>::max();
  std::vector<double> buf(kDecode ? static_cast<std::size_t>(run * M) : 0);
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t cols = fc.empty() ? M : fc[b];
    double* o = out + b * M;
    double* s = scale == nullptr ? nullptr : scale + b * M;
    for (int64_t e = offsets[b], end = offsets[b + 1]; cols > 0 && e < end;) {
      const int64_t count = std::min(run, end - e);  // the whole row where values are doubles
      const double* block = entries(values, e, count, M, buf.data());
      e += count;
      for (int64_t i = 0; i < count; ++i) {
        const double* v = block + i * M;
        for (int64_t m = 0; m < cols; ++m) o[m] += v[m];
        if (s != nullptr) {
          for (int64_t m = 0; m < cols; ++m) s[m] += std::abs(v[m]);
        }
      }
    }
    const int64_t len = offsets[b + 1] - offsets[b];
    if (op == Op::mean) {
      for (int64_t m = 0; m < cols; ++m) {
        o[m] = len > 0 ? o[m] / static_cast<double>(len) : 0.0;
        if (s != nullptr) s[m] = len > 0 ? s[m] / static_cast<double>(len) : 0.0;
      }
    }
  }
}

template <class Values>
void reduce_all(Op op, const Values& values, const std::vector<int64_t>& offsets,
                const std::vector<int64_t>& fc, int64_t M, double* out, double* scale) {
  const int64_t B = static_cast<int64_t>(offsets.size()) - 1;
  if (B <= 0) return;
  // Rows split over the host threads, each thread at least ~2 Mi values' worth of rows on average
  // (a skewed shape's huge row still lands on one thread: no slower than before).
  const auto elems = static_cast<std::size_t>(std::max<int64_t>(1, offsets[B] * M));
  const std::size_t min_rows = std::max<std::size_t>(1, (std::size_t{1} << 21) * static_cast<std::size_t>(B) / elems);
  for_each_chunk(static_cast<std::size_t>(B), [&](std::size_t b0, std::size_t b1) {
    reduce_rows(op, values, offsets, fc, M, static_cast<int64_t>(b0), static_cast<int64_t>(b1), out, scale);
  }, min_rows);
}

template <class Values>
Reference reference_and_scale(Op op, const Values& values, const std::vector<int64_t>& offsets,
                              const std::vector<int64_t>& fc, int64_t M) {
  const int64_t B = static_cast<int64_t>(offsets.size()) - 1;
  const auto n = static_cast<std::size_t>(std::max<int64_t>(0, B) * M);
  Reference r{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  reduce_all(op, values, offsets, fc, M, r.out.data(), r.scale.data());
  return r;
}

}  // namespace

std::vector<double> reference(Op op, const std::vector<double>& values, const std::vector<int64_t>& offsets,
                              const std::vector<int64_t>& fc, int64_t M) {
  const int64_t B = static_cast<int64_t>(offsets.size()) - 1;
  std::vector<double> out(static_cast<std::size_t>(std::max<int64_t>(0, B) * M), 0.0);
  reduce_all(op, values, offsets, fc, M, out.data(), nullptr);
  return out;
}

Reference reference_with_scale(Op op, const std::vector<double>& values, const std::vector<int64_t>& offsets,
                               const std::vector<int64_t>& fc, int64_t M) {
  return reference_and_scale(op, values, offsets, fc, M);
}

Reference reference_with_scale(Op op, const EncodedValues& values, const std::vector<int64_t>& offsets,
                               const std::vector<int64_t>& fc, int64_t M) {
  return reference_and_scale(op, values, offsets, fc, M);
}

}  // namespace aotune::jagged_reduce
