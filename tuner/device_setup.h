// Which devices a sweep runs on and under what protocol. The parent learns a GPU's identity from a
// short-lived child process, so that it never initialises CUDA itself (a forked child of a process
// with a CUDA context cannot use CUDA).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/common/errors.h"
#include "tuner/measurement_device.h"
#include "tuner/simulated_device.h"
#include "tuner/tune_session.h"

namespace aotune::tuner {

// No usable CUDA device for a GPU sweep.
class NoGpu : public Error {
 public:
  using Error::Error;
};

struct DeviceSetup {
  bool simulate = false;
  DeviceInfo info;            // every device of the sweep has this identity
  std::vector<int> ordinals;  // one worker per entry
  TimingProtocol protocol;
  SimulationOptions simulation;
};

// "all" -> 0..available-1; "0,2" -> {0, 2}. Throws InvalidArgument for bad or out-of-range
// ordinals.
std::vector<int> parse_device_list(const std::string& text, int available);

// Probes the GPUs in a child process (or builds the simulated device). Throws NoGpu.
DeviceSetup setup_devices(const TuneOptions& options);

// Opens device `ordinal` for measuring. In a GPU sweep only a worker process calls this.
std::unique_ptr<MeasurementDevice> open_device(const DeviceSetup& setup, int ordinal);

}  // namespace aotune::tuner
