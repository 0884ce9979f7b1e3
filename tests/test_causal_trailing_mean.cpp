// CPU tests of causal_trailing_mean: config space, JSON, validation, legality, the float64
// reference and the registry adapter. GPU correctness is covered by the generic all-kernels test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_inputs.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_kernel.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean_launch.h"
#include "kernels/common/dtype.h"
#include "kernels/common/errors.h"
#include "kernels/common/host_data.h"

namespace aotune::causal_trailing_mean {
namespace {

// Expects `fn` to throw InvalidArgument whose message contains every one of `parts`.
template <typename Fn>
void expect_invalid(Fn fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message '" << e.what() << "' lacks '" << part << "'";
    }
  }
}

Problem valid_problem() {
  static float x[64], out[64];
  Problem p;
  p.B = 2;
  p.D = 4;
  p.T = 8;
  p.cf = 3;
  p.x = x;
  p.out = out;
  return p;
}

// Direct window sums, compensated (Kahan) in long double: independent of the running-sum form.
double direct_window_mean(const std::vector<double>& row, int64_t t, int64_t cf) {
  long double sum = 0, comp = 0;
  const int64_t start = std::max<int64_t>(0, t - cf + 1);
  for (int64_t j = start; j <= t; ++j) {
    const long double y = row[j] - comp;
    const long double s = sum + y;
    comp = (s - sum) - y;
    sum = s;
  }
  return static_cast<double>(sum / static_cast<long double>(t - start + 1));
}

TEST(CausalTrailingMeanConfigSpace, HasAtLeast24ConfigsWithUniqueIds) {
  const auto& space = config_space();
  EXPECT_GE(space.size(), 24u);
  std::set<std::string> ids;
  for (const auto& c : space) ids.insert(config_id(c));
  EXPECT_EQ(ids.size(), space.size());
}

TEST(CausalTrailingMeanConfigSpace, RoundTripsEveryConfigThroughJson) {
  for (const auto& c : config_space()) {
    const Config back = config_from_json(nlohmann::json::parse(to_json(c).dump()));
    EXPECT_EQ(back, c) << config_id(c);
    EXPECT_EQ(config_id(back), config_id(c));
  }
}

TEST(CausalTrailingMeanConfigSpace, RejectsAnUnknownUnitInJson) {
  nlohmann::json j = to_json(config_space().front());
  j["unit"] = "grid";
  expect_invalid([&] { config_from_json(j); }, {"unit", "grid"});
  j.erase("unit");
  expect_invalid([&] { config_from_json(j); }, {"unit"});
}

TEST(CausalTrailingMeanValidate, AcceptsAWellFormedProblem) { EXPECT_NO_THROW(validate(valid_problem())); }

TEST(CausalTrailingMeanValidate, RejectsAWindowBelowOneNamingIt) {
  Problem p = valid_problem();
  p.cf = 0;
  expect_invalid([&] { validate(p); }, {"causal_trailing_mean", "cf", "got 0"});
}

TEST(CausalTrailingMeanValidate, RejectsNegativeSizesNamingTheValue) {
  Problem p = valid_problem();
  p.B = -3;
  expect_invalid([&] { validate(p); }, {"B must be >= 0", "-3"});
  p = valid_problem();
  p.D = -1;
  expect_invalid([&] { validate(p); }, {"D must be >= 0", "-1"});
  p = valid_problem();
  p.T = -7;
  expect_invalid([&] { validate(p); }, {"T must be >= 0", "-7"});
}

TEST(CausalTrailingMeanValidate, RejectsNullPointersWithNonZeroSizes) {
  Problem p = valid_problem();
  p.x = nullptr;
  expect_invalid([&] { validate(p); }, {"x is a null pointer", "B*D*T=64"});
  p = valid_problem();
  p.out = nullptr;
  expect_invalid([&] { validate(p); }, {"out is a null pointer", "B*D*T=64"});
}

TEST(CausalTrailingMeanValidate, AcceptsNullPointersForAnEmptyProblem) {
  Problem p;
  p.B = 0;
  p.D = 16;
  p.T = 1000;
  EXPECT_NO_THROW(validate(p));
}

TEST(CausalTrailingMeanValidate, RejectsSizesWhoseProductOverflowsInt64) {
  Problem p = valid_problem();
  p.B = int64_t{1} << 31;
  p.D = int64_t{1} << 31;
  p.T = 4;
  expect_invalid([&] { validate(p); }, {"overflow", "B=2147483648", "T=4"});
}

TEST(CausalTrailingMeanValidate, RejectsAnOutputThatOverlapsTheInput) {
  static float buf[128];
  Problem p = valid_problem();
  p.x = buf;
  p.out = buf + 10;
  expect_invalid([&] { validate(p); }, {"overlaps x"});
}

TEST(CausalTrailingMeanReference, MatchesAHandComputedCase) {
  // Two rows, T=5, cf=2: the first output averages one element, the rest two.
  const std::vector<double> x = {1, 2, 3, 4, 5, -2, 0, 4, 4, 10};
  const std::vector<double> want = {1, 1.5, 2.5, 3.5, 4.5, -2, -1, 2, 4, 7};
  EXPECT_EQ(reference(x, 2, 5, 2), want);
}

TEST(CausalTrailingMeanReference, TreatsAWindowLongerThanTheRowAsPrefixMeans) {
  const std::vector<double> x = {3, 1, 2, 6};
  const std::vector<double> want = {3, 2, 2, 3};
  EXPECT_EQ(reference(x, 1, 4, 100), want);
  EXPECT_EQ(reference(x, 1, 4, 4), want);
}

TEST(CausalTrailingMeanReference, MatchesDirectWindowSumsOnRandomShapes) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t rows = 1 + static_cast<int64_t>(rng() % 4);
    const int64_t T = 1 + static_cast<int64_t>(rng() % 300);
    const int64_t cf = 1 + static_cast<int64_t>(rng() % 400);
    const auto x = random_values(static_cast<std::size_t>(rows * T), DType::f32, rng, 0.5);
    const auto got = reference(x, rows, T, cf);
    for (int64_t r = 0; r < rows; ++r) {
      const std::vector<double> row(x.begin() + r * T, x.begin() + (r + 1) * T);
      for (int64_t t = 0; t < T; ++t) {
        EXPECT_NEAR(got[r * T + t], direct_window_mean(row, t, cf), 1e-12)
            << "rows=" << rows << " T=" << T << " cf=" << cf << " r=" << r << " t=" << t;
      }
    }
  }
}

TEST(CausalTrailingMeanReference, StaysAccurateOnALongRowWithALargeMean) {
  // BENCH.md's failure case for a global prefix sum: T = 65536, mean -20.
  std::mt19937_64 rng(2026);
  const int64_t T = 65536;
  for (const int64_t cf : {int64_t{1000}, int64_t{100000}}) {
    const auto x = random_values(static_cast<std::size_t>(T), DType::f32, rng, -20.0);
    const auto got = reference(x, 1, T, cf);
    double worst = 0;
    for (int64_t t = 0; t < T; t += (t < 2000 ? 1 : 97)) {
      const double want = direct_window_mean(x, t, cf);
      worst = std::max(worst, std::abs(got[t] - want) / std::abs(want));
    }
    worst = std::max(worst, std::abs(got[T - 1] - direct_window_mean(x, T - 1, cf)) / 20.0);
    EXPECT_LT(worst, 1e-14) << "cf=" << cf;
  }
}

TEST(CausalTrailingMeanReference, RejectsSizesThatDisagreeWithTheData) {
  expect_invalid([] { reference(std::vector<double>(10), 3, 4, 2); }, {"10 values", "3*4"});
  expect_invalid([] { reference(std::vector<double>(4), 1, 4, 0); }, {"cf", "got 0"});
}

TEST(CausalTrailingMeanSupports, TheLongestSegmentConfigsAcceptEveryProblem) {
  std::mt19937_64 rng(3);
  int always = 0;
  for (const auto& c : config_space()) always += detail::always_legal(c) ? 1 : 0;
  EXPECT_GE(always, 1);
  for (int trial = 0; trial < 200; ++trial) {
    Problem p = valid_problem();
    p.B = 1 + static_cast<int64_t>(rng() % 1000);
    p.D = 1 + static_cast<int64_t>(rng() % 1000);
    p.T = 1 + static_cast<int64_t>(rng() % (int64_t{1} << 24));
    p.cf = 1 + static_cast<int64_t>(rng() % (int64_t{1} << 26));
    p.dtype = trial % 2 == 0 ? DType::f32 : DType::bf16;
    for (const auto& c : config_space()) {
      if (!detail::always_legal(c)) continue;
      const Legality l = supports(c, p);
      EXPECT_TRUE(l.ok) << config_id(c) << ": " << l.reason;
    }
  }
}

TEST(CausalTrailingMeanSupports, RejectsShortSegmentsUnderALongWindowWithAReason) {
  Problem p = valid_problem();
  p.T = 65536;
  p.cf = 100000;
  const Config one_tile{Unit::block, 128, 1, 1};  // 512 fp32 elements per segment
  const Legality l = supports(one_tile, p);
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.reason.find("halo"), std::string::npos) << l.reason;
  EXPECT_NE(l.reason.find("65536"), std::string::npos) << l.reason;
  p.cf = 16;
  EXPECT_TRUE(supports(one_tile, p).ok);
}

TEST(CausalTrailingMeanSupports, RejectsAConfigWithoutACompiledKernel) {
  const Problem p = valid_problem();
  const Legality vec8 = supports(Config{Unit::warp, 128, 8, 1}, p);
  EXPECT_FALSE(vec8.ok);
  EXPECT_NE(vec8.reason.find("no compiled kernel"), std::string::npos) << vec8.reason;
  EXPECT_FALSE(supports(Config{Unit::block, 512, 4, 1}, p).ok);
  EXPECT_FALSE(supports(Config{Unit::block, 256, 3, 1}, p).ok);
  EXPECT_FALSE(supports(Config{Unit::block, 256, 4, 0}, p).ok);   // whole rows: error would grow
  EXPECT_FALSE(supports(Config{Unit::block, 256, 4, 17}, p).ok);  // past kMaxSegTiles
}

TEST(CausalTrailingMeanSupports, ThreadAndFlatUnitsTakeWindowsUpToTheirLimitAndNameTheWindowBeyond) {
  for (const Unit unit : {Unit::thread, Unit::flat}) {
    SCOPED_TRACE(unit == Unit::flat ? "flat" : "thread");
    const Config per_output{unit, 128, 1, 1};
    // The flat unit shares a vector's terms between its outputs, so it goes further.
    const int64_t limit = unit == Unit::flat ? 128 : 32;
    EXPECT_EQ(detail::max_direct_window(unit), limit);
    Problem p = valid_problem();
    p.T = 4096;
    p.cf = limit;
    EXPECT_TRUE(supports(per_output, p).ok);
    p.cf = limit + 1;
    const Legality wide = supports(per_output, p);
    EXPECT_FALSE(wide.ok);
    EXPECT_NE(wide.reason.find("window"), std::string::npos) << wide.reason;
    EXPECT_NE(wide.reason.find(std::to_string(limit + 1)), std::string::npos) << wide.reason;
    EXPECT_NE(wide.reason.find(std::to_string(limit)), std::string::npos) << wide.reason;
    EXPECT_NE(wide.reason.find(unit == Unit::flat ? "flat" : "thread-per-output"), std::string::npos) << wide.reason;
    p.T = 20;  // the window is min(cf, T): prefix means of short rows stay cheap
    p.cf = 100000;
    EXPECT_TRUE(supports(per_output, p).ok);
    // Prefix means of longer rows: the flat unit's warp-shared path takes rows of up to 128
    // vectors (512 f32, 1024 16-bit elements); the thread unit stays at its window.
    for (const DType dtype : {DType::f32, DType::bf16, DType::f16}) {
      SCOPED_TRACE(std::string(to_string(dtype)));
      p.dtype = dtype;
      const int64_t row_limit = 128 * (16 / static_cast<int64_t>(dtype_size(dtype)));
      EXPECT_EQ(detail::max_flat_prefix_row(dtype), row_limit);
      p.T = row_limit;
      p.cf = row_limit;
      EXPECT_EQ(supports(per_output, p).ok, unit == Unit::flat);
      p.cf = row_limit - 1;  // a window shorter than the row: not a prefix mean
      EXPECT_FALSE(supports(per_output, p).ok);
      p.T = row_limit + 1;
      p.cf = 100000;
      const Legality long_row = supports(per_output, p);
      EXPECT_FALSE(long_row.ok);
      if (unit == Unit::flat) {
        EXPECT_NE(long_row.reason.find("prefix means take rows of at most " + std::to_string(row_limit)),
                  std::string::npos) << long_row.reason;
        EXPECT_NE(long_row.reason.find("T=" + std::to_string(row_limit + 1)), std::string::npos) << long_row.reason;
      }
    }
    p.dtype = valid_problem().dtype;
    p.T = 20;
    // No tiles or segments: only vecs 1, seg_tiles 1, not persistent has a kernel.
    EXPECT_FALSE(supports(Config{unit, 128, 2, 1}, p).ok);
    EXPECT_FALSE(supports(Config{unit, 128, 1, 4}, p).ok);
    EXPECT_FALSE(supports(Config{unit, 128, 1, 1, true}, p).ok);
    EXPECT_FALSE(supports(Config{unit, 64, 1, 1}, p).ok);
  }
}

TEST(CausalTrailingMeanConfigSpace, ThreadAndFlatUnitConfigsAreAppendedWithShortIdsThatRoundTrip) {
  const auto& space = config_space();
  ASSERT_EQ(space.size(), 76u);
  // Appended after the scanning configs (thread, then flat), so earlier database config numbers
  // keep their meaning.
  EXPECT_EQ(config_id(space[72]), "thread.t128");
  EXPECT_EQ(config_id(space[73]), "thread.t256");
  EXPECT_EQ(config_id(space[74]), "flat.t128");
  EXPECT_EQ(config_id(space[75]), "flat.t256");
  for (const auto& c : space) {
    if (c.unit != Unit::thread && c.unit != Unit::flat) continue;
    EXPECT_EQ(config_from_json(to_json(c)), c) << config_id(c);
    EXPECT_EQ(to_json(c).at("unit"), c.unit == Unit::thread ? "thread" : "flat");
  }
}

TEST(CausalTrailingMeanFeatures, ListsCallerKnownSizesInAFixedOrder) {
  const Features f = features(DType::bf16, 4, 8, 100, 1000);
  ASSERT_EQ(f.size(), 8u);
  EXPECT_EQ(f[0], (std::pair<std::string, double>{"elem_bytes", 2}));
  EXPECT_EQ(f[1], (std::pair<std::string, double>{"rows", 32}));
  EXPECT_EQ(f[2], (std::pair<std::string, double>{"T", 100}));
  EXPECT_EQ(f[3], (std::pair<std::string, double>{"cf", 1000}));
  EXPECT_EQ(f[4], (std::pair<std::string, double>{"window", 100}));
  EXPECT_EQ(f[5], (std::pair<std::string, double>{"elems", 3200}));
  EXPECT_EQ(f[6], (std::pair<std::string, double>{"total_bytes", 12800}));
  EXPECT_EQ(f[7], (std::pair<std::string, double>{"row_bytes", 200}));
}

TEST(CausalTrailingMeanKernel, EveryTestShapeHasALegalConfig) {
  const TunableKernel& k = causal_trailing_mean_kernel();
  for (const auto& shape : k.test_shapes()) {
    const ProblemInfo info = k.describe(shape);
    ASSERT_EQ(info.legality.size(), k.num_configs());
    bool any = false;
    for (const auto& l : info.legality) any = any || l.ok;
    EXPECT_TRUE(any) << shape.dump();
  }
}

TEST(CausalTrailingMeanKernel, TestShapesCoverTheEdgeCasesInEveryDtype) {
  std::set<std::string> seen;
  std::set<uint64_t> seeds;
  int64_t largest = 0;
  for (const auto& s : causal_trailing_mean_kernel().test_shapes()) {
    const std::string dtype = s.at("dtype");
    const int64_t rows = s.at("B").get<int64_t>() * s.value("D", int64_t{1});
    const int64_t T = s.at("T"), cf = s.at("cf");
    largest = std::max(largest, rows * T);
    seeds.insert(s.at("seed").get<uint64_t>());
    if (rows == 0) seen.insert(dtype + " no rows");
    if (T == 1) seen.insert(dtype + " T=1");
    if (cf == 1) seen.insert(dtype + " cf=1");
    if (cf > T) seen.insert(dtype + " cf>T");
    if (T == 65536 && rows == 1 && s.value("mean", 0.0) == -20.0) seen.insert(dtype + " precision");
    if (s.value("misalign", 0) == 1) seen.insert(dtype + " misalign 1");
    if (s.value("zero_rows", 0) > 0 && s.value("mean", 0.0) != 0.0) seen.insert(dtype + " zero rows");
    if (s.value("quiet_rows", 0) > 0 && s.value("mean", 0.0) != 0.0) seen.insert(dtype + " quiet rows");
    if (s.value("quiet_span", 0) > 0 && s.value("mean", 0.0) != 0.0 &&
        cf > static_cast<int64_t>(16 / dtype_size(parse_dtype(dtype)))) {
      seen.insert(dtype + " quiet span, running window");
    }
    if (s.value("misalign", 0) == 3) seen.insert(dtype + " misalign 3");
    // Rows after the first off a 16-byte boundary (T * element size not a multiple of 16), with
    // tiles after the head, for the direct (cf <= 4) and the running window (cf > 8).
    const auto elem_bytes = static_cast<int64_t>(dtype_size(parse_dtype(dtype)));
    const int64_t vec = 16 / elem_bytes;
    if (rows >= 2 && T % vec != 0 && T > 2 * vec) {
      if (cf <= 4) seen.insert(dtype + " odd rows direct");
      // Running windows take heads only on rows of 2 KB or more (kHeadRowBytes in the kernel).
      if (cf > 8) seen.insert(dtype + (T * elem_bytes >= 2048 ? " odd rows running" : " short odd rows running"));
    }
    if (rows >= 2 && T < vec && T > 1) seen.insert(dtype + " rows shorter than a vector");
    // The flat unit's wide-window instances (W = 64, 128), aligned and off a 16-byte boundary.
    const int64_t window = std::min(cf, T);
    const bool aligned = s.value("misalign", 0) == 0;
    if (window > 32 && window <= 64) seen.insert(dtype + " window 33-64");
    if (window > 64 && window <= 128) seen.insert(dtype + (aligned ? " window 65-128" : " window 65-128 misaligned"));
    // Prefix means past 128 that the flat unit takes: one carry load per lane (16-bit rows of up
    // to 256), four (f32 past 128, 16-bit past 256), at the dtype's limit, and off a boundary.
    const int64_t prefix_limit = 128 * vec;
    if (cf >= T && T > 128 && T <= prefix_limit) {
      if (!aligned) seen.insert(dtype + " prefix past 128 misaligned");
      if (aligned && T % vec != 0) seen.insert(dtype + " odd prefix rows past 128");
      if (aligned && T > 32 * vec) seen.insert(dtype + " prefix, four carry loads");
      if (aligned && T == prefix_limit) seen.insert(dtype + " prefix at the flat limit");
      if (aligned && s.value("quiet_rows", 0) > 0 && s.value("mean", 0.0) != 0.0) seen.insert(dtype + " quiet prefix rows past 128");
    }
  }
  for (const char* dtype : {"f32", "bf16", "f16"}) {
    for (const char* what : {" no rows", " T=1", " cf=1", " cf>T", " precision", " misalign 1",
                             " misalign 3", " odd rows direct", " odd rows running",
                             " short odd rows running", " rows shorter than a vector",
                             " window 33-64", " window 65-128", " window 65-128 misaligned",
                             " zero rows", " quiet rows", " quiet span, running window",
                             " prefix past 128 misaligned", " odd prefix rows past 128",
                             " prefix, four carry loads", " prefix at the flat limit",
                             " quiet prefix rows past 128"}) {
      EXPECT_TRUE(seen.count(std::string(dtype) + what)) << dtype << what;
    }
  }
  EXPECT_EQ(seeds.size(), causal_trailing_mean_kernel().test_shapes().size());
  EXPECT_LE(largest, 2'000'000);
}

TEST(CausalTrailingMeanKernel, DescribeIsDeterministic) {
  const TunableKernel& k = causal_trailing_mean_kernel();
  for (const auto& shape : k.test_shapes()) {
    const ProblemInfo a = k.describe(shape);
    const ProblemInfo b = k.describe(shape);
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.features, b.features);
    EXPECT_EQ(a.bytes_moved, b.bytes_moved);
    ASSERT_EQ(a.legality.size(), b.legality.size());
    for (std::size_t i = 0; i < a.legality.size(); ++i) {
      EXPECT_EQ(a.legality[i].ok, b.legality[i].ok);
      EXPECT_EQ(a.legality[i].reason, b.legality[i].reason);
    }
  }
}

TEST(CausalTrailingMeanKernel, DescribeFillsDefaultsAndCountsBytes) {
  const ProblemInfo info =
      causal_trailing_mean_kernel().describe({{"B", 2}, {"T", 10}, {"cf", 3}, {"dtype", "f16"}});
  EXPECT_EQ(info.shape.at("D"), 1);
  EXPECT_EQ(info.shape.at("mean"), 0.0);
  EXPECT_EQ(info.shape.at("misalign"), 0);
  EXPECT_EQ(info.bytes_moved, 2.0 * 2 * 10 * 2);
}

TEST(CausalTrailingMeanKernel, DescribeRejectsBadFieldsNamingThem) {
  const TunableKernel& k = causal_trailing_mean_kernel();
  expect_invalid([&] { k.describe({{"B", 1}, {"T", 10}, {"cf", 0}}); }, {"'cf'=0"});
  expect_invalid([&] { k.describe({{"B", 1}, {"T", 10}, {"cf", 2}, {"mean", "big"}}); }, {"'mean'", "big"});
  expect_invalid([&] { k.describe({{"B", 1}, {"T", 10}, {"cf", 2}, {"misalign", 9}}); }, {"'misalign'=9"});
  expect_invalid([&] { k.describe({{"B", 1}, {"cf", 2}}); }, {"'T'"});
  expect_invalid([&] { k.describe({{"B", 1}, {"T", 10}, {"cf", 2}, {"zero_rows", -1}}); }, {"'zero_rows'=-1"});
  expect_invalid([&] { k.describe({{"B", 1}, {"T", 10}, {"cf", 2}, {"quiet_rows", -2}}); }, {"'quiet_rows'=-2"});
  const nlohmann::json negative_span = {{"B", 1}, {"T", 10}, {"cf", 2}, {"quiet_span", -3}};
  expect_invalid([&] { k.describe(negative_span); }, {"'quiet_span'=-3"});
}

TEST(CausalTrailingMeanKernel, ZeroRowsHoldExactZerosAndTheOtherRowsTheirRandomValues) {
  const nlohmann::json spec = {{"B", 2}, {"D", 4}, {"T", 5}, {"cf", 2}, {"mean", -20}, {"seed", 7}};
  const std::vector<double> plain = trailing_input_values(spec);
  nlohmann::json zeroed_spec = spec;
  zeroed_spec["zero_rows"] = 3;
  const std::vector<double> zeroed = trailing_input_values(zeroed_spec);
  ASSERT_EQ(plain.size(), 2u * 4u * 5u);
  ASSERT_EQ(zeroed.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const std::size_t row = i / 5;
    EXPECT_LE(plain[i], -19.0) << i;  // uniform in [mean - 1, mean + 1]
    // Rows 2 and 5 are zeroed; every other value is the one the spec without zero_rows draws.
    EXPECT_EQ(zeroed[i], row % 3 == 2 ? 0.0 : plain[i]) << i;
  }
}

TEST(CausalTrailingMeanKernel, QuietRowsHoldTheirValuesTimes1e4InTheDtypeAndZeroRowsWin) {
  for (const char* dtype : {"f32", "bf16", "f16"}) {
    const nlohmann::json spec = {{"B", 2}, {"D", 4}, {"T", 5}, {"cf", 2}, {"mean", -20}, {"seed", 7}, {"dtype", dtype}};
    const std::vector<double> plain = trailing_input_values(spec);
    nlohmann::json quiet_spec = spec;
    quiet_spec["quiet_rows"] = 2;
    quiet_spec["zero_rows"] = 4;
    const std::vector<double> quiet = trailing_input_values(quiet_spec);
    ASSERT_EQ(quiet.size(), plain.size());
    const std::vector<double> held = decode(encode(quiet, parse_dtype(dtype)), parse_dtype(dtype));
    for (std::size_t i = 0; i < plain.size(); ++i) {
      const std::size_t row = i / 5;
      EXPECT_EQ(quiet[i], held[i]) << dtype << " " << i << ": not a value of the dtype";
      if (row % 4 == 3) {
        EXPECT_EQ(quiet[i], 0.0) << dtype << " " << i;
      } else if (row % 2 == 1) {
        EXPECT_NEAR(quiet[i], plain[i] * 1e-4, std::abs(plain[i]) * 1e-4 * 1e-2) << dtype << " " << i;
      } else {
        EXPECT_EQ(quiet[i], plain[i]) << dtype << " " << i;
      }
    }
  }
}

TEST(CausalTrailingMeanKernel, QuietSpansHoldTheirValuesTimes1e3InTheDtypeAtAPlaceThatMovesByRow) {
  constexpr int64_t kRows = 12, kT = 400, kSpan = 6;
  std::set<int64_t> starts;
  for (int64_t r = 0; r < kRows; ++r) {
    const int64_t start = quiet_span_start(r, kT, kSpan);
    ASSERT_GE(start, 0) << r;
    ASSERT_LE(start + kSpan, kT) << r;
    starts.insert(start % 8);  // its place inside a 16-byte vector of any dtype
  }
  EXPECT_EQ(starts.size(), 8u) << "eight rows should put the span at every place inside a vector";
  EXPECT_EQ(quiet_span_start(5, 4, 6), 0) << "a row no longer than the span is all span";
  for (const char* dtype : {"f32", "bf16", "f16"}) {
    const nlohmann::json spec = {{"B", 3},      {"D", kRows / 3}, {"T", kT},       {"cf", 8},
                                 {"mean", -20}, {"seed", 9},      {"dtype", dtype}};
    const std::vector<double> plain = trailing_input_values(spec);
    nlohmann::json quiet_spec = spec;
    quiet_spec["quiet_span"] = kSpan;
    const std::vector<double> quiet = trailing_input_values(quiet_spec);
    ASSERT_EQ(quiet.size(), plain.size());
    const std::vector<double> held = decode(encode(quiet, parse_dtype(dtype)), parse_dtype(dtype));
    for (std::size_t i = 0; i < plain.size(); ++i) {
      const auto row = static_cast<int64_t>(i) / kT, t = static_cast<int64_t>(i) % kT;
      const int64_t start = quiet_span_start(row, kT, kSpan);
      EXPECT_EQ(quiet[i], held[i]) << dtype << " " << i << ": not a value of the dtype";
      if (t >= start && t < start + kSpan) {
        EXPECT_NEAR(quiet[i], plain[i] * 1e-3, std::abs(plain[i]) * 1e-3 * 1e-2)
            << dtype << " " << i;
      } else {
        EXPECT_EQ(quiet[i], plain[i]) << dtype << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace aotune::causal_trailing_mean
