#include "tuner/device_setup.h"

#include <unistd.h>

#include <sstream>

#include "tuner/child_process.h"
#include "tuner/gpu_device.h"

namespace aotune::tuner {

namespace {

// The simulated machine has two GPUs, like the two-GPU variant of the test machine.
constexpr int kSimulatedDevices = 2;

void write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::vector<int> parse_device_list(const std::string& text, int available) {
  std::vector<int> out;
  if (text == "all") {
    for (int i = 0; i < available; ++i) out.push_back(i);
    return out;
  }
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
        item.size() > 4) {
      throw InvalidArgument("--devices '" + text + "': expected 'all' or ordinals such as 0,1");
    }
    const int d = std::stoi(item);
    if (d >= available) {
      throw InvalidArgument("--devices '" + text + "': device " + item + " does not exist (" +
                            std::to_string(available) + " visible; see CUDA_VISIBLE_DEVICES)");
    }
    for (int seen : out) {
      if (seen == d)
        throw InvalidArgument("--devices '" + text + "' names device " + item + " twice");
    }
    out.push_back(d);
  }
  if (out.empty())
    throw InvalidArgument("--devices is empty: expected 'all' or ordinals such as 0,1");
  return out;
}

DeviceSetup setup_devices(const TuneOptions& o) {
  DeviceSetup setup;
  setup.simulate = o.simulate;
  if (o.simulate) {
    setup.simulation = SimulationOptions::from_environment(o.arch.empty() ? "sm90" : o.arch);
    if (o.sim_delay_ms >= 0) setup.simulation.delay_ms = o.sim_delay_ms;
    setup.info = simulated_device_info(setup.simulation.arch);
    setup.ordinals = parse_device_list(o.devices, kSimulatedDevices);
    setup.protocol = for_device(o.protocol, setup.info);
    return setup;
  }
  // Ask a child: {"count": n, "devices": [{...}, ...]} for every visible device.
  ChildStatus status;
  const std::string reply = run_child_capturing(
      [](int fd) {
        const int count = cuda_device_count();
        nlohmann::ordered_json j = {{"count", count}, {"devices", nlohmann::ordered_json::array()}};
        for (int i = 0; i < count; ++i) j["devices"].push_back(to_json(query_device(i)));
        write_all(fd, j.dump());
        return 0;
      },
      status);
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(reply);
  } catch (const nlohmann::json::exception&) {
    throw NoGpu("could not query the CUDA devices (probe process ended with " + status.describe() +
                "); check nvidia-smi, or use --device sim to try the tuner without a GPU");
  }
  const int count = j.at("count").get<int>();
  if (count == 0) {
    throw NoGpu(
        "no usable CUDA device (driver missing, no GPU, or CUDA_VISIBLE_DEVICES empty); run on a "
        "GPU "
        "machine, or use --device sim to try the tuner without one");
  }
  setup.ordinals = parse_device_list(o.devices, count);
  setup.info = device_info_from_json(j["devices"][setup.ordinals.front()]);
  for (int d : setup.ordinals) {
    const DeviceInfo other = device_info_from_json(j["devices"][d]);
    if (const std::string diff = describe_difference(setup.info, other); !diff.empty()) {
      throw InvalidArgument("devices " + std::to_string(setup.ordinals.front()) + " and " +
                            std::to_string(d) + " differ (" + diff +
                            "); one database needs identical GPUs: pick them with --devices");
    }
  }
  if (!o.arch.empty() && o.arch != setup.info.arch()) {
    throw InvalidArgument("the GPU is " + setup.info.arch() + " (" + setup.info.name +
                          ") but --arch " + o.arch + " was given; drop --arch to tune this GPU");
  }
  setup.protocol = for_device(o.protocol, setup.info);
  return setup;
}

std::unique_ptr<MeasurementDevice> open_device(const DeviceSetup& setup, int ordinal) {
  if (setup.simulate) return std::make_unique<SimulatedDevice>(setup.simulation, setup.protocol);
  auto device = std::make_unique<GpuDevice>(ordinal, setup.protocol);
  if (const std::string diff = describe_difference(device->info(), setup.info); !diff.empty()) {
    throw Error("device " + std::to_string(ordinal) + " is not the one probed: " + diff);
  }
  return device;
}

}  // namespace aotune::tuner
