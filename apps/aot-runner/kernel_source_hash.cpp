#include "apps/aot-runner/kernel_source_hash.h"

#include <fmt/core.h>

#include <vector>

#include "kernels/common/errors.h"
#include "source_hash/kernel_source_hashes.h"

namespace aotune::cli {

namespace fs = std::filesystem;

std::string kernel_folder(const fs::path& root, std::string_view kernel) {
  const std::string quoted = fmt::format("\"{}\"", kernel);
  std::vector<std::string> found;
  for (const fs::path& dir : source_hash::kernel_folders(root)) {
    for (const fs::path& f : source_hash::source_files(dir)) {
      const std::string name = f.filename().string();
      if (name.size() <= 11 || !name.ends_with("_kernel.cpp")) continue;  // the registry adapter only
      if (source_hash::read_source(f).find(quoted) != std::string::npos) {
        found.push_back(dir.filename().string());
        break;
      }
    }
  }
  if (found.size() != 1) {
    throw InvalidArgument(fmt::format(
        "{}: {} of the folders under {}/kernels name kernel {} in their *_kernel.cpp registry "
        "adapter (expected exactly one); is this the source tree aot-runner was built from?",
        "--source-root", found.size(), root.string(), quoted));
  }
  return found.front();
}

}  // namespace aotune::cli
