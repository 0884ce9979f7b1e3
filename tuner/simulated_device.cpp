#include "tuner/simulated_device.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "kernels/common/errors.h"
#include "tuner/stable_hash.h"

namespace aotune::tuner {

namespace {

std::set<std::string> id_list(const char* var) {
  std::set<std::string> out;
  const char* v = std::getenv(var);
  if (v == nullptr) return out;
  std::stringstream ss(v);
  for (std::string id; std::getline(ss, id, ',');) {
    if (!id.empty()) out.insert(id);
  }
  return out;
}

double feature(const Features& f, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    for (const auto& [name, value] : f) {
      if (name == n) return value;
    }
  }
  return 0;
}

// Coarse buckets of size, row width and skew: the preferred config changes between regimes but is
// stable within one, so the data has the structure a decision tree can learn.
uint64_t regime(const ProblemInfo& info) {
  const auto bucket = [](double v, double step) {
    return static_cast<uint64_t>(std::log2(v + 1.0) / step);
  };
  const uint64_t size = bucket(info.bytes_moved, 4.0);
  const uint64_t width = bucket(feature(info.features, {"M", "N", "T"}), 3.0);
  const uint64_t skewed = feature(info.features, {"skew"}) > 4.0 ? 1 : 0;
  return mix64(size * 1000003 + width * 1009 + skewed);
}

// Per field of a kernel's configs: its distinct values, sorted (the rank of a value is its place).
using FieldValues = std::map<std::string, std::vector<nlohmann::json>>;

const FieldValues& field_values(const TunableKernel& kernel) {
  static std::map<std::string, FieldValues> cache;  // one worker thread: no lock needed
  auto [it, inserted] = cache.try_emplace(std::string(kernel.name()));
  if (inserted) {
    for (std::size_t i = 0; i < kernel.num_configs(); ++i) {
      const nlohmann::json c = kernel.config_json(i);
      for (auto f = c.begin(); f != c.end(); ++f) {
        auto& values = it->second[f.key()];
        if (std::find(values.begin(), values.end(), *f) == values.end()) values.push_back(*f);
      }
    }
    for (auto& [name, values] : it->second) std::sort(values.begin(), values.end());
  }
  return it->second;
}

double efficiency(const TunableKernel& kernel, std::size_t config, const ProblemInfo& info) {
  const nlohmann::json mine = kernel.config_json(config);
  const FieldValues& fields = field_values(kernel);
  const uint64_t r = regime(info);
  double eff = 1.0;
  for (auto it = mine.begin(); it != mine.end(); ++it) {
    const auto& values = fields.at(it.key());
    const auto rank =
        static_cast<double>(std::find(values.begin(), values.end(), *it) - values.begin());
    const auto preferred = static_cast<double>(
        mix64(fnv1a64(std::string(kernel.name()) + "/" + it.key()) ^ r) % values.size());
    eff *=
        it->is_number() ? 1.0 - 0.08 * std::abs(rank - preferred) : (rank == preferred ? 1.0 : 0.7);
  }
  return std::max(eff, 0.1);
}

class SimulatedShapeRunner final : public ShapeRunner {
 public:
  SimulatedShapeRunner(SimulatedDevice& device, const TunableKernel& kernel, const GridShape& shape)
      : device_(device), kernel_(kernel), shape_(shape) {}

  CheckResult check(std::size_t config) override {
    const SimulationOptions& o = device_.options();
    if (o.delay_ms > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.delay_ms));
    const std::string id = kernel_.config_id(config);
    if (o.crash_configs.count(
            id)) {  // a worker dying mid-cell, as a bad kernel would; no core file
      const rlimit no_core{0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      std::raise(SIGSEGV);
    }
    if (o.lose_context_configs.count(id)) {
      device_.mark_context_lost();
      throw CudaError(
          "simulated sticky error: cudaErrorIllegalAddress (an illegal memory access was "
          "encountered)");
    }
    CheckResult r;
    r.ok = o.fail_configs.count(id) == 0;
    if (!r.ok) {
      r.bad_index = 0;
      r.message = "element 0: simulated wrong result (AOTUNE_SIM_FAIL)";
    }
    return r;
  }

  Timing time(std::size_t config, double loser_above_us) override {
    const double t = simulated_time_us(kernel_, config, shape_);
    const TimingProtocol& p = device_.protocol();
    const bool loser = loser_above_us > 0 && t > loser_above_us;
    const uint64_t h = mix64(fnv1a64(kernel_.config_id(config)) ^ fnv1a64(shape_.key) ^ 0x5eed);
    Timing out;
    out.median_us = round_us(t);
    out.p10_us = round_us(t * (1.0 - 0.01 * unit_interval(h)));
    out.p90_us = round_us(t * (1.0 + 0.03 * unit_interval(mix64(h))));
    out.reps = loser ? std::max(2, p.loser_reps) : reps_for(t, p);
    return out;
  }

  std::vector<Timing> time_interleaved(const std::vector<std::size_t>& configs) override {
    std::vector<Timing> out;
    for (std::size_t c : configs) out.push_back(time(c, 0));
    return out;
  }

  // The cost model has no cache or launch pipeline: the same time as a flushed repetition.
  Timing time_back_to_back(std::size_t config, int calls) override {
    Timing t = time(config, 0);
    t.reps = calls;
    return t;
  }

 private:
  SimulatedDevice& device_;
  const TunableKernel& kernel_;
  const GridShape& shape_;
};

}  // namespace

SimulationOptions SimulationOptions::from_environment(std::string arch) {
  SimulationOptions o;
  o.arch = std::move(arch);
  if (const char* d = std::getenv("AOTUNE_SIM_DELAY_MS")) {
    try {
      o.delay_ms = std::stod(d);
    } catch (const std::exception&) {
      throw InvalidArgument(std::string("AOTUNE_SIM_DELAY_MS='") + d +
                            "' is not a number of milliseconds");
    }
  }
  o.fail_configs = id_list("AOTUNE_SIM_FAIL");
  o.crash_configs = id_list("AOTUNE_SIM_CRASH");
  o.lose_context_configs = id_list("AOTUNE_SIM_LOSE_CONTEXT");
  return o;
}

DeviceInfo simulated_device_info(const std::string& arch) {
  const auto [major, minor] = parse_arch(arch);
  DeviceInfo d;
  d.name = "aotune simulated GPU (H200-like cost model)";
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = 132;
  d.l2_bytes = 50 * 1024 * 1024;
  d.simulated = true;
  return d;
}

double simulated_time_us(const TunableKernel& kernel, std::size_t config, const GridShape& shape) {
  // ~3.9 TB/s: BENCH.md's copy kernel. A less efficient config also pays a little more latency, so
  // small shapes have a best config too.
  constexpr double kLatencyUs = 2.0, kBytesPerUs = 3.9e6;
  const double eff = efficiency(kernel, config, shape.info);
  const uint64_t h = mix64(fnv1a64(kernel.config_id(config)) ^ mix64(fnv1a64(shape.key)));
  const double jitter = 1.0 + 0.04 * (unit_interval(h) - 0.5);
  return (kLatencyUs * (1.5 - 0.5 * eff) + shape.info.bytes_moved / (kBytesPerUs * eff)) * jitter;
}

SimulatedDevice::SimulatedDevice(SimulationOptions options, TimingProtocol protocol)
    : options_(std::move(options)), info_(simulated_device_info(options_.arch)) {
  protocol_ = for_device(protocol, info_);
}

std::unique_ptr<ShapeRunner> SimulatedDevice::prepare(const TunableKernel& kernel,
                                                      const GridShape& shape) {
  return std::make_unique<SimulatedShapeRunner>(*this, kernel, shape);
}

double SimulatedDevice::estimate_seconds(const ProblemInfo&, std::size_t configs) const {
  return static_cast<double>(configs) * (options_.delay_ms / 1000.0 + 2e-5);
}

}  // namespace aotune::tuner
