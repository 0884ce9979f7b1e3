// Kernel source hashes: one SHA-256 per kernel folder, over the code (code_text.h: comments and
// layout left out) of the files that can change a timing. The build embeds them
// (generated/source_hashes.h, written by the aotune_source_hash tool, source_hash/main.cpp),
// results databases record the hash they were tuned against, and `aot-runner verify
// --source-root DIR` recomputes them for a checkout without rebuilding. One implementation
// serves all three, so the build and verify cannot disagree on what a kernel's source is.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aotune::source_hash {

// A file's bytes. Throws InvalidArgument naming a file that cannot be read.
std::string read_source(const std::filesystem::path& file);

// A folder's *.cu, *.cuh, *.h and *.cpp files, sorted by path.
std::vector<std::filesystem::path> source_files(const std::filesystem::path& dir);

// The kernel folders under <root>/kernels (common excluded), sorted. Throws InvalidArgument when
// <root>/kernels is not a folder.
std::vector<std::filesystem::path> kernel_folders(const std::filesystem::path& root);

// Folder name under <root>/kernels -> SHA-256 (hex) of the listing "<path from root>:<sha256 of
// the file's code_text>\n" over the folder's source files followed by those of kernels/common,
// sorted by path, less the files that never change a timing:
//   - kernels/common/host_data.{h,cpp}, the host-side input generator: input values never change
//     a timing (row lengths, which do, come from jagged_lengths.* and stay in);
//   - <folder>/<folder>_features.cpp, the heuristic features: databases store them and verify
//     compares them with the built code (tuner/feature_refresh.h);
//   - <folder>/<folder>_inputs.{h,cpp}, where a kernel keeps its input values and test shapes
//     (causal_trailing_mean_inputs.h): neither changes a timing.
// Throws InvalidArgument when <root>/kernels or <root>/kernels/common is not a folder, or a file
// cannot be read.
std::map<std::string, std::string> hash_kernel_folders(const std::filesystem::path& root);

// The header the build includes: `inline constexpr const char* <folder> = "<hash>";` per kernel
// folder, in namespace aotune::source_hashes. Throws InvalidArgument for a folder name that is
// not a C++ identifier.
std::string source_hashes_header(const std::map<std::string, std::string>& hashes);

}  // namespace aotune::source_hash
