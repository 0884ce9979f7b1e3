// The generic face of a tunable kernel. The tuner, the tests, the heuristics and the CLI see every
// kernel only through these two interfaces, so adding a kernel touches its own folder plus one line
// in registry.cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace aotune {

// Whether a config can run a problem, and if not, why (recorded in results databases).
struct Legality {
  bool ok = true;
  std::string reason;
  static Legality yes() { return {}; }
  static Legality no(std::string why) { return {false, std::move(why)}; }
};

// Named shape features, in a fixed order per kernel (the heuristics read them by position).
using Features = std::vector<std::pair<std::string, double>>;

// What a shape spec resolves to on the host: no GPU needed, fully determined by the spec.
struct ProblemInfo {
  nlohmann::json shape;             // the spec it came from, normalised (defaults filled in)
  Features features;                // caller-known sizes plus derived ones
  double bytes_moved = 0;           // fewest bytes the op must move (BENCH.md model)
  std::vector<Legality> legality;   // one entry per config, in config-space order
};

// Outcome of comparing a kernel's output with the float64 reference.
struct CheckResult {
  bool ok = false;
  double max_error = 0;      // largest |out - ref| / (|ref| + scale), see reference_compare.h
  long long bad_index = -1;  // first element over tolerance (or unwritten), -1 if none
  std::string message;       // empty when ok
};

// Device inputs and output of one shape, built once and run with any config.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual const ProblemInfo& info() const = 0;
  // Launch config `index` on `stream`. The caller checked info().legality[index].ok.
  virtual void launch(std::size_t index, cudaStream_t stream) = 0;
  // Fill the output with NaN so unwritten elements fail the check.
  virtual void poison_output(cudaStream_t stream) = 0;
  // Synchronises, copies the output back and compares it with the float64 reference.
  virtual CheckResult check() = 0;
};

class TunableKernel {
 public:
  virtual ~TunableKernel() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  // Hash of the kernel's sources and config space, computed by the build (source_hashes.h).
  virtual std::string_view source_hash() const = 0;

  virtual std::size_t num_configs() const = 0;
  // Stable, human-readable id, e.g. "block_row.t256.v4"; unique within the kernel.
  virtual std::string config_id(std::size_t index) const = 0;
  virtual nlohmann::json config_json(std::size_t index) const = 0;

  // Resolve a shape spec (sizes, length distribution, dtype, seed, ...) on the host.
  // Throws InvalidArgument naming the bad field.
  virtual ProblemInfo describe(const nlohmann::json& shape) const = 0;
  // Build random inputs for the spec on the current device and its float64 reference.
  virtual std::unique_ptr<Workload> make_workload(const nlohmann::json& shape) const = 0;
  // Shapes the GPU tests run every config on: edge cases first.
  virtual std::vector<nlohmann::json> test_shapes() const = 0;
};

}  // namespace aotune
