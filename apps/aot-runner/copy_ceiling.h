// The copy ceiling `run` reports bandwidth against: device-to-device cudaMemcpy, counting bytes read
// plus bytes written (BENCH.md). A streaming kernel cannot beat it by much, so GB/s / ceiling says
// how much of the memory system a config uses.
#pragma once

#include <string>

namespace aotune::cli {

// Measured on the H200 test machine (BENCH.md, 4 GiB copies, 2026-11-29).
inline constexpr double kH200CopyCeilingGbps = 4277.0;

struct CopyCeiling {
  double gbps = 0;
  std::string source;  // "measured" or "constant (H200, BENCH.md)"
};

// Median of timed device-to-device copies on the current device, each as large as free memory
// allows up to 2 GiB, with warm-up. Throws CudaError.
double measure_copy_ceiling_gbps();

// The constant for an H200 unless `measure`; any other GPU is always measured (no constant fits).
CopyCeiling copy_ceiling_for(const std::string& device_name, bool measure);

}  // namespace aotune::cli
