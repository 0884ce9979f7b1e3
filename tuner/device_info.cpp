#include "tuner/device_info.h"

#include <cuda_runtime_api.h>
#include <fmt/core.h>

#include "kernels/common/cuda_check.h"
#include "kernels/common/errors.h"

namespace aotune::tuner {

std::string DeviceInfo::arch() const { return "sm" + std::to_string(cc_major * 10 + cc_minor); }

std::string DeviceInfo::compute_capability() const {
  return std::to_string(cc_major) + "." + std::to_string(cc_minor);
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not sticky, clear it
    return 0;
  }
  return count;
}

DeviceInfo query_device(int ordinal) {
  cudaDeviceProp prop{};
  AOTUNE_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  AOTUNE_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  AOTUNE_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

std::pair<int, int> parse_arch(const std::string& arch) {
  // The last digit is the minor version: sm89 -> 8.9, sm100 -> 10.0, sm120 -> 12.0.
  const bool digits = arch.size() >= 4 && arch.size() <= 5 && arch.rfind("sm", 0) == 0 &&
                      arch.find_first_not_of("0123456789", 2) == std::string::npos;
  if (!digits) {
    throw InvalidArgument("architecture '" + arch +
                          "' is not of the form sm<major><minor>, e.g. sm90 or sm100");
  }
  const int n = std::stoi(arch.substr(2));
  return {n / 10, n % 10};
}

nlohmann::ordered_json to_json(const DeviceInfo& d) {
  nlohmann::ordered_json j;
  j["name"] = d.name;
  j["compute_capability"] = d.compute_capability();
  j["sm_count"] = d.sm_count;
  j["l2_bytes"] = d.l2_bytes;
  j["driver_version"] = d.driver_version;
  j["runtime_version"] = d.runtime_version;
  j["simulated"] = d.simulated;
  return j;
}

DeviceInfo device_info_from_json(const nlohmann::ordered_json& j) {
  try {
    DeviceInfo d;
    d.name = j.at("name").get<std::string>();
    const auto cc = j.at("compute_capability").get<std::string>();
    const auto dot = cc.find('.');
    if (dot == std::string::npos)
      throw InvalidArgument("compute_capability '" + cc + "' lacks a '.'");
    d.cc_major = std::stoi(cc.substr(0, dot));
    d.cc_minor = std::stoi(cc.substr(dot + 1));
    d.sm_count = j.at("sm_count").get<int>();
    d.l2_bytes = j.at("l2_bytes").get<int64_t>();
    d.driver_version = j.at("driver_version").get<int>();
    d.runtime_version = j.at("runtime_version").get<int>();
    d.simulated = j.at("simulated").get<bool>();
    return d;
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(std::string("device entry is malformed: ") + e.what());
  } catch (const std::logic_error& e) {  // stoi
    throw InvalidArgument(std::string("device compute_capability is malformed: ") + e.what());
  }
}

std::string describe_difference(const DeviceInfo& a, const DeviceInfo& b) {
  std::string out;
  auto add = [&out](const char* field, const std::string& x, const std::string& y) {
    if (x != y) out += fmt::format("{}{} {} vs {}", out.empty() ? "" : ", ", field, x, y);
  };
  add("name", "'" + a.name + "'", "'" + b.name + "'");
  add("compute_capability", a.compute_capability(), b.compute_capability());
  add("sm_count", std::to_string(a.sm_count), std::to_string(b.sm_count));
  add("l2_bytes", std::to_string(a.l2_bytes), std::to_string(b.l2_bytes));
  add("driver_version", std::to_string(a.driver_version), std::to_string(b.driver_version));
  add("runtime_version", std::to_string(a.runtime_version), std::to_string(b.runtime_version));
  add("simulated", a.simulated ? "true" : "false", b.simulated ? "true" : "false");
  return out;
}

}  // namespace aotune::tuner
