// CPU tests of jagged_dense_add: config space, JSON, legality, validation, reference and
// describe(). GPU correctness of every config on every test shape is covered by the generic kernel
// test.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernels/common/errors.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"
#include "kernels/jagged_dense_add/jagged_dense_add_kernel.h"

namespace {

namespace jda = aotune::jagged_dense_add;
using aotune::DType;
using aotune::IndexType;
using aotune::InvalidArgument;

const void* fake(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

// A problem with 256-byte aligned fake pointers: supports() and validate() only read addresses.
jda::Problem aligned_problem(int64_t B, int64_t N, int64_t nnz, DType dtype = DType::f32) {
  jda::Problem p;
  p.B = B;
  p.N = N;
  p.nnz = nnz;
  p.dtype = dtype;
  p.x = fake(0x10000);
  p.offsets = fake(0x20000);
  p.y = fake(0x30000);
  p.out = const_cast<void*>(fake(0x40000));
  return p;
}

// The message validate() throws, or "" when it accepts the problem.
std::string validate_error(const jda::Problem& p) {
  try {
    jda::validate(p);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return {};
}

jda::Config config(jda::Strategy s, int threads, int rows, int vec) {
  return {s, threads, rows, vec};
}

TEST(JaggedDenseAddConfigSpace, HasAtLeast24ConfigsWithUniqueIds) {
  const auto& space = jda::config_space();
  EXPECT_GE(space.size(), 24u);
  std::set<std::string> ids;
  for (const auto& c : space) ids.insert(jda::config_id(c));
  EXPECT_EQ(ids.size(), space.size());
  EXPECT_EQ(aotune::jagged_dense_add_kernel().num_configs(), space.size());
}

TEST(JaggedDenseAddConfigSpace, HasAtLeast24LegalConfigsForEveryDtypeOnAnAlignedShape) {
  for (DType dtype : {DType::f32, DType::bf16, DType::f16}) {
    const jda::Problem p = aligned_problem(64, 1024, 5000, dtype);
    int legal = 0;
    for (const auto& c : jda::config_space()) legal += jda::supports(c, p).ok ? 1 : 0;
    EXPECT_GE(legal, 24) << aotune::to_string(dtype);
  }
}

TEST(JaggedDenseAddConfigSpace, RoundTripsEveryConfigThroughJson) {
  for (const auto& c : jda::config_space()) {
    const nlohmann::json j = jda::to_json(c);
    EXPECT_EQ(jda::config_from_json(nlohmann::json::parse(j.dump())), c) << j.dump();
  }
}

TEST(JaggedDenseAddConfigSpace, RejectsMalformedConfigJsonNamingTheField) {
  const auto error = [](const nlohmann::json& j) {
    try {
      jda::config_from_json(j);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error({{"strategy", "diagonal"}, {"threads", 256}, {"vec", 1}}).find("diagonal"),
            std::string::npos);
  EXPECT_NE(error({{"strategy", "flat"}, {"threads", 256}, {"vec", 3}}).find("vec=3"),
            std::string::npos);
  EXPECT_NE(error({{"strategy", "row_block"}, {"threads", 256}, {"rows_per_block", 3}, {"vec", 1}})
                .find("rows_per_block=3"),
            std::string::npos);
  EXPECT_NE(error({{"strategy", "flat"}, {"vec", 1}}).find("threads"), std::string::npos);
}

TEST(JaggedDenseAddSupports, RowBlockRejectsVectorWidthThatDoesNotDivideNWhileFlatCrossesRows) {
  const jda::Problem p = aligned_problem(10, 6, 20, DType::bf16);
  EXPECT_TRUE(jda::supports(config(jda::Strategy::row_block, 256, 1, 2), p).ok);
  const aotune::Legality l = jda::supports(config(jda::Strategy::row_block, 256, 1, 4), p);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("N=6"), std::string::npos) << l.reason;
  // flat's vectors tile the whole [B*N] array (flat_rows_kernel), so any N takes any width.
  EXPECT_TRUE(jda::supports(config(jda::Strategy::flat, 256, 0, 8), p).ok);
  EXPECT_TRUE(
      jda::supports(config(jda::Strategy::flat, 256, 0, 8), aligned_problem(3, 1, 3, DType::f16))
          .ok);
}

TEST(JaggedDenseAddSupports, RejectsVectorWidthWhenYOrOutIsMisaligned) {
  jda::Problem p = aligned_problem(10, 64, 20, DType::f32);
  p.y = fake(0x30000 + 4);
  const aotune::Legality l = jda::supports(config(jda::Strategy::flat, 256, 0, 4), p);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("aligned"), std::string::npos) << l.reason;
  EXPECT_TRUE(jda::supports(config(jda::Strategy::flat, 256, 0, 1), p).ok);

  p = aligned_problem(10, 64, 20, DType::f32);
  p.out = const_cast<void*>(fake(0x40000 + 8));
  EXPECT_FALSE(jda::supports(config(jda::Strategy::row_block, 128, 4, 4), p).ok);
  EXPECT_TRUE(jda::supports(config(jda::Strategy::row_block, 128, 4, 2), p).ok);
}

TEST(JaggedDenseAddSupports, IgnoresTheAlignmentOfXBecauseItsRowsStartAnywhere) {
  jda::Problem p = aligned_problem(10, 64, 20, DType::f16);
  p.x = fake(0x10000 + 2);
  for (const auto& c : jda::config_space()) {
    EXPECT_EQ(jda::supports(c, p).ok, c.vec * 2 <= 16) << jda::config_id(c);
  }
}

TEST(JaggedDenseAddSupports, RejectsVectorsWiderThan16Bytes) {
  const jda::Problem p = aligned_problem(10, 64, 20, DType::f32);
  const aotune::Legality l = jda::supports(config(jda::Strategy::row_block, 256, 1, 8), p);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("16-byte"), std::string::npos) << l.reason;
}

TEST(JaggedDenseAddSupports, FollowsTheDivisibilityAndAlignmentRuleOnRandomProblems) {
  std::mt19937_64 rng(20261129);
  for (int trial = 0; trial < 500; ++trial) {
    const DType dtype = static_cast<DType>(rng() % 3);
    const std::size_t s = aotune::dtype_size(dtype);
    const int64_t N = 1 + static_cast<int64_t>(rng() % 300);
    jda::Problem p = aligned_problem(1 + static_cast<int64_t>(rng() % 50), N, 0, dtype);
    const std::uintptr_t y_shift = (rng() % 8) * s, out_shift = (rng() % 8) * s;
    p.y = fake(0x30000 + y_shift);
    p.out = const_cast<void*>(fake(0x40000 + out_shift));
    for (const auto& c : jda::config_space()) {
      const std::size_t bytes = static_cast<std::size_t>(c.vec) * s;
      const bool divides = c.strategy == jda::Strategy::flat || N % c.vec == 0;
      const bool expected =
          bytes <= 16 && divides && y_shift % bytes == 0 && out_shift % bytes == 0;
      EXPECT_EQ(jda::supports(c, p).ok, expected) << jda::config_id(c) << " N=" << N << " s=" << s
                                                  << " y+" << y_shift << " out+" << out_shift;
    }
  }
}

TEST(JaggedDenseAddTestShapes, AreEachSupportedBySomeConfigAndMisalignedOnesByEveryVecOneConfig) {
  const auto& kernel = aotune::jagged_dense_add_kernel();
  const auto shapes = kernel.test_shapes();
  ASSERT_FALSE(shapes.empty());
  std::set<uint64_t> seeds;
  for (const auto& shape : shapes) {
    const aotune::ProblemInfo info = kernel.describe(shape);
    ASSERT_EQ(info.legality.size(), kernel.num_configs());
    bool any = false;
    for (std::size_t i = 0; i < info.legality.size(); ++i) {
      any = any || info.legality[i].ok;
      if (jda::config_space()[i].vec == 1) {
        EXPECT_TRUE(info.legality[i].ok) << shape.dump() << " " << kernel.config_id(i);
      }
    }
    EXPECT_TRUE(any) << shape.dump();
    seeds.insert(shape.at("seed").get<uint64_t>());
  }
  EXPECT_EQ(seeds.size(), shapes.size()) << "every test shape draws its own inputs";
}

TEST(JaggedDenseAddTestShapes, CoverEmptyBatchesNarrowRowsAndMisalignmentInEveryDtypeAndIndexType) {
  const auto shapes = aotune::jagged_dense_add_kernel().test_shapes();
  std::set<std::string> seen;
  for (const auto& s : shapes) {
    const std::string tag =
        s.at("dtype").get<std::string>() + "/" + s.at("index").get<std::string>();
    if (s.at("B") == 0) seen.insert("B=0 " + tag);
    if (s.at("N") == 1) seen.insert("N=1 " + tag);
    if (s.value("misalign", 0) == 1) seen.insert("misalign " + tag);
  }
  for (const char* dtype : {"f32", "bf16", "f16"})
    for (const char* index : {"i32", "i64"})
      for (const char* what : {"B=0 ", "N=1 ", "misalign "})
        EXPECT_TRUE(seen.count(std::string(what) + dtype + "/" + index))
            << what << dtype << "/" << index;
}

TEST(JaggedDenseAddValidate, AcceptsAWellFormedProblemAndAnEmptyBatch) {
  EXPECT_EQ(validate_error(aligned_problem(4, 8, 10)), "");
  jda::Problem empty = aligned_problem(0, 8, 0);
  empty.x = nullptr;
  empty.y = nullptr;
  empty.out = nullptr;
  EXPECT_EQ(validate_error(empty), "");
}

TEST(JaggedDenseAddValidate, RejectsNegativeSizesNamingTheValue) {
  jda::Problem p = aligned_problem(-3, 8, 0);
  EXPECT_NE(validate_error(p).find("B must be >= 0, got -3"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, -7, 0);
  EXPECT_NE(validate_error(p).find("N must be >= 0, got -7"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, -1);
  EXPECT_NE(validate_error(p).find("nnz must be >= 0, got -1"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, 10);
  p.max_len = -2;
  EXPECT_NE(validate_error(p).find("max_len=-2"), std::string::npos) << validate_error(p);
}

TEST(JaggedDenseAddValidate, RejectsNullPointersWhenThereIsDataToRead) {
  jda::Problem p = aligned_problem(4, 8, 10);
  p.offsets = nullptr;
  EXPECT_NE(validate_error(p).find("offsets is a null pointer"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, 10);
  p.x = nullptr;
  EXPECT_NE(validate_error(p).find("x is a null pointer with nnz=10"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, 10);
  p.y = nullptr;
  EXPECT_NE(validate_error(p).find("y is a null pointer with B*N=32"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, 10);
  p.out = nullptr;
  EXPECT_NE(validate_error(p).find("out is a null pointer with B*N=32"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, 0);
  p.x = nullptr;  // no jagged values at all: x is never read
  EXPECT_EQ(validate_error(p), "");
}

TEST(JaggedDenseAddValidate, RejectsSizesWhoseProductOverflows) {
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  const jda::Problem p = aligned_problem(big, 3, 0);
  EXPECT_NE(validate_error(p).find("B*N overflows int64: B=" + std::to_string(big) + ", N=3"),
            std::string::npos)
      << validate_error(p);
}

TEST(JaggedDenseAddValidate, RejectsNnzThatDoesNotFitInt32Offsets) {
  jda::Problem p = aligned_problem(1 << 20, 1 << 12, int64_t{3} << 30);
  p.index = IndexType::i32;
  EXPECT_NE(validate_error(p).find("nnz=3221225472 does not fit int32 offsets"), std::string::npos)
      << validate_error(p);
  p.index = IndexType::i64;
  EXPECT_EQ(validate_error(p), "");
}

TEST(JaggedDenseAddValidate, RejectsMoreJaggedValuesThanDenseCells) {
  const jda::Problem p = aligned_problem(4, 8, 33);
  EXPECT_NE(validate_error(p).find("nnz=33 exceeds B*N=32"), std::string::npos)
      << validate_error(p);
}

TEST(JaggedDenseAddValidate, RejectsMaxLenLongerThanN) {
  jda::Problem p = aligned_problem(4, 8, 10);
  p.max_len = 9;
  EXPECT_NE(validate_error(p).find("max_len=9"), std::string::npos) << validate_error(p);
  p.max_len = 8;
  EXPECT_EQ(validate_error(p), "");
}

TEST(JaggedDenseAddValidate, RejectsPointersNotAlignedToTheirElements) {
  jda::Problem p = aligned_problem(4, 8, 10, DType::f32);
  p.y = fake(0x30002);
  EXPECT_NE(validate_error(p).find("y is not aligned to its 4-byte elements"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, 10, DType::bf16);
  p.x = fake(0x10001);
  EXPECT_NE(validate_error(p).find("x is not aligned to its 2-byte elements"), std::string::npos)
      << validate_error(p);
  p = aligned_problem(4, 8, 10, DType::bf16);
  p.offsets = fake(0x20004);
  EXPECT_NE(validate_error(p).find("offsets is not aligned to its 8-byte entries"),
            std::string::npos)
      << validate_error(p);
}

TEST(JaggedDenseAddLaunch, RejectsAnUnsupportedConfigBeforeTouchingTheDevice) {
  const jda::Problem p = aligned_problem(4, 6, 10, DType::f16);
  try {
    jda::launch(config(jda::Strategy::row_block, 256, 1, 4), p, nullptr, nullptr);
    FAIL() << "launch accepted vec=4 with N=6";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("row_block.t256.r1.v4"), std::string::npos) << e.what();
  }
}

TEST(JaggedDenseAddLaunch, LaunchesNothingForAnEmptyBatch) {
  // No device call happens for B = 0, so this runs without a GPU.
  EXPECT_NO_THROW(
      jda::launch(jda::config_space().front(), aligned_problem(0, 8, 0), nullptr, nullptr));
}

TEST(JaggedDenseAddReference, AddsEachRowOntoItsLeadingColumns) {
  // Rows of length 2, 0 and 3 over N = 3.
  const std::vector<double> x = {1, 2, 10, 20, 30};
  const std::vector<int64_t> offsets = {0, 2, 2, 5};
  const std::vector<double> y = {0.5, 0.5, 0.5, -1, -2, -3, 100, 200, 300};
  const std::vector<double> expected = {1.5, 2.5, 0.5, -1, -2, -3, 110, 220, 330};
  EXPECT_EQ(jda::reference(x, offsets, y, 3), expected);
}

TEST(JaggedDenseAddReference, MatchesTheDefinitionElementByElementOnRandomInputs) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(-1, 1);
  for (int trial = 0; trial < 50; ++trial) {
    const int64_t B = static_cast<int64_t>(rng() % 20), N = 1 + static_cast<int64_t>(rng() % 40);
    std::vector<int64_t> offsets = {0};
    for (int64_t b = 0; b < B; ++b)
      offsets.push_back(offsets.back() + static_cast<int64_t>(rng() % (N + 1)));
    std::vector<double> x(static_cast<std::size_t>(offsets.back())),
        y(static_cast<std::size_t>(B * N));
    for (auto& v : x) v = value(rng);
    for (auto& v : y) v = value(rng);
    const std::vector<double> out = jda::reference(x, offsets, y, N);
    ASSERT_EQ(out.size(), y.size());
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t n = 0; n < N; ++n) {
        const bool in_row = n < offsets[b + 1] - offsets[b];
        const double want = y[b * N + n] + (in_row ? x[offsets[b] + n] : 0.0);
        EXPECT_EQ(out[b * N + n], want) << "b=" << b << " n=" << n;
      }
    }
  }
}

TEST(JaggedDenseAddDescribe, IsDeterministicAndNormalisesTheSpec) {
  const auto& kernel = aotune::jagged_dense_add_kernel();
  const nlohmann::json spec = {
      {"B", 300}, {"N", 96}, {"len", 40}, {"dist", "powerlaw"}, {"seed", 5}};
  const aotune::ProblemInfo a = kernel.describe(spec), b = kernel.describe(spec);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.features, b.features);
  EXPECT_EQ(a.bytes_moved, b.bytes_moved);
  ASSERT_EQ(a.legality.size(), b.legality.size());
  for (std::size_t i = 0; i < a.legality.size(); ++i) {
    EXPECT_EQ(a.legality[i].ok, b.legality[i].ok);
    EXPECT_EQ(a.legality[i].reason, b.legality[i].reason);
  }
  EXPECT_EQ(a.shape.at("N"), 96);
  EXPECT_EQ(a.shape.at("cap"), 96);
  EXPECT_EQ(a.shape.at("dtype"), "f32");
  EXPECT_EQ(a.shape.at("index"), "i64");
}

TEST(JaggedDenseAddDescribe, CountsBytesMovedByTheBenchModel) {
  const auto& kernel = aotune::jagged_dense_add_kernel();
  const nlohmann::json spec = {{"B", 10},         {"N", 64},         {"len", 64},
                               {"dist", "fixed"}, {"dtype", "bf16"}, {"index", "i32"}};
  const aotune::ProblemInfo info = kernel.describe(spec);
  // nnz = 640: x 640*2, y and out 2*640*2, offsets 11*4.
  EXPECT_DOUBLE_EQ(info.bytes_moved, 640.0 * 2 + 2.0 * 640 * 2 + 11.0 * 4);
}

TEST(JaggedDenseAddDescribe, RejectsACapAboveNAndAMissingN) {
  const auto& kernel = aotune::jagged_dense_add_kernel();
  try {
    kernel.describe({{"B", 10}, {"N", 64}, {"len", 8}, {"cap", 65}});
    FAIL() << "cap above N accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'cap'=65 exceeds N=64"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kernel.describe({{"B", 10}, {"len", 8}}), InvalidArgument);
}

TEST(JaggedDenseAddFeatures, DerivesMeanFillSkewAndWidestVectorFromTheSizes) {
  const aotune::Features f = jda::features(DType::f16, 100, 96, 2400, 90);
  std::vector<std::string> names;
  for (const auto& [name, value] : f) names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"B", "N", "nnz", "max_len", "elem_bytes", "mean_len", "fill",
                                      "skew", "row_bytes", "max_vec", "total_bytes"}));
  const auto value = [&f](const std::string& name) {
    for (const auto& [n, v] : f)
      if (n == name) return v;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(value("mean_len"), 24.0);
  EXPECT_DOUBLE_EQ(value("fill"), 0.25);
  EXPECT_DOUBLE_EQ(value("skew"), 90.0 / 24.0);
  EXPECT_DOUBLE_EQ(value("max_vec"), 8.0);
  EXPECT_DOUBLE_EQ(jda::features(DType::f32, 100, 96, 0, 0)[9].second, 4.0);  // 16 bytes of f32
  EXPECT_DOUBLE_EQ(jda::features(DType::f32, 0, 0, 0, 0)[6].second,
                   0.0);  // empty: no division by 0
}

}  // namespace
