// aotune_source_hash SOURCE_ROOT OUTPUT_HEADER: writes the kernel source hashes of the tree at
// SOURCE_ROOT (kernel_source_hashes.h) as the header the kernels library compiles in. The build
// runs it whenever a hashed file changes; the header is rewritten only when its content changes,
// so a comment edit rebuilds nothing that includes it.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "source_hash/kernel_source_hashes.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SOURCE_ROOT OUTPUT_HEADER\n", argc > 0 ? argv[0] : "aotune_source_hash");
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path out = argv[2];
  try {
    const std::string body =
        aotune::source_hash::source_hashes_header(aotune::source_hash::hash_kernel_folders(argv[1]));
    if (fs::exists(out) && aotune::source_hash::read_source(out) == body) return 0;
    fs::create_directories(out.parent_path());
    const fs::path tmp = out.string() + ".tmp";
    {
      std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
      o << body;
      if (!o.flush()) {
        std::fprintf(stderr, "aotune_source_hash: cannot write %s\n", tmp.c_str());
        return 1;
      }
    }
    fs::rename(tmp, out);  // never a half-written header
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aotune_source_hash: %s\n", e.what());
    return 1;
  }
  return 0;
}
