// On a GPU: dispatch calls of every kernel captured into a CUDA graph, as torch.cuda.graph or a
// serving stack captures a model step, replay to the float64 reference: on the capturing stream
// and on another, with new inputs written into the same buffers, and with eager calls growing the
// per-stream scratch between replays. The first dispatch call of the process happens inside the
// capture (each test runs in its own process under ctest), so lazy set-up must be capture-safe
// too. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "aotune/aotune_c.h"
#include "aotune/causal_trailing_mean.h"
#include "aotune/device.h"
#include "aotune/heuristic_store.h"
#include "aotune/jagged_dense_add.h"
#include "aotune/jagged_mean.h"
#include "aotune/jagged_sum.h"
#include "dispatch/src/kernel_selection.h"
#include "dispatch/src/workspace_cache.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/common/cuda_raii.h"
#include "kernels/common/host_data.h"
#include "kernels/common/reference_check.h"
#include "kernels/jagged_dense_add/jagged_dense_add.h"
#include "kernels/jagged_reduce/jagged_reduce.h"
#include "tests/gpu_test_support.h"

namespace aotune {
namespace {

struct GraphDeleter {
  void operator()(cudaGraph_t g) const { cudaGraphDestroy(g); }
};
struct GraphExecDeleter {
  void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
};
using Graph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDeleter>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDeleter>;

// Ends the capture begun on `stream` and instantiates it; fails the test when capture broke.
GraphExec end_capture(cudaStream_t stream) {
  cudaGraph_t raw = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &raw);
  Graph graph(raw);
  EXPECT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
  if (ended != cudaSuccess) return nullptr;
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph.get(), 0);
  EXPECT_EQ(made, cudaSuccess) << cudaGetErrorString(made);
  return GraphExec(made == cudaSuccess ? exec : nullptr);
}

// Fills `b` with 0xff bytes (NaN in every dtype), so an output the graph failed to write shows.
// Then waits for the default stream (the memset and every upload before it): the graphs replay on
// non-blocking streams, which do not wait for it.
void poison(const DeviceBuffer& b) {
  ASSERT_EQ(cudaMemset(b.get(), 0xff, b.bytes()), cudaSuccess);
  test::wait_for_default_stream();
}

std::vector<double> download(const DeviceBuffer& b, std::size_t n, DType dtype) {
  std::vector<std::byte> bytes(n * dtype_size(dtype));
  b.download(bytes.data(), bytes.size());
  return decode(bytes, dtype);
}

// One jagged reduce call: inputs on the device, rewritten in place between replays.
struct ReduceCall {
  jagged_reduce::Op op = jagged_reduce::Op::sum;
  int64_t B = 0, M = 0;
  DType dtype = DType::f32;
  std::vector<int64_t> offsets, fc;  // fc empty: no feature counts
  std::vector<double> values;
  DeviceBuffer d_values, d_offsets, d_fc, d_out;

  int64_t nnz() const { return offsets.back(); }
  int64_t longest() const {
    int64_t m = 0;
    for (std::size_t i = 1; i < offsets.size(); ++i) m = std::max(m, offsets[i] - offsets[i - 1]);
    return m;
  }
  // Every upload is waited for here, so no caller can launch on a non-blocking stream before it
  // lands (gpu_test_support.h): the eager call below once read a half-uploaded row (session 60,
  // about one run in ten under --gtest_repeat on an H100).
  void draw_values(std::mt19937_64& rng) {
    values = random_values(static_cast<std::size_t>(nnz() * M), dtype, rng);
    const auto bytes = encode(values, dtype);
    d_values.upload(bytes.data(), bytes.size());
    test::wait_for_default_stream();
  }
  jagged_reduce::Problem problem() const {
    return {.op = op, .B = B, .M = M, .nnz = nnz(), .dtype = dtype, .index = IndexType::i64,
            .values = d_values.get(), .offsets = d_offsets.get(),
            .feature_counts = fc.empty() ? nullptr : d_fc.get(), .out = d_out.get()};
  }
};

ReduceCall make_call(jagged_reduce::Op op, std::vector<int64_t> lengths, int64_t M, DType dtype,
                     bool feature_counts, std::mt19937_64& rng) {
  ReduceCall c;
  c.op = op;
  c.B = static_cast<int64_t>(lengths.size());
  c.M = M;
  c.dtype = dtype;
  c.offsets.push_back(0);
  for (const int64_t len : lengths) c.offsets.push_back(c.offsets.back() + len);
  if (feature_counts) {
    for (std::size_t b = 0; b < lengths.size(); ++b)
      c.fc.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(M + 1)));
  }
  c.d_values = DeviceBuffer(std::max<std::size_t>(static_cast<std::size_t>(c.nnz() * M) * dtype_size(dtype), 16));
  const auto off = encode_index(c.offsets, IndexType::i64);
  c.d_offsets = DeviceBuffer(off.size());
  c.d_offsets.upload(off.data(), off.size());
  if (feature_counts) {
    const auto fcb = encode_index(c.fc, IndexType::i64);
    c.d_fc = DeviceBuffer(fcb.size());
    c.d_fc.upload(fcb.data(), fcb.size());
  }
  c.d_out = DeviceBuffer(std::max<std::size_t>(static_cast<std::size_t>(c.B * M) * dtype_size(dtype), 16));
  c.draw_values(rng);
  return c;
}

void enqueue(const ReduceCall& c, bool c_abi, cudaStream_t stream) {
  const jagged_reduce::Problem p = c.problem();
  if (c_abi) {
    const aotune_status s =
        c.op == jagged_reduce::Op::sum
            ? aotune_jagged_sum(p.values, p.offsets, p.out, p.B, p.M, p.nnz, c.longest(),
                                static_cast<int32_t>(p.dtype), AOTUNE_INDEX_I64, stream)
            : aotune_jagged_mean(p.values, p.offsets, p.feature_counts, p.out, p.B, p.M, p.nnz,
                                 c.longest(), static_cast<int32_t>(p.dtype), AOTUNE_INDEX_I64,
                                 stream);
    ASSERT_EQ(s, AOTUNE_OK) << aotune_last_error();
  } else if (c.op == jagged_reduce::Op::sum) {
    ops::jagged_sum(p.values, p.offsets, p.out, p.B, p.M, p.nnz, c.longest(), p.dtype, p.index, stream);
  } else {
    ops::jagged_mean(p.values, p.offsets, p.feature_counts, p.out, p.B, p.M, p.nnz, c.longest(),
                     p.dtype, p.index, stream);
  }
}

void expect_reference(const ReduceCall& c, const std::string& when) {
  const auto ref = jagged_reduce::reference_with_scale(c.op, c.values, c.offsets, c.fc, c.M);
  const CheckResult check =
      compare_to_reference(download(c.d_out, ref.out.size(), c.dtype), ref.out, ref.scale, c.dtype);
  EXPECT_TRUE(check.ok) << when << ", B=" << c.B << " M=" << c.M << ": " << check.message;
}

class DispatchGraphCapture : public ::testing::TestWithParam<bool> {};  // false: C++, true: C ABI

TEST_P(DispatchGraphCapture, JaggedReducesReplayTheReferenceWithTheirOwnScratch) {
  AOTUNE_REQUIRE_GPU();
  const bool c_abi = GetParam();
  std::mt19937_64 rng(21);
  std::vector<ReduceCall> calls;
  // One long row among short ones (the sm90 heuristic picks nnz_split, which needs scratch), one
  // huge row alone at M = 1 (flat_scan, scratch too), short rows (a per-row config, none), and a
  // jagged_mean with feature counts over the first shape.
  std::vector<int64_t> skewed(4, 300);
  skewed[1] = 399000;
  calls.push_back(make_call(jagged_reduce::Op::sum, skewed, 8, DType::f32, false, rng));
  calls.push_back(make_call(jagged_reduce::Op::sum, {999990, 10}, 1, DType::f32, false, rng));
  std::vector<int64_t> short_rows(300);
  for (auto& len : short_rows) len = static_cast<int64_t>(rng() % 41);
  calls.push_back(make_call(jagged_reduce::Op::sum, short_rows, 64, DType::bf16, false, rng));
  calls.push_back(make_call(jagged_reduce::Op::mean, skewed, 8, DType::f16, true, rng));

  CudaStream capturing, other;
  ASSERT_EQ(cudaStreamBeginCapture(capturing.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
  for (const ReduceCall& c : calls) enqueue(c, c_abi, capturing.get());
  GraphExec exec = end_capture(capturing.get());
  ASSERT_NE(exec, nullptr);

  // Which configs ran: at least one with scratch, or this test no longer tests what it says.
  bool any_scratch = false;
  const int arch = dispatch::device_arch(dispatch::current_device());
  for (const ReduceCall& c : calls) {
    const dispatch::Selection s =
        dispatch::select_jagged_reduce(*dispatch::current_store(), c.problem(), c.longest(), arch);
    any_scratch |= jagged_reduce::workspace_bytes(jagged_reduce::config_space()[s.config], c.problem()) > 0;
  }
  EXPECT_TRUE(any_scratch) << "no captured call took a config with scratch: pick other shapes";

  for (const ReduceCall& c : calls) poison(c.d_out);
  ASSERT_EQ(cudaGraphLaunch(exec.get(), capturing.get()), cudaSuccess);
  capturing.synchronize();
  for (const ReduceCall& c : calls) expect_reference(c, "first replay");

  // Eager calls on the capturing stream grow its cached scratch (freeing the old buffer) between
  // replays: a graph holding that buffer would now read freed memory.
  std::vector<int64_t> bigger(64, 100);
  bigger[0] = 600000;
  const ReduceCall eager = make_call(jagged_reduce::Op::sum, bigger, 32, DType::f32, false, rng);
  enqueue(calls[0], c_abi, capturing.get());
  enqueue(eager, c_abi, capturing.get());
  capturing.synchronize();
  expect_reference(eager, "eager call between replays");

  // New values in the same buffers, replayed on another stream.
  for (ReduceCall& c : calls) {
    c.draw_values(rng);
    poison(c.d_out);
  }
  ASSERT_EQ(cudaGraphLaunch(exec.get(), other.get()), cudaSuccess);
  other.synchronize();
  for (const ReduceCall& c : calls) expect_reference(c, "second replay, new values, another stream");
}

TEST_P(DispatchGraphCapture, CausalTrailingMeanReplaysTheReference) {
  AOTUNE_REQUIRE_GPU();
  const bool c_abi = GetParam();
  std::mt19937_64 rng(23);
  const int64_t B = 2, D = 16, T = 1000, cf = 64;
  const DType dtype = DType::bf16;
  std::vector<double> x = random_values(static_cast<std::size_t>(B * D * T), dtype, rng, 3.0);
  DeviceBuffer d_x(x.size() * dtype_size(dtype)), d_out(x.size() * dtype_size(dtype));
  const auto upload_x = [&] {
    const auto bytes = encode(x, dtype);
    d_x.upload(bytes.data(), bytes.size());
  };
  upload_x();
  CudaStream capturing;
  ASSERT_EQ(cudaStreamBeginCapture(capturing.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
  if (c_abi) {
    ASSERT_EQ(aotune_causal_trailing_mean(d_x.get(), d_out.get(), B, D, T, cf,
                                          static_cast<int32_t>(dtype), capturing.get()),
              AOTUNE_OK)
        << aotune_last_error();
  } else {
    ops::causal_trailing_mean(d_x.get(), d_out.get(), B, D, T, cf, dtype, capturing.get());
  }
  GraphExec exec = end_capture(capturing.get());
  ASSERT_NE(exec, nullptr);
  for (int replay = 0; replay < 2; ++replay) {
    if (replay == 1) {
      x = random_values(x.size(), dtype, rng, -1.0);
      upload_x();
    }
    poison(d_out);
    ASSERT_EQ(cudaGraphLaunch(exec.get(), capturing.get()), cudaSuccess);
    capturing.synchronize();
    std::vector<double> abs_x = x;
    for (double& v : abs_x) v = std::abs(v);
    const auto ref = causal_trailing_mean::reference(x, B * D, T, cf);
    const auto scale = causal_trailing_mean::reference(abs_x, B * D, T, cf);
    const CheckResult check = compare_to_reference(download(d_out, ref.size(), dtype), ref, scale, dtype);
    EXPECT_TRUE(check.ok) << "replay " << replay << ": " << check.message;
  }
}

TEST_P(DispatchGraphCapture, JaggedDenseAddReplaysTheReference) {
  AOTUNE_REQUIRE_GPU();
  const bool c_abi = GetParam();
  std::mt19937_64 rng(25);
  const int64_t B = 200, N = 128;
  const DType dtype = DType::f16;
  std::vector<int64_t> offsets{0};
  for (int64_t b = 0; b < B; ++b) offsets.push_back(offsets.back() + static_cast<int64_t>(rng() % (N + 1)));
  const int64_t nnz = offsets.back();
  std::vector<double> x = random_values(static_cast<std::size_t>(nnz), dtype, rng);
  std::vector<double> y = random_values(static_cast<std::size_t>(B * N), dtype, rng);
  const auto off = encode_index(offsets, IndexType::i32);
  DeviceBuffer d_x(std::max<std::size_t>(x.size() * dtype_size(dtype), 16)), d_offsets(off.size()),
      d_y(y.size() * dtype_size(dtype)), d_out(y.size() * dtype_size(dtype));
  d_offsets.upload(off.data(), off.size());
  const auto upload = [&] {
    const auto xb = encode(x, dtype), yb = encode(y, dtype);
    d_x.upload(xb.data(), xb.size());
    d_y.upload(yb.data(), yb.size());
  };
  upload();
  CudaStream capturing;
  ASSERT_EQ(cudaStreamBeginCapture(capturing.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
  if (c_abi) {
    ASSERT_EQ(aotune_jagged_dense_add(d_x.get(), d_offsets.get(), d_y.get(), d_out.get(), B, N, nnz,
                                      -1, static_cast<int32_t>(dtype), AOTUNE_INDEX_I32,
                                      capturing.get()),
              AOTUNE_OK)
        << aotune_last_error();
  } else {
    ops::jagged_dense_add(d_x.get(), d_offsets.get(), d_y.get(), d_out.get(), B, N, nnz, -1, dtype,
                          IndexType::i32, capturing.get());
  }
  GraphExec exec = end_capture(capturing.get());
  ASSERT_NE(exec, nullptr);
  for (int replay = 0; replay < 2; ++replay) {
    if (replay == 1) {
      x = random_values(x.size(), dtype, rng, 2.0);
      y = random_values(y.size(), dtype, rng, -2.0);
      upload();
    }
    poison(d_out);
    ASSERT_EQ(cudaGraphLaunch(exec.get(), capturing.get()), cudaSuccess);
    capturing.synchronize();
    std::vector<double> abs_x = x, abs_y = y;
    for (double& v : abs_x) v = std::abs(v);
    for (double& v : abs_y) v = std::abs(v);
    const auto ref = jagged_dense_add::reference(x, offsets, y, N);
    const auto scale = jagged_dense_add::reference(abs_x, offsets, abs_y, N);
    const CheckResult check = compare_to_reference(download(d_out, ref.size(), dtype), ref, scale, dtype);
    EXPECT_TRUE(check.ok) << "replay " << replay << ": " << check.message;
  }
}

// The dispatch layer's part alone: scratch handed out during capture is not the stream's cached
// buffer, outlives an eager growth of that buffer, and is zeroed by the graph itself.
TEST(DispatchGraphCaptureWorkspace, ACapturedCallGetsZeroedScratchOfItsOwn) {
  AOTUNE_REQUIRE_GPU();
  const int device = dispatch::current_device();
  CudaStream s;
  void* eager = dispatch::workspace_for(device, s.get(), 4096).get();  // (the lease ends here)
  ASSERT_NE(eager, nullptr);
  ASSERT_EQ(cudaMemsetAsync(eager, 0x5a, 4096, s.get()), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
  void* captured = dispatch::workspace_for(device, s.get(), 4096).get();
  GraphExec exec = end_capture(s.get());
  ASSERT_NE(exec, nullptr);
  EXPECT_NE(captured, eager);
  ASSERT_EQ(cudaMemset(captured, 0x77, 4096), cudaSuccess);          // dirty it outside the graph
  test::wait_for_default_stream();                                   // before the replay on `s`
  EXPECT_NE(dispatch::workspace_for(device, s.get(), 1 << 20).get(), nullptr);  // growth frees `eager`
  ASSERT_EQ(cudaGraphLaunch(exec.get(), s.get()), cudaSuccess);
  s.synchronize();
  std::vector<unsigned char> bytes(4096, 1);
  ASSERT_EQ(cudaMemcpy(bytes.data(), captured, bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(std::all_of(bytes.begin(), bytes.end(), [](unsigned char b) { return b == 0; }))
      << "the graph's replay did not zero the captured call's scratch";
}

INSTANTIATE_TEST_SUITE_P(CppAndC, DispatchGraphCapture, ::testing::Bool(), [](const auto& info) {
  return info.param ? std::string("CAbi") : std::string("CppApi");
});

}  // namespace
}  // namespace aotune
