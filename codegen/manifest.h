// configs/manifest.json: the architectures every kernel must be tuned for and the kernels that
// must have results, e.g. {"architectures": ["sm90"], "kernels": ["jagged_sum", ...]}.
#pragma once

#include <string>
#include <vector>

namespace aotune::codegen {

struct Manifest {
  std::vector<std::string> architectures;
  std::vector<std::string> kernels;
};

// Throws InvalidArgument naming the file and the problem (missing, not JSON, bad architecture
// name, unknown kernel).
Manifest load_manifest(const std::string& path);

}  // namespace aotune::codegen
