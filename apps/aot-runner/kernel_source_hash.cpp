#include "apps/aot-runner/kernel_source_hash.h"

#include <fmt/core.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "codegen/sha256.h"
#include "kernels/common/errors.h"

namespace aotune::cli {

namespace fs = std::filesystem;

namespace {

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InvalidArgument("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The files cmake's file(GLOB dir/*.cu dir/*.cuh dir/*.h dir/*.cpp) finds, sorted by path.
std::vector<fs::path> source_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".cu" || ext == ".cuh" || ext == ".h" || ext == ".cpp")) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.string() < b.string(); });
  return files;
}

std::vector<fs::path> kernel_dirs(const fs::path& root) {
  const fs::path kernels = root / "kernels";
  if (!fs::is_directory(kernels)) {
    throw InvalidArgument(fmt::format(
        "--source-root {}: no kernels/ folder there; pass the root of an aotune checkout",
        root.string()));
  }
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(kernels)) {
    if (e.is_directory() && e.path().filename() != "common") dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace

std::map<std::string, std::string> hash_kernel_folders(const fs::path& root) {
  const std::vector<fs::path> dirs = kernel_dirs(root);  // checks root/kernels first
  if (!fs::is_directory(root / "kernels" / "common")) {
    throw InvalidArgument("--source-root " + root.string() + ": no kernels/common/ folder there");
  }
  std::vector<fs::path> common = source_files(root / "kernels" / "common");
  // The host-side input generator is not part of any kernel's hash (cmake/SourceHash.cmake leaves
  // out the same files): input values never change a timing.
  std::erase_if(common, [](const fs::path& f) {
    const std::string name = f.filename().string();
    return name == "host_data.h" || name == "host_data.cpp";
  });
  std::map<std::string, std::string> hashes;
  for (const fs::path& dir : dirs) {
    std::vector<fs::path> files = source_files(dir);
    // Nor are the kernel's heuristic features, <kernel>_features.cpp (cmake/SourceHash.cmake leaves
    // out the same file): they never change a timing, and verify checks the stored ones directly.
    const std::string features = dir.filename().string() + "_features.cpp";
    std::erase_if(files, [&](const fs::path& f) { return f.filename() == features; });
    files.insert(files.end(), common.begin(), common.end());
    std::string listing;
    for (const fs::path& f : files) {
      listing += fs::relative(f, root).generic_string() + ":" + codegen::sha256_hex(read_bytes(f)) + "\n";
    }
    hashes[dir.filename().string()] = codegen::sha256_hex(listing);
  }
  return hashes;
}

std::string kernel_folder(const fs::path& root, std::string_view kernel) {
  const std::string quoted = fmt::format("\"{}\"", kernel);
  std::vector<std::string> found;
  for (const fs::path& dir : kernel_dirs(root)) {
    for (const fs::path& f : source_files(dir)) {
      const std::string name = f.filename().string();
      const bool adapter = name.size() > 11 && name.ends_with("_kernel.cpp");
      if (adapter && read_bytes(f).find(quoted) != std::string::npos) {
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
