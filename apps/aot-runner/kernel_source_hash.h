// Kernel source hashes recomputed from a source tree, with the algorithm of cmake/SourceHash.cmake,
// so `verify --source-root DIR` can check a tree other than the one this binary was built from
// (an edited checkout, a CI workspace) without rebuilding.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace aotune::cli {

// Folder name under <root>/kernels (common excluded) -> SHA-256 over the folder's *.cu, *.cuh, *.h
// and *.cpp files followed by those of kernels/common, each as "<path from root>:<sha256>\n",
// sorted by path. Throws InvalidArgument when <root>/kernels is not a folder.
std::map<std::string, std::string> hash_kernel_folders(const std::filesystem::path& root);

// The folder under <root>/kernels whose registry adapter (*_kernel.cpp) names `kernel` as a quoted
// string ("jagged_sum" lives in jagged_reduce). Throws InvalidArgument when none or several do.
std::string kernel_folder(const std::filesystem::path& root, std::string_view kernel);

}  // namespace aotune::cli
