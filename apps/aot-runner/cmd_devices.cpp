// `aot-runner devices`: the GPUs this process can use, their compute capability and SM count, and
// for each kernel the architecture fallback chain and the heuristic a call on that GPU would use.
// --arch shows the same for a GPU of that architecture without one (what sm120 or sm75 would get).
#include <cuda_runtime_api.h>
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aotune/arch_fallback.h"
#include "aotune/heuristic_store.h"
#include "apps/aot-runner/commands.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/device_info.h"
#include "tuner/device_setup.h"

namespace aotune::cli {

namespace {

struct DevicesArgs {
  std::vector<std::string> archs;
  bool json = false;
};

constexpr const char* kNoDevice =
    "no usable CUDA device (no GPU, no driver, or CUDA_VISIBLE_DEVICES hides them); run on a GPU "
    "machine (nvidia-smi should list it), or pass --arch sm90 to see what a GPU of that "
    "architecture would use";

// Per kernel: the fallback chain of a device of `arch` and the heuristic it ends on.
nlohmann::ordered_json kernel_routes(const dispatch::HeuristicStore& store, int arch) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const TunableKernel* k : all_kernels()) {
    const std::vector<int> tuned = store.tuned_archs(k->name());
    nlohmann::ordered_json chain = nlohmann::ordered_json::array();
    for (const int a : fallback_chain(arch, tuned)) chain.push_back(arch_name(a));
    nlohmann::ordered_json tuned_names = nlohmann::ordered_json::array();
    for (const int a : tuned) tuned_names.push_back(arch_name(a));
    const dispatch::KernelHeuristic* h = store.for_device(k->name(), arch);
    out.push_back({{"kernel", std::string(k->name())},
                   {"tuned_archs", tuned_names},
                   {"fallback_chain", chain},
                   {"uses", h != nullptr ? nlohmann::ordered_json(arch_name(h->arch))
                                         : nlohmann::ordered_json(nullptr)},
                   {"heuristic_source", h != nullptr ? h->source : std::string()}});
  }
  return out;
}

void print_routes(const nlohmann::ordered_json& routes) {
  fmt::print("  {:<22} {:<34} {}\n", "kernel", "fallback chain (newest first)", "uses");
  for (const auto& r : routes) {
    std::string chain;
    for (const auto& a : r["fallback_chain"]) chain += (chain.empty() ? "" : " -> ") + a.get<std::string>();
    // No heuristic: either none is usable for the kernel (dropped as stale, or never tuned), or
    // the GPU is older than every tuned architecture.
    const std::string uses =
        !r["uses"].is_null()
            ? r["uses"].get<std::string>() + " heuristic (" +
                  r["heuristic_source"].get<std::string>() + ")"
        : r["tuned_archs"].empty()
            ? "the default config: no usable heuristic for this kernel (see any warning above)"
            : "the default config: older than every tuned architecture";
    fmt::print("  {:<22} {:<34} {}\n", r["kernel"].get<std::string>(), chain, uses);
  }
}

nlohmann::ordered_json describe_gpu(int ordinal, const dispatch::HeuristicStore& store) {
  const tuner::DeviceInfo d = tuner::query_device(ordinal);
  std::size_t free_bytes = 0, total_bytes = 0;
  AOTUNE_CUDA_CHECK(cudaSetDevice(ordinal));
  AOTUNE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  nlohmann::ordered_json j;
  j["ordinal"] = ordinal;
  j["name"] = d.name;
  j["arch"] = d.arch();
  j["compute_capability"] = d.compute_capability();
  j["sm_count"] = d.sm_count;
  j["l2_bytes"] = d.l2_bytes;
  j["memory_bytes"] = total_bytes;
  j["driver_version"] = d.driver_version;
  j["runtime_version"] = d.runtime_version;
  j["kernels"] = kernel_routes(store, d.cc_major * 10 + d.cc_minor);
  return j;
}

}  // namespace

void register_devices(CLI::App& app) {
  auto args = std::make_shared<DevicesArgs>();
  auto* cmd = app.add_subcommand(
      "devices", "List the usable GPUs and the tuned heuristic each kernel would use on them");
  cmd->footer(
      "Examples: aot-runner devices\n"
      "          aot-runner devices --arch sm120,sm75 --json   # hypothetical GPUs, no GPU needed\n"
      "Without a usable GPU (and no --arch) it exits with 3; with --json it still prints\n"
      "{\"devices\": [], \"error\": \"...\"} on stdout first, so a tool can read the empty list.\n"
      "Fallback: a GPU uses its own architecture's heuristic, else the newest tuned older one\n"
      "(sm120 -> sm100 -> sm90 -> ...); a GPU older than every tuned one runs the default config.");
  cmd->add_option("--arch", args->archs,
                  "Instead of the GPUs here, show GPUs of these architectures (comma-separated)")
      ->delimiter(',');
  cmd->add_flag("--json", args->json, "Print {\"devices\": [...]} on stdout");
  cmd->callback([args] {
    const auto store = dispatch::current_store();
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    if (!args->archs.empty()) {
      for (const std::string& name : args->archs) {
        const int arch = parse_arch_name(name);
        devices.push_back({{"arch", arch_name(arch)}, {"hypothetical", true},
                           {"kernels", kernel_routes(*store, arch)}});
      }
    } else {
      const int count = tuner::cuda_device_count();
      if (count == 0) {
        if (args->json) {
          fmt::print("{}\n", nlohmann::ordered_json{{"devices", nlohmann::ordered_json::array()},
                                                    {"error", kNoDevice}}
                                 .dump(2));
        }
        throw tuner::NoGpu(kNoDevice);
      }
      for (int i = 0; i < count; ++i) devices.push_back(describe_gpu(i, *store));
    }
    if (args->json) {
      fmt::print("{}\n", nlohmann::ordered_json{{"devices", devices}}.dump(2));
      return;
    }
    for (const auto& d : devices) {
      if (d.contains("ordinal")) {
        fmt::print("GPU {}: {} ({}, compute capability {}, {} SMs, {} MiB L2, {} GiB)\n",
                   d["ordinal"].get<int>(), d["name"].get<std::string>(),
                   d["arch"].get<std::string>(), d["compute_capability"].get<std::string>(),
                   d["sm_count"].get<int>(), d["l2_bytes"].get<int64_t>() >> 20,
                   d["memory_bytes"].get<std::size_t>() >> 30);
      } else {
        fmt::print("a GPU of {} (hypothetical):\n", d["arch"].get<std::string>());
      }
      print_routes(d["kernels"]);
    }
  });
}

}  // namespace aotune::cli
