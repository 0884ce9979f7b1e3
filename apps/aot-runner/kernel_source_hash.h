// Which kernel folder of a source tree holds a kernel, so `verify --source-root DIR` can compare
// a checkout's recomputed source hashes (source_hash/kernel_source_hashes.h, the build's own
// algorithm) with the databases without rebuilding.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace aotune::cli {

// The folder under <root>/kernels whose registry adapter (*_kernel.cpp) names `kernel` as a quoted
// string ("jagged_sum" lives in jagged_reduce). Throws InvalidArgument when none or several do.
std::string kernel_folder(const std::filesystem::path& root, std::string_view kernel);

}  // namespace aotune::cli
