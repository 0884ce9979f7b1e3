// How long the selection itself takes (Google Benchmark): walking a generated tree, and the host
// side of a dispatch call without the kernel (validation, features, store lookup, tree, legality).
// Targets (issue 4): tree evaluation <= 50 ns, host-side dispatch overhead <= 5 us per call.
// Run: build with -DAOTUNE_BUILD_BENCH=ON, then ./aotune_bench_selection
#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "aotune/heuristic_store.h"
#include "dispatch/src/kernel_heuristic_check.h"
#include "dispatch/src/kernel_selection.h"
#include "dispatch/src/scratch_pool.h"
#include "dispatch/src/selection_log.h"
#include "heuristics/forest.h"
#include "heuristics/kernel_features.h"
#include "heuristics/tree_node.h"
#include "kernels/causal_trailing_mean/causal_trailing_mean.h"
#include "kernels/common/registry.h"

namespace {

using aotune::heuristics::TreeNode;

constexpr int kDepth = 12;  // the deepest tree cross-validation may choose

// A complete tree of depth kDepth over the features in pre-order, thresholds drawn at random in
// log space: every walk takes kDepth steps, the worst case.
void build_tree(std::vector<TreeNode>& nodes, std::vector<uint16_t>& leaves, int depth,
                int num_features, std::mt19937_64& rng) {
  const std::size_t at = nodes.size();
  nodes.emplace_back();
  if (depth == kDepth) {
    nodes[at] = {-1, static_cast<int32_t>(leaves.size()), 2, 0.0};
    leaves.push_back(static_cast<uint16_t>(rng() % 8));
    leaves.push_back(static_cast<uint16_t>(rng() % 8));
    return;
  }
  const auto feature = static_cast<int32_t>(rng() % static_cast<uint64_t>(num_features));
  const double threshold = std::exp2(static_cast<double>(rng() % 24));
  const auto left = static_cast<int32_t>(nodes.size());
  build_tree(nodes, leaves, depth + 1, num_features, rng);
  const auto right = static_cast<int32_t>(nodes.size());
  build_tree(nodes, leaves, depth + 1, num_features, rng);
  nodes[at] = {feature, left, right, threshold};
}

aotune::dispatch::KernelHeuristic deep_jagged_sum_heuristic() {
  aotune::dispatch::KernelHeuristic h;
  h.kernel = "jagged_sum";
  h.arch = 90;
  h.source = "bench";
  h.features = aotune::heuristics::current_feature_names(aotune::find_kernel("jagged_sum"));
  h.config_ids = {"block_row.t128.v4",        "block_row.t256.v4",    "block_row.t512.v8",
                  "group_row.t128.v4.s1",     "group_row.t128.v2.s4", "flat_row.t128.s8",
                  "nnz_split.t256.v4.c65536", "block_row.t256.v1"};
  std::mt19937_64 rng(1);
  build_tree(h.nodes, h.leaf_configs, 0, static_cast<int>(h.features.size()), rng);
  h.fallback = {7, 0, 1, 2, 3, 4, 5, 6};
  aotune::dispatch::resolve_and_check(h, aotune::find_kernel("jagged_sum"));
  return h;
}

std::vector<std::vector<double>> random_features(std::size_t n, std::size_t width) {
  std::mt19937_64 rng(2);
  std::vector<std::vector<double>> xs(n, std::vector<double>(width));
  for (auto& x : xs) {
    for (double& v : x) v = std::exp2(static_cast<double>(rng() % 24));
  }
  return xs;
}

void BM_TreeEvaluation(benchmark::State& state) {
  const auto h = deep_jagged_sum_heuristic();
  const auto xs = random_features(1024, h.features.size());
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(aotune::heuristics::find_leaf(h.nodes.data(), xs[i++ & 1023].data()));
  }
}
BENCHMARK(BM_TreeEvaluation);

void BM_ChooseConfig(benchmark::State& state) {
  const auto h = deep_jagged_sum_heuristic();
  const auto view = h.view();
  const auto xs = random_features(1024, h.features.size());
  const auto space = static_cast<uint32_t>(aotune::find_kernel("jagged_sum").num_configs());
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(aotune::heuristics::choose_config(
        view, xs[i++ & 1023].data(), 0, space, [](uint32_t) { return true; }));
  }
}
BENCHMARK(BM_ChooseConfig);

// A forest as `aot-runner fit --forest-trees N` fits (heuristics/forest.h): N trees
// of depth <= 12 over 12 features, K = 16 configs, fitted on 1024 random shapes so the trees run
// deep. A prediction walks every tree, adds its leaf's 16 costs and takes the cheapest legal
// config (all legal here): what a dispatch would do, no ranking sort.
void BM_ForestPrediction(benchmark::State& state) {
  namespace h = aotune::heuristics;
  constexpr std::size_t kFeatures = 12, kConfigs = 16;
  h::TrainingSet ts;
  for (std::size_t f = 0; f < kFeatures; ++f) ts.feature_names.push_back(fmt::format("f{}", f));
  for (std::size_t c = 0; c < kConfigs; ++c) ts.config_ids.push_back(fmt::format("c{}", c));
  std::mt19937_64 rng(3);
  const auto shapes = random_features(1024, kFeatures);
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    std::vector<double> times(kConfigs);
    for (double& t : times) t = 1.0 + static_cast<double>(rng() % 1000) / 500.0;
    h::add_shape(ts, fmt::format("s{}", s), shapes[s], times, std::vector<bool>(kConfigs, true));
  }
  h::ForestOptions options;
  options.trees = static_cast<std::size_t>(state.range(0));
  options.configs = h::ForestConfigs::all;
  const h::Forest forest =
      h::fit_forest(ts, h::all_rows(ts),
                    h::forest_config_columns(ts, h::all_rows(ts), options.configs, {}), options);
  const auto xs = random_features(1024, kFeatures);
  std::size_t i = 0;
  int64_t costs[kConfigs];
  for (auto _ : state) {
    h::forest_costs(forest, xs[i++ & 1023].data(), costs);
    std::size_t best = 0;
    for (std::size_t c = 1; c < kConfigs; ++c)
      if (costs[c] < costs[best]) best = c;
    benchmark::DoNotOptimize(best);
  }
  state.counters["nodes"] = static_cast<double>(forest.nodes.size());
}
BENCHMARK(BM_ForestPrediction)->Arg(4)->Arg(8)->Arg(16);

aotune::jagged_reduce::Problem problem(int64_t B, int64_t M, int64_t nnz) {
  aotune::jagged_reduce::Problem p;
  p.B = B;
  p.M = M;
  p.nnz = nnz;
  p.dtype = aotune::DType::bf16;
  p.values = reinterpret_cast<const void*>(std::uintptr_t{1} << 20);
  p.offsets = reinterpret_cast<const void*>(std::uintptr_t{1} << 30);
  p.out = reinterpret_cast<void*>(std::uintptr_t{1} << 34);
  return p;
}

// Everything a jagged_sum call does on the host except cudaGetDevice (one cached attribute
// read after the first call), the workspace lookup and the launch itself. Rows up to 500 long
// (256 KB): past the row bound's cheap check, so each config the walk meets is checked by id.
void BM_HostDispatchJaggedSum(benchmark::State& state) {
  const aotune::dispatch::HeuristicStore store({deep_jagged_sum_heuristic()});
  const auto p = problem(4096, 256, 4096 * 37);
  for (auto _ : state)
    benchmark::DoNotOptimize(aotune::dispatch::select_jagged_reduce(store, p, 500, 90));
}
BENCHMARK(BM_HostDispatchJaggedSum);

// The same with rows up to 16 long: the row bound's cheap check stops there.
void BM_HostDispatchJaggedSumShortRows(benchmark::State& state) {
  const aotune::dispatch::HeuristicStore store({deep_jagged_sum_heuristic()});
  const auto p = problem(4096, 256, 4096 * 8);
  for (auto _ : state)
    benchmark::DoNotOptimize(aotune::dispatch::select_jagged_reduce(store, p, 16, 90));
}
BENCHMARK(BM_HostDispatchJaggedSumShortRows);

// The same through the process-wide store (its lock and reference count included) and the
// committed sm90 heuristic (generated/heuristic_sm90.h: an 8-tree forest for jagged_sum), one
// shape called again and again, as a training or serving loop does.
void BM_HostDispatchJaggedSumCompiled(benchmark::State& state) {
  const auto p = problem(4096, 256, 4096 * 37);
  for (auto _ : state) {
    const auto store = aotune::dispatch::current_store();
    benchmark::DoNotOptimize(aotune::dispatch::select_jagged_reduce(*store, p, 500, 90));
  }
}
BENCHMARK(BM_HostDispatchJaggedSumCompiled);

// The same with AOTUNE_LOG_SELECTIONS on: every call formats its line to look it up among those
// already logged (the sink, never reached after the first call, writes nothing).
void BM_HostDispatchJaggedSumCompiledLogged(benchmark::State& state) {
  const auto p = problem(4096, 256, 4096 * 37);
  aotune::dispatch::SelectionLog log("1", [](const std::string&) {});
  aotune::dispatch::install_selection_log_for_testing(&log);
  for (auto _ : state) {
    const auto store = aotune::dispatch::current_store();
    benchmark::DoNotOptimize(aotune::dispatch::select_jagged_reduce(*store, p, 500, 90));
  }
  aotune::dispatch::install_selection_log_for_testing(nullptr);
}
BENCHMARK(BM_HostDispatchJaggedSumCompiledLogged);

// A call's scratch lease when the buffer is big enough already (the steady state): the pool's
// shared lock and one map lookup, on a backend that allocates host memory once.
class OnceHostScratch final : public aotune::dispatch::ScratchBackend {
 public:
  void* allocate(int, std::size_t bytes) override { return ::operator new(bytes); }
  void free(int, void* p) noexcept override { ::operator delete(p); }
  void zero(void*, std::size_t, void*) override {}
  void wait(void*) override {}
};

void BM_ScratchLease(benchmark::State& state) {
  OnceHostScratch backend;
  aotune::dispatch::ScratchPool pool(backend, reinterpret_cast<void*>(std::uintptr_t{2}));
  for (int s = 1; s <= 8; ++s)
    pool.lease(0, reinterpret_cast<void*>(std::uintptr_t{16} * s), 1 << 20);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        pool.lease(0, reinterpret_cast<void*>(std::uintptr_t{48}), 4096).get());
}
BENCHMARK(BM_ScratchLease);

// 1024 jagged_sum calls of random sizes (B 1-65536, M 1-1024, rows up to 1-8192 long, half of
// them full on average, bf16 or f32), each with its longest row.
struct JaggedCall {
  aotune::jagged_reduce::Problem p;
  int64_t max_len = 0;
};

std::vector<JaggedCall> random_jagged_calls() {
  std::mt19937_64 rng(4);
  std::vector<JaggedCall> calls(1024);
  for (JaggedCall& c : calls) {
    const int64_t B = int64_t{1} << (rng() % 17), M = int64_t{1} << (rng() % 11);
    c.max_len = int64_t{1} << (rng() % 14);
    c.p = problem(B, M, std::max<int64_t>(c.max_len, B * c.max_len / 2));
    c.p.dtype = rng() % 2 ? aotune::DType::bf16 : aotune::DType::f32;
  }
  return calls;
}

// Those calls' jagged_sum feature vectors, in the heuristic's feature order.
std::vector<std::vector<double>> random_jagged_features() {
  std::vector<std::vector<double>> xs;
  for (const JaggedCall& c : random_jagged_calls()) {
    std::vector<double> x;
    for (const auto& [name, value] :
         aotune::jagged_reduce::features(c.p.dtype, c.p.B, c.p.M, c.p.nnz, c.max_len))
      x.push_back(value);
    xs.push_back(std::move(x));
  }
  return xs;
}

// 1024 causal_trailing_mean calls of random sizes (B 1-256, D 1-2048, T 1-65536, window 1-1024,
// bf16 or f32), on made-up addresses (selection never reads them).
std::vector<aotune::causal_trailing_mean::Problem> random_causal_calls() {
  std::mt19937_64 rng(5);
  std::vector<aotune::causal_trailing_mean::Problem> calls(1024);
  for (aotune::causal_trailing_mean::Problem& p : calls) {
    p.B = int64_t{1} << (rng() % 9);
    p.D = int64_t{1} << (rng() % 12);
    p.T = int64_t{1} << (rng() % 17);
    p.cf = int64_t{1} << (rng() % 11);
    p.dtype = rng() % 2 ? aotune::DType::bf16 : aotune::DType::f32;
    p.x = reinterpret_cast<const void*>(std::uintptr_t{1} << 20);
    p.out = reinterpret_cast<void*>(std::uintptr_t{1} << 40);
  }
  return calls;
}

// Those calls' feature vectors, in the heuristic's feature order.
std::vector<std::vector<double>> random_causal_features() {
  std::vector<std::vector<double>> xs;
  for (const auto& p : random_causal_calls()) {
    std::vector<double> x;
    for (const auto& [name, value] : aotune::causal_trailing_mean::features(p.dtype, p.B, p.D, p.T, p.cf))
      x.push_back(value);
    xs.push_back(std::move(x));
  }
  return xs;
}

// The committed heuristic's own evaluation (choose_config on its tables, every config legal) over
// 1024 random calls' features: a forest for jagged_sum and (since session 61)
// causal_trailing_mean, so this is the forest's cost in dispatch for a shape the memo misses.
void choose_config_compiled(benchmark::State& state, const char* kernel,
                            const std::vector<std::vector<double>>& xs) {
  const auto store = aotune::dispatch::current_store();
  const aotune::dispatch::KernelHeuristic* h = store->find(kernel, 90);
  if (h == nullptr) {
    state.SkipWithError(fmt::format("no compiled sm90 heuristic for {}", kernel).c_str());
    return;
  }
  const auto view = h->view();
  const auto space = static_cast<uint32_t>(aotune::find_kernel(kernel).num_configs());
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(aotune::heuristics::choose_config(
        view, xs[i++ & 1023].data(), 0, space, [](uint32_t) { return true; }));
  }
  state.counters["trees"] = static_cast<double>(view.num_trees);
  state.counters["nodes"] = static_cast<double>(view.num_nodes);
}

void BM_ChooseConfigCompiledJaggedSum(benchmark::State& state) {
  choose_config_compiled(state, "jagged_sum", random_jagged_features());
}
BENCHMARK(BM_ChooseConfigCompiledJaggedSum);

void BM_ChooseConfigCompiledCausal(benchmark::State& state) {
  choose_config_compiled(state, "causal_trailing_mean", random_causal_features());
}
BENCHMARK(BM_ChooseConfigCompiledCausal);

// The committed jagged_sum forest's cost sums alone, two ways: range(0) 0 walks each tree on its
// own with find_leaf (session 22's code, kept here as the reference), 1 is forest_costs (the
// trees in lockstep, branch-free: what dispatch runs); range(1) 0 repeats one call's features,
// 1 cycles through the 1024 random calls'. Compare the two walks within one run.
void BM_ForestCostsCompiledJaggedSum(benchmark::State& state) {
  namespace hs = aotune::heuristics;
  const auto store = aotune::dispatch::current_store();
  const aotune::dispatch::KernelHeuristic* h = store->find("jagged_sum", 90);
  if (h == nullptr || h->roots.empty()) {
    state.SkipWithError("no compiled sm90 forest for jagged_sum");
    return;
  }
  const auto view = h->view();
  const std::vector<std::vector<double>> xs = random_jagged_features();
  const std::size_t mask = state.range(1) == 0 ? 0 : 1023;
  int64_t cost[hs::kMaxForestConfigs];
  std::size_t i = 0;
  for (auto _ : state) {
    const double* x = xs[i++ & mask].data();
    if (state.range(0) == 0) {
      for (int32_t c = 0; c < view.num_configs; ++c) cost[c] = 0;
      for (int32_t t = 0; t < view.num_trees; ++t) {
        const TreeNode* tree = view.nodes + view.roots[t];
        const uint16_t* values = view.leaf_values + tree[hs::find_leaf(tree, x)].left;
        for (int32_t c = 0; c < view.num_configs; ++c) cost[c] += hs::leaf_cost(values[c]);
      }
    } else {
      hs::forest_costs(view, x, cost);
    }
    benchmark::DoNotOptimize(cost);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ForestCostsCompiledJaggedSum)->ArgsProduct({{0, 1}, {0, 1}});

// The host side of those calls through the process-wide store and the committed heuristic, a
// different shape each call (the selection's worst case: no warm branch history, tables in L2).
void BM_HostDispatchJaggedSumCompiledVaried(benchmark::State& state) {
  const auto calls = random_jagged_calls();
  std::size_t i = 0;
  for (auto _ : state) {
    const JaggedCall& c = calls[i++ & 1023];
    const auto store = aotune::dispatch::current_store();
    benchmark::DoNotOptimize(aotune::dispatch::select_jagged_reduce(*store, c.p, c.max_len, 90));
  }
}
BENCHMARK(BM_HostDispatchJaggedSumCompiledVaried);

// The same for causal_trailing_mean, whose heuristic is a forest since session 61 (a tree of
// tens of nanoseconds before). range(0) 0: a new shape each call; N: N of them called in turn, as
// a model's layers with N (D, cf) pairs would. The per-thread memo keeps a heuristic's last four
// shapes (session 61; one before), so up to four in turn walk the forest once per shape.
void BM_HostDispatchCausalCompiled(benchmark::State& state) {
  const auto calls = random_causal_calls();
  const auto in_turn = static_cast<std::size_t>(state.range(0) == 0 ? calls.size() : state.range(0));
  std::size_t i = 0;
  for (auto _ : state) {
    const auto store = aotune::dispatch::current_store();
    benchmark::DoNotOptimize(aotune::dispatch::select_causal_trailing_mean(*store, calls[i++ % in_turn], 90));
  }
}
BENCHMARK(BM_HostDispatchCausalCompiled)->Arg(0)->Arg(3);

void BM_FeaturesJaggedSum(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        aotune::jagged_reduce::features(aotune::DType::bf16, 4096, 256, 4096 * 37, 500));
  }
}
BENCHMARK(BM_FeaturesJaggedSum);

}  // namespace

BENCHMARK_MAIN();
