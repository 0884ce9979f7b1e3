// On a GPU: calls through the dispatch library (C++ API and C ABI) give the float64 reference
// results for every kernel, whatever config the heuristic picks. Skipped without a GPU.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "aotune/aotune_c.h"
#include "aotune/causal_trailing_mean.h"
#include "aotune/device.h"
#include "aotune/heuristic_store.h"
#include "aotune/jagged_dense_add.h"
#include "aotune/jagged_mean.h"
#include "aotune/jagged_sum.h"
#include "dispatch/src/kernel_selection.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/common/cuda_raii.h"
#include "kernels/common/host_data.h"
#include "kernels/common/reference_check.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "tests/gpu_test_support.h"

namespace aotune {
namespace {

DeviceBuffer upload_bytes(const std::vector<std::byte>& bytes) {
  DeviceBuffer b(std::max<std::size_t>(bytes.size(), 16));
  b.upload(bytes.data(), bytes.size());
  return b;
}

std::vector<double> download(const DeviceBuffer& b, std::size_t n, DType dtype) {
  std::vector<std::byte> bytes(n * dtype_size(dtype));
  b.download(bytes.data(), bytes.size());
  return decode(bytes, dtype);
}

std::vector<int64_t> random_offsets(int64_t B, int64_t max_len, std::mt19937_64& rng) {
  std::vector<int64_t> offsets{0};
  for (int64_t b = 0; b < B; ++b)
    offsets.push_back(offsets.back() + static_cast<int64_t>(rng() % (max_len + 1)));
  return offsets;
}

int64_t longest(const std::vector<int64_t>& offsets) {
  int64_t m = 0;
  for (std::size_t i = 1; i < offsets.size(); ++i) m = std::max(m, offsets[i] - offsets[i - 1]);
  return m;
}

std::vector<double> abs_of(std::vector<double> v) {
  for (double& x : v) x = std::abs(x);
  return v;
}

struct ReduceCase {
  int64_t B, M, max_len;
  DType dtype;
  IndexType index;
};

class DispatchGpu : public ::testing::TestWithParam<bool> {};  // false: C++ API, true: C ABI

TEST_P(DispatchGpu, JaggedSumAndMeanMatchTheReference) {
  AOTUNE_REQUIRE_GPU();
  const bool c_abi = GetParam();
  std::mt19937_64 rng(5);
  for (const ReduceCase& rc : {ReduceCase{300, 64, 40, DType::f32, IndexType::i64},
                               ReduceCase{17, 7, 900, DType::bf16, IndexType::i32},
                               ReduceCase{1000, 256, 3, DType::f16, IndexType::i64},
                               ReduceCase{0, 8, 0, DType::f32, IndexType::i64}}) {
    const std::vector<int64_t> offsets = random_offsets(rc.B, rc.max_len, rng);
    const int64_t nnz = offsets.back();
    const std::vector<double> values =
        random_values(static_cast<std::size_t>(nnz * rc.M), rc.dtype, rng);
    std::vector<int64_t> fc(static_cast<std::size_t>(rc.B));
    for (auto& f : fc) f = static_cast<int64_t>(rng() % static_cast<uint64_t>(rc.M + 1));
    DeviceBuffer d_values = upload_bytes(encode(values, rc.dtype));
    DeviceBuffer d_offsets = upload_bytes(encode_index(offsets, rc.index));
    DeviceBuffer d_fc = upload_bytes(encode_index(fc, rc.index));
    DeviceBuffer d_out(
        std::max<std::size_t>(static_cast<std::size_t>(rc.B * rc.M) * dtype_size(rc.dtype), 16));
    // jagged_sum, jagged_mean with feature counts, and jagged_mean without them (every column;
    // jagged_sum's heuristic picks its config).
    for (const int variant : {0, 1, 2}) {
      const jagged_reduce::Op op = variant == 0 ? jagged_reduce::Op::sum : jagged_reduce::Op::mean;
      const bool sum = op == jagged_reduce::Op::sum;
      const void* fc_ptr = variant == 1 ? d_fc.get() : nullptr;
      if (c_abi) {
        const aotune_status s =
            sum ? aotune_jagged_sum(d_values.get(), d_offsets.get(), d_out.get(), rc.B, rc.M, nnz,
                                    longest(offsets), static_cast<int32_t>(rc.dtype),
                                    static_cast<int32_t>(rc.index), nullptr)
                : aotune_jagged_mean(d_values.get(), d_offsets.get(), fc_ptr, d_out.get(), rc.B,
                                     rc.M, nnz, -1, static_cast<int32_t>(rc.dtype),
                                     static_cast<int32_t>(rc.index), nullptr);
        ASSERT_EQ(s, AOTUNE_OK) << aotune_last_error();
      } else if (sum) {
        ops::jagged_sum(d_values.get(), d_offsets.get(), d_out.get(), rc.B, rc.M, nnz,
                        longest(offsets), rc.dtype, rc.index);
      } else {
        ops::jagged_mean(d_values.get(), d_offsets.get(), fc_ptr, d_out.get(), rc.B, rc.M, nnz, -1,
                         rc.dtype, rc.index);
      }
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<int64_t> no_fc;  // the reference's "M for every row"
      const auto& counts = variant == 1 ? fc : no_fc;
      // The outputs and the error scale (the same sums over |values|) in one pass over the rows.
      const auto ref = jagged_reduce::reference_with_scale(op, values, offsets, counts, rc.M);
      const CheckResult check = compare_to_reference(download(d_out, ref.out.size(), rc.dtype), ref.out,
                                                     ref.scale, rc.dtype);
      EXPECT_TRUE(check.ok) << (sum ? "sum" : variant == 1 ? "mean" : "mean without feature counts") << " B=" << rc.B
                            << " M=" << rc.M << ": " << check.message;
    }
  }
}

TEST_P(DispatchGpu, JaggedDenseAddMatchesTheReference) {
  AOTUNE_REQUIRE_GPU();
  const bool c_abi = GetParam();
  std::mt19937_64 rng(9);
  for (const auto& [B, N, dtype] :
       {std::tuple{200, 128, DType::f32}, std::tuple{33, 77, DType::bf16},
        std::tuple{5000, 8, DType::f16}}) {
    const std::vector<int64_t> offsets = random_offsets(B, N, rng);
    const int64_t nnz = offsets.back();
    const auto x = random_values(static_cast<std::size_t>(nnz), dtype, rng);
    const auto y = random_values(static_cast<std::size_t>(B * N), dtype, rng);
    DeviceBuffer d_x = upload_bytes(encode(x, dtype)),
                 d_offsets = upload_bytes(encode_index(offsets, IndexType::i64));
    DeviceBuffer d_y = upload_bytes(encode(y, dtype)),
                 d_out(static_cast<std::size_t>(B * N) * dtype_size(dtype));
    if (c_abi) {
      ASSERT_EQ(aotune_jagged_dense_add(d_x.get(), d_offsets.get(), d_y.get(), d_out.get(), B, N,
                                        nnz, longest(offsets), static_cast<int32_t>(dtype),
                                        AOTUNE_INDEX_I64, nullptr),
                AOTUNE_OK)
          << aotune_last_error();
    } else {
      ops::jagged_dense_add(d_x.get(), d_offsets.get(), d_y.get(), d_out.get(), B, N, nnz, -1,
                            dtype, IndexType::i64);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto ref = jagged_dense_add::reference(x, offsets, y, N);
    const auto scale = jagged_dense_add::reference(abs_of(x), offsets, abs_of(y), N);
    const CheckResult check =
        compare_to_reference(download(d_out, ref.size(), dtype), ref, scale, dtype);
    EXPECT_TRUE(check.ok) << "B=" << B << " N=" << N << ": " << check.message;
  }
}

TEST_P(DispatchGpu, CausalTrailingMeanMatchesTheReference) {
  AOTUNE_REQUIRE_GPU();
  const bool c_abi = GetParam();
  std::mt19937_64 rng(13);
  for (const auto& [B, D, T, cf, dtype] :
       {std::tuple{2, 16, 1000, 64, DType::f32}, std::tuple{1, 3, 5000, 7, DType::bf16},
        std::tuple{4, 64, 33, 100, DType::f16}}) {
    const int64_t rows = int64_t{B} * D;
    const auto x = random_values(static_cast<std::size_t>(rows * T), dtype, rng, 3.0);
    DeviceBuffer d_x = upload_bytes(encode(x, dtype)), d_out(x.size() * dtype_size(dtype));
    if (c_abi) {
      ASSERT_EQ(aotune_causal_trailing_mean(d_x.get(), d_out.get(), B, D, T, cf,
                                            static_cast<int32_t>(dtype), nullptr),
                AOTUNE_OK)
          << aotune_last_error();
    } else {
      ops::causal_trailing_mean(d_x.get(), d_out.get(), B, D, T, cf, dtype);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto ref = causal_trailing_mean::reference(x, rows, T, cf);
    const auto scale = causal_trailing_mean::reference(abs_of(x), rows, T, cf);
    const CheckResult check =
        compare_to_reference(download(d_out, ref.size(), dtype), ref, scale, dtype);
    EXPECT_TRUE(check.ok) << "T=" << T << " cf=" << cf << ": " << check.message;
  }
}

// aotune_release_workspaces() between calls whose config takes scratch: each call after it gets a
// new zeroed buffer and the reference result (the kernels count on zeroed scratch).
TEST_P(DispatchGpu, ReleasingTheWorkspacesBetweenCallsKeepsResultsRight) {
  AOTUNE_REQUIRE_GPU();
  const bool c_abi = GetParam();
  std::mt19937_64 rng(17);
  // One long row among short ones: the sm90 heuristic sends it to a config that splits the long
  // row over blocks, with scratch (checked below, or the test would not test what it says).
  const int64_t B = 4, M = 8;
  const std::vector<int64_t> offsets = {0, 300, 399300, 399600, 399900};
  const int64_t nnz = offsets.back();
  DeviceBuffer d_offsets = upload_bytes(encode_index(offsets, IndexType::i64));
  DeviceBuffer d_out(static_cast<std::size_t>(B * M) * dtype_size(DType::f32));
  for (int round = 0; round < 3; ++round) {
    const std::vector<double> values =
        random_values(static_cast<std::size_t>(nnz * M), DType::f32, rng);
    DeviceBuffer d_values = upload_bytes(encode(values, DType::f32));
    const jagged_reduce::Problem p{.op = jagged_reduce::Op::sum,
                                   .B = B,
                                   .M = M,
                                   .nnz = nnz,
                                   .dtype = DType::f32,
                                   .index = IndexType::i64,
                                   .values = d_values.get(),
                                   .offsets = d_offsets.get(),
                                   .feature_counts = nullptr,
                                   .out = d_out.get()};
    if (round == 0) {
      const dispatch::Selection s =
          dispatch::select_jagged_reduce(*dispatch::current_store(), p, longest(offsets),
                                         dispatch::device_arch(dispatch::current_device()));
      ASSERT_GT(jagged_reduce::workspace_bytes(jagged_reduce::config_space()[s.config], p), 0U)
          << jagged_reduce::config_id(jagged_reduce::config_space()[s.config])
          << " takes no scratch: pick a shape whose config does";
    }
    if (c_abi) {
      ASSERT_EQ(aotune_jagged_sum(p.values, p.offsets, p.out, B, M, nnz, longest(offsets),
                                  AOTUNE_DTYPE_F32, AOTUNE_INDEX_I64, nullptr),
                AOTUNE_OK)
          << aotune_last_error();
    } else {
      ops::jagged_sum(p.values, p.offsets, p.out, B, M, nnz, longest(offsets), DType::f32,
                      IndexType::i64);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto ref =
        jagged_reduce::reference_with_scale(jagged_reduce::Op::sum, values, offsets, {}, M);
    const CheckResult check = compare_to_reference(download(d_out, ref.out.size(), DType::f32),
                                                   ref.out, ref.scale, DType::f32);
    EXPECT_TRUE(check.ok) << "round " << round << ": " << check.message;
    ASSERT_EQ(aotune_release_workspaces(), AOTUNE_OK) << aotune_last_error();
  }
}

// Threads calling on one stream (the legacy default stream, as most C++ callers and torch's
// default stream do) with sizes that keep growing its scratch, and a thread releasing the scratch
// all the while: every call still gives the reference (each call's buffer lives until its launch
// is enqueued: dispatch/src/scratch_pool.h).
TEST(DispatchGpuThreads, CallsOnOneStreamWhileTheScratchGrowsAndIsReleased) {
  AOTUNE_REQUIRE_GPU();
  constexpr int kThreads = 4, kCalls = 6;
  const int64_t M = 8;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::string> messages(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(100 + t));
      for (int i = 0; i < kCalls; ++i) {
        // Four rows, one long, the long one longer on every call: a config with scratch
        // (ReleasingTheWorkspacesBetweenCallsKeepsResultsRight checks that shape's choice).
        const int64_t long_len = 100000 * (1 + i + t);
        const std::vector<int64_t> offsets = {0, 300, 300 + long_len, 600 + long_len,
                                              900 + long_len};
        const int64_t nnz = offsets.back();
        const std::vector<double> values =
            random_values(static_cast<std::size_t>(nnz * M), DType::f32, rng);
        DeviceBuffer d_values = upload_bytes(encode(values, DType::f32));
        DeviceBuffer d_offsets = upload_bytes(encode_index(offsets, IndexType::i64));
        DeviceBuffer d_out(static_cast<std::size_t>(4 * M) * dtype_size(DType::f32));
        if (aotune_jagged_sum(d_values.get(), d_offsets.get(), d_out.get(), 4, M, nnz, long_len,
                              AOTUNE_DTYPE_F32, AOTUNE_INDEX_I64, nullptr) != AOTUNE_OK) {
          messages[static_cast<std::size_t>(t)] = aotune_last_error();
          ++failures;
          return;
        }
        if (cudaStreamSynchronize(nullptr) != cudaSuccess) {
          ++failures;
          return;
        }
        const auto ref =
            jagged_reduce::reference_with_scale(jagged_reduce::Op::sum, values, offsets, {}, M);
        const CheckResult check = compare_to_reference(download(d_out, ref.out.size(), DType::f32),
                                                       ref.out, ref.scale, DType::f32);
        if (!check.ok) {
          messages[static_cast<std::size_t>(t)] = check.message;
          ++failures;
          return;
        }
      }
    });
  }
  std::thread releaser([&] {
    while (!stop) {
      if (aotune_release_workspaces() != AOTUNE_OK) ++failures;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  for (std::thread& th : threads) th.join();
  stop = true;
  releaser.join();
  EXPECT_EQ(failures, 0) << messages[0] << " | " << messages[1] << " | " << messages[2] << " | "
                         << messages[3];
}

INSTANTIATE_TEST_SUITE_P(CppAndC, DispatchGpu, ::testing::Bool(), [](const auto& info) {
  return info.param ? std::string("CAbi") : std::string("CppApi");
});

}  // namespace
}  // namespace aotune
