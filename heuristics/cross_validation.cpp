#include "heuristics/cross_validation.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>
#include <utility>

#include "heuristics/decision_tree.h"
#include "tuner/stable_hash.h"

namespace aotune::heuristics {

namespace {

void split_rows(std::span<const std::size_t> rows, const std::vector<std::size_t>& fold_of,
                std::size_t fold, std::vector<std::size_t>& train, std::vector<std::size_t>& test) {
  train.clear();
  test.clear();
  for (std::size_t i = 0; i < rows.size(); ++i)
    (fold_of[i] == fold ? test : train).push_back(rows[i]);
}

Cost choice_cost(const TrainingSet& ts, std::size_t row, const Choice& c) {
  return c.source == ChoiceSource::none ? Cost{1, 0} : Cost::of(ts.cost_at(row, c.config));
}

// fn(0) .. fn(n - 1) on up to hardware_concurrency threads. The fitter's cross-validation is
// thousands of independent tree fits, the bulk of `fit`, `emit` and `verify`.
template <typename Fn>
void parallel_for(std::size_t n, Fn fn) {
  const std::size_t threads = std::min<std::size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

std::vector<std::size_t> assign_folds(const TrainingSet& ts, std::span<const std::size_t> rows,
                                      std::size_t folds, uint64_t salt) {
  const std::size_t k = std::max<std::size_t>(1, std::min(folds, rows.size()));
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<uint64_t> hash(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    hash[i] = tuner::mix64(tuner::fnv1a64(ts.shape_keys[rows[i]]) ^ (salt == 0 ? 0 : tuner::mix64(salt)));
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return hash[a] != hash[b] ? hash[a] < hash[b] : a < b;
  });
  std::vector<std::size_t> fold_of(rows.size());
  for (std::size_t p = 0; p < order.size(); ++p) fold_of[order[p]] = p % k;
  return fold_of;
}

Heuristic fit_on(const TrainingSet& ts, std::span<const std::size_t> rows,
                 const HyperParams& params, const SubsetOptions& subset,
                 SplitCriterion criterion) {
  SubsetOptions sized = subset;
  if (params.max_configs > 0) sized.max_configs = params.max_configs;
  return fit_tree(ts, rows, select_config_subset(ts, rows, sized),
                  {params.max_depth, params.min_leaf, criterion, params.routed_heads});
}

// Least mean improvement in ln(slowdown) per row for routed heads to be chosen (see below).
constexpr double kRoutedHeadsMargin = 0.005;

// The subset sizes cross-validation tries: options.subset_sizes under the cap, and the cap itself.
std::vector<std::size_t> subset_sizes(const CrossValidationOptions& options) {
  const std::size_t cap = std::max<std::size_t>(1, options.subset.max_configs);
  std::vector<std::size_t> sizes = {cap};
  for (const std::size_t k : options.subset_sizes)
    if (k >= 1 && k < cap) sizes.push_back(k);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

HyperParams choose_hyper_params(const TrainingSet& ts, std::span<const std::size_t> rows,
                                const CrossValidationOptions& options) {
  const std::vector<std::size_t> sizes = subset_sizes(options);
  if (rows.size() < 2 || options.depths.empty() || options.min_leaves.empty()) return {.max_configs = sizes.front()};
  const int deepest = *std::max_element(options.depths.begin(), options.depths.end());
  // cost[s][h][m][d]: summed over every draw's folds' test rows; s = subset size, h = routed heads.
  std::vector<std::vector<std::vector<std::vector<Cost>>>> cost(
      sizes.size(), std::vector<std::vector<std::vector<Cost>>>(
                        2, std::vector<std::vector<Cost>>(options.min_leaves.size(),
                                                          std::vector<Cost>(options.depths.size()))));
  const std::size_t draws = std::max<std::size_t>(1, options.inner_draws);
  // One job per (draw, fold, subset size); each fills its own cost table, summed afterwards (integer
  // costs: the sum, and so the choice, does not depend on the order the jobs finish in). The
  // subset sizes of one fold share its split.
  struct Split {
    std::vector<std::size_t> train, test;
  };
  struct Job {
    std::size_t split = 0, size = 0;
  };
  std::vector<Split> splits;
  std::vector<Job> jobs;
  for (std::size_t draw = 0; draw < draws; ++draw) {
    // Draw 0 deals the folds as a single-draw choice would; later draws re-deal them with other salts.
    const uint64_t salt = draw == 0 ? options.fold_salt : tuner::mix64(options.fold_salt + 0x5eed0000u + draw);
    const std::vector<std::size_t> fold_of = assign_folds(ts, rows, options.folds, salt);
    const std::size_t k = *std::max_element(fold_of.begin(), fold_of.end()) + 1;
    for (std::size_t fold = 0; fold < k; ++fold) {
      Split& split = splits.emplace_back();
      split_rows(rows, fold_of, fold, split.train, split.test);
      for (std::size_t s = 0; s < sizes.size(); ++s) jobs.push_back({splits.size() - 1, s});
    }
  }
  using Table = std::vector<std::vector<std::vector<Cost>>>;  // [h][m][d]
  std::vector<Table> job_cost(jobs.size(), Table(2, std::vector<std::vector<Cost>>(
                                                        options.min_leaves.size(), std::vector<Cost>(options.depths.size()))));
  parallel_for(jobs.size(), [&](std::size_t j) {
    const Job& job = jobs[j];
    const Split& split = splits[job.split];
    SubsetOptions subset_options = options.subset;
    subset_options.max_configs = sizes[job.size];
    const std::vector<std::size_t> subset = select_config_subset(ts, split.train, subset_options);
    for (std::size_t h = 0; h < 2; ++h) {
      for (std::size_t m = 0; m < options.min_leaves.size(); ++m) {
        const GrownTree grown = grow_tree(ts, split.train, subset,
                                          {deepest, options.min_leaves[m], options.criterion, h == 1});
        for (std::size_t d = 0; d < options.depths.size(); ++d) {
          const Heuristic model = flatten(grown, options.depths[d]);
          for (const std::size_t row : split.test) job_cost[j][h][m][d] += choice_cost(ts, row, route(model, ts, row));
        }
      }
    }
  });
  for (std::size_t j = 0; j < jobs.size(); ++j)
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t m = 0; m < options.min_leaves.size(); ++m)
        for (std::size_t d = 0; d < options.depths.size(); ++d) cost[jobs[j].size][h][m][d] += job_cost[j][h][m][d];
  // Candidates from simplest to most complex (fewer configs, then shallower, then larger leaves);
  // only a strictly lower cost displaces a simpler one.
  std::vector<std::size_t> depth_order(options.depths.size()),
      leaf_order(options.min_leaves.size());
  std::iota(depth_order.begin(), depth_order.end(), std::size_t{0});
  std::iota(leaf_order.begin(), leaf_order.end(), std::size_t{0});
  std::stable_sort(depth_order.begin(), depth_order.end(), [&](std::size_t a, std::size_t b) {
    return options.depths[a] < options.depths[b];
  });
  std::stable_sort(leaf_order.begin(), leaf_order.end(), [&](std::size_t a, std::size_t b) {
    return options.min_leaves[a] > options.min_leaves[b];
  });
  auto best_of = [&](std::size_t h) {
    HyperParams best{options.depths[depth_order[0]], options.min_leaves[leaf_order[0]], h == 1, sizes[0]};
    Cost best_cost = cost[0][h][leaf_order[0]][depth_order[0]];
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      for (const std::size_t d : depth_order) {
        for (const std::size_t m : leaf_order) {
          if (cost[s][h][m][d] < best_cost) {
            best_cost = cost[s][h][m][d];
            best = {options.depths[d], options.min_leaves[m], h == 1, sizes[s]};
          }
        }
      }
    }
    return std::pair{best, best_cost};
  };
  const auto [plain, plain_cost] = best_of(0);
  const auto [routed, routed_cost] = best_of(1);
  // Routed heads must win by a margin: 0.5 % of geomean slowdown over the rows. Where they only
  // match plain lists within noise (the jagged kernels), picking them by a hair made some fold
  // draws' trees lead with configs that were catastrophic on unseen shapes (held-out max 3.3 ->
  // 10, 10 draws); on causal_trailing_mean they win by ~1.2 % (session 9, PERF.md).
  const Cost margin{0, static_cast<int64_t>(kRoutedHeadsMargin * 1e6 * static_cast<double>(rows.size() * draws))};
  return routed_cost + margin < plain_cost ? routed : plain;
}

HeldOut heldout_choices(const TrainingSet& ts, const CrossValidationOptions& options) {
  const std::vector<std::size_t> rows = all_rows(ts);
  HeldOut out;
  out.choices.resize(rows.size());
  out.fold_of = assign_folds(ts, rows, options.folds, options.fold_salt);
  if (rows.empty()) return out;
  const std::size_t k = *std::max_element(out.fold_of.begin(), out.fold_of.end()) + 1;
  std::vector<std::size_t> train, test;
  for (std::size_t fold = 0; fold < k; ++fold) {
    split_rows(rows, out.fold_of, fold, train, test);
    const HyperParams params = choose_hyper_params(ts, train, options);
    out.per_fold.push_back(params);
    const Heuristic h = fit_on(ts, train, params, options.subset, options.criterion);
    for (const std::size_t row : test) out.choices[row] = route(h, ts, row);
  }
  return out;
}

}  // namespace aotune::heuristics
