// Identity of the GPU a results database was measured on (or of the simulated stand-in), and the
// architecture name ("sm90") that databases and generated headers are filed under.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace aotune::tuner {

struct DeviceInfo {
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int driver_version = 0;   // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  // cudaRuntimeGetVersion
  bool simulated = false;

  std::string arch() const;                // "sm" + major*10 + minor, e.g. "sm90"
  std::string compute_capability() const;  // "9.0"
  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

// Number of usable CUDA devices (0 when there is no driver or no GPU). Initialises CUDA.
int cuda_device_count();
// Properties of device `ordinal`. Initialises CUDA; throws CudaError when it is not usable.
DeviceInfo query_device(int ordinal);

// "sm90" -> {9, 0}; "sm100" -> {10, 0}; "sm120" -> {12, 0}. Throws InvalidArgument otherwise.
std::pair<int, int> parse_arch(const std::string& arch);

nlohmann::ordered_json to_json(const DeviceInfo& d);
// Throws InvalidArgument naming the missing or mistyped field.
DeviceInfo device_info_from_json(const nlohmann::ordered_json& j);
// Empty when equal, else "name 'A' vs 'B', sm_count 132 vs 114" (for merge and resume errors).
std::string describe_difference(const DeviceInfo& a, const DeviceInfo& b);

}  // namespace aotune::tuner
