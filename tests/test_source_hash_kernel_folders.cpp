// source_hash::hash_kernel_folders on a copy of this tree's kernels/: which edits move which
// kernel's hash. (test_cli_verify_kernel_edit.cpp checks that verify --source-root uses it.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "source_hash/kernel_source_hashes.h"
#include "tests/tuner_cli_support.h"

namespace aotune::source_hash {
namespace {

namespace fs = std::filesystem;
using tuner_test::TempDir;

using Hashes = std::map<std::string, std::string>;

fs::path copy_kernels(const TempDir& tmp) {
  const fs::path root = tmp / "tree";
  fs::create_directories(root);
  fs::copy(fs::path(AOTUNE_SOURCE_DIR) / "kernels", root / "kernels", fs::copy_options::recursive);
  return root;
}

void append(const fs::path& f, const std::string& text) {
  ASSERT_TRUE(fs::exists(f)) << f;
  std::ofstream(f, std::ios::app) << text;
}

// The kernels whose hash differs between two readings.
std::vector<std::string> moved(const Hashes& before, const Hashes& after) {
  std::vector<std::string> out;
  for (const auto& [k, h] : before) {
    if (after.at(k) != h) out.push_back(k);
  }
  return out;
}

TEST(SourceHashKernelFolders, HashesEveryKernelFolderLikeTheBuild) {
  TempDir tmp;
  const fs::path root = copy_kernels(tmp);
  const Hashes h = hash_kernel_folders(root);
  EXPECT_EQ(h.size(), 3u);  // jagged_reduce serves jagged_sum and jagged_mean
  EXPECT_TRUE(h.contains("jagged_reduce") && h.contains("jagged_dense_add") && h.contains("causal_trailing_mean"));
  EXPECT_EQ(hash_kernel_folders(root), h);  // deterministic
}

TEST(SourceHashKernelFolders, CommentsAndLayoutMoveNoHash) {
  TempDir tmp;
  const fs::path root = copy_kernels(tmp);
  const Hashes before = hash_kernel_folders(root);
  const fs::path cuh = root / "kernels/jagged_dense_add/jagged_dense_add_kernels.cuh";
  std::string text = tuner_test::read_text(cuh);
  const std::size_t ns = text.find("namespace");
  ASSERT_NE(ns, std::string::npos);
  text.insert(ns, "/* a new comment\n   over two lines */\n\n   ");
  tuner_test::write_text(cuh, text + "\n// a comment at the end\n\n");
  append(root / "kernels/common/jagged_lengths.cpp", "\n  // a common file's comment\n");
  EXPECT_EQ(hash_kernel_folders(root), before);
}

TEST(SourceHashKernelFolders, CodeMovesItsKernelsHashAndCommonCodeEveryHash) {
  TempDir tmp;
  const fs::path root = copy_kernels(tmp);
  const Hashes before = hash_kernel_folders(root);
  append(root / "kernels/jagged_dense_add/jagged_dense_add_kernels.cuh", "\nstatic_assert(true);\n");
  const Hashes one = hash_kernel_folders(root);
  EXPECT_EQ(moved(before, one), std::vector<std::string>{"jagged_dense_add"});
  append(root / "kernels/common/jagged_lengths.cpp", "\nstatic_assert(true);\n");
  EXPECT_EQ(moved(one, hash_kernel_folders(root)).size(), before.size());
}

// Files that never change a timing: the shared input generator, each kernel's heuristic features,
// and a kernel's input values and test shapes (<folder>_inputs.{h,cpp}).
TEST(SourceHashKernelFolders, InputsFeaturesAndTheInputGeneratorMoveNoHash) {
  TempDir tmp;
  const fs::path root = copy_kernels(tmp);
  const Hashes before = hash_kernel_folders(root);
  append(root / "kernels/common/host_data.cpp", "\nstatic_assert(true);\n");
  append(root / "kernels/jagged_dense_add/jagged_dense_add_features.cpp", "\nstatic_assert(true);\n");
  append(root / "kernels/causal_trailing_mean/causal_trailing_mean_inputs.cpp", "\nstatic_assert(true);\n");
  append(root / "kernels/causal_trailing_mean/causal_trailing_mean_inputs.h", "\nstatic_assert(true);\n");
  EXPECT_EQ(hash_kernel_folders(root), before);
  // The adapter next to them is code that sizes problems: it is in.
  append(root / "kernels/causal_trailing_mean/causal_trailing_mean_kernel.cpp", "\nstatic_assert(true);\n");
  EXPECT_EQ(moved(before, hash_kernel_folders(root)), std::vector<std::string>{"causal_trailing_mean"});
}

TEST(SourceHashKernelFolders, ATreeWithoutKernelsIsAnErrorNamingIt) {
  TempDir tmp;
  try {
    hash_kernel_folders(tmp.path());
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no kernels/ folder"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aotune::source_hash
