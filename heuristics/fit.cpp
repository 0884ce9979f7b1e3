#include "heuristics/fit.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "heuristics/cost.h"
#include "kernels/common/errors.h"

namespace aotune::heuristics {

namespace {

// Slowdowns of running `configs[row]` on every shape (none: no config could run).
SlowdownSummary summarize_picks(const TrainingSet& ts,
                                const std::vector<std::optional<uint32_t>>& configs,
                                std::vector<double>* slowdowns = nullptr) {
  std::vector<double> s;
  std::size_t unmeasured = 0;
  for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
    s.push_back(configs[row] ? ts.slowdown_at(row, *configs[row]) : kInfiniteSlowdown);
    if (configs[row] && ts.kind_at(row, *configs[row]) == CellKind::unmeasured) ++unmeasured;
  }
  if (slowdowns != nullptr) *slowdowns = s;
  SlowdownSummary summary = summarize_slowdowns(std::move(s));
  summary.unmeasured = unmeasured;
  return summary;
}

std::optional<uint32_t> picked(const Choice& c) {
  return c.source == ChoiceSource::none ? std::nullopt : std::optional<uint32_t>(c.config);
}

SlowdownSummary summarize_single(const TrainingSet& ts, uint32_t config) {
  return summarize_picks(ts, std::vector<std::optional<uint32_t>>(ts.num_shapes(), config));
}

uint32_t best_single_config(const TrainingSet& ts) {
  uint32_t best = 0;
  Cost best_cost{static_cast<int64_t>(ts.num_shapes()) + 1, 0};
  for (uint32_t c = 0; c < ts.num_configs(); ++c) {
    Cost cost;
    for (std::size_t row = 0; row < ts.num_shapes(); ++row) cost += Cost::of(ts.cost_at(row, c));
    if (cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

nlohmann::ordered_json config_ref(const TrainingSet& ts, uint32_t c) {
  return {{"index", c}, {"id", c < ts.num_configs() ? ts.config_ids[c] : std::string()}};
}

// The shape's fastest config that may be picked (lowest slowdown, ties to the lower index).
uint32_t best_config_of(const TrainingSet& ts, std::size_t row) {
  uint32_t best = 0;
  for (uint32_t c = 1; c < ts.num_configs(); ++c) {
    if (ts.ok(row, c) && (!ts.ok(row, best) || ts.slowdown_at(row, c) < ts.slowdown_at(row, best)))
      best = c;
  }
  return best;
}

// The rows of the `count` largest slowdowns, slowest first (ties to the lower row).
std::vector<std::size_t> slowest_rows(const std::vector<double>& slowdowns, std::size_t count) {
  std::vector<std::size_t> order(slowdowns.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return slowdowns[a] > slowdowns[b]; });
  order.resize(std::min(count, order.size()));
  return order;
}

// The `count` slowest held-out shapes (ties to the lower row): what the heuristic picked for a
// shape it never saw, against that shape's fastest config.
nlohmann::ordered_json worst_heldout(const FitResult& fit, const TrainingSet& ts,
                                     std::size_t count) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const std::size_t row : slowest_rows(fit.heldout_slowdowns, count)) {
    const Choice& c = fit.heldout_detail.choices[row];
    nlohmann::ordered_json j;
    j["shape"] = ts.shape_keys[row];
    j["slowdown"] = json_number(fit.heldout_slowdowns[row]);
    j["fold"] = fit.heldout_detail.fold_of[row];
    j["picked"] = c.source == ChoiceSource::none ? std::string() : ts.config_ids[c.config];
    j["picked_from"] = to_string(c.source);
    j["best"] = ts.config_ids[best_config_of(ts, row)];
    out.push_back(std::move(j));
  }
  return out;
}

// The held-out slowdowns summarised per size class of bytes moved: the small (< 1 MB) and large
// (>= 256 MB) classes of issue 6's goals and the range between. Where the loss sits tells what to
// work on (a noise floor on small shapes, kernels or the tree on the rest).
nlohmann::ordered_json heldout_by_size(const FitResult& fit, const TrainingSet& ts) {
  struct SizeClass {
    const char* name;
    double lo, hi;
  };
  constexpr double kMB = 1e6;
  const SizeClass classes[] = {{"< 1 MB", 0, kMB},
                               {"1 MB - 256 MB", kMB, 256 * kMB},
                               {">= 256 MB", 256 * kMB, std::numeric_limits<double>::infinity()}};
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const SizeClass& c : classes) {
    std::vector<double> slowdowns;
    for (std::size_t row = 0; row < ts.num_shapes(); ++row) {
      if (ts.bytes_moved[row] >= c.lo && ts.bytes_moved[row] < c.hi) slowdowns.push_back(fit.heldout_slowdowns[row]);
    }
    nlohmann::ordered_json j;
    j["bytes_moved"] = c.name;
    j["shapes"] = slowdowns.size();
    if (!slowdowns.empty()) j.update(to_json(summarize_slowdowns(std::move(slowdowns))));
    out.push_back(j);
  }
  return out;
}

// Mean, min and max over the fold draws of each held-out statistic.
nlohmann::ordered_json repeated_json(const std::vector<SlowdownSummary>& repeats) {
  nlohmann::ordered_json rep;
  rep["repeats"] = repeats.size();
  auto spread = [&](double SlowdownSummary::*field) {
    double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const SlowdownSummary& s : repeats) {
      sum += s.*field;
      lo = std::min(lo, s.*field);
      hi = std::max(hi, s.*field);
    }
    return nlohmann::ordered_json{{"mean", json_number(sum / repeats.size())},
                                  {"min", json_number(lo)},
                                  {"max", json_number(hi)}};
  };
  rep["geomean_slowdown"] = spread(&SlowdownSummary::geomean);
  rep["p95_slowdown"] = spread(&SlowdownSummary::p95);
  rep["max_slowdown"] = spread(&SlowdownSummary::max);
  return rep;
}

}  // namespace

FitResult fit_heuristic(const TrainingSet& ts, const FitOptions& options) {
  FitResult fit;
  const std::vector<std::size_t> rows = all_rows(ts);
  auto cv_of_draw = [&](uint64_t draw) {
    CrossValidationOptions cv = options.cv;
    cv.fold_salt = draw;
    return cv;
  };
  auto picks_of = [](const HeldOut& h) {
    std::vector<std::optional<uint32_t>> picks;
    for (const Choice& c : h.choices) picks.push_back(picked(c));
    return picks;
  };
  fit.draw = options.first_draw;
  fit.forest = options.forest;
  const bool with_forest = options.forest.trees > 0;
  // The forest on the tree's fold draws, its config subset of the size the tree's inner
  // cross-validation chose on the same training folds.
  auto forest_heldout = [&](uint64_t draw, const HeldOut& tree_heldout) {
    std::vector<std::size_t> sizes;
    for (const HyperParams& p : tree_heldout.per_fold) sizes.push_back(p.max_configs);
    return heldout_forest_choices(ts, cv_of_draw(draw), options.forest, sizes);
  };
  const HeldOut tree_detail = heldout_choices(ts, cv_of_draw(fit.draw));
  HeldOut forest_detail;
  fit.heldout_tree = summarize_picks(ts, picks_of(tree_detail));
  fit.heldout_tree_repeats.push_back(fit.heldout_tree);
  if (with_forest) {
    forest_detail = forest_heldout(fit.draw, tree_detail);
    fit.heldout_forest = summarize_picks(ts, picks_of(forest_detail));
    fit.heldout_forest_repeats.push_back(fit.heldout_forest);
  }
  for (std::size_t r = 1; r < options.repeats; ++r) {
    const HeldOut draw_heldout = heldout_choices(ts, cv_of_draw(fit.draw + r));
    fit.heldout_tree_repeats.push_back(summarize_picks(ts, picks_of(draw_heldout)));
    if (with_forest)
      fit.heldout_forest_repeats.push_back(summarize_picks(ts, picks_of(forest_heldout(fit.draw + r, draw_heldout))));
  }
  // The model shipped: the forest only where it holds out better than the tree by the margin, on
  // the canonical fold draw 0 whatever --draw and --repeats say (so `emit`, which scores draw 0,
  // and every `fit` agree on the model).
  if (with_forest && options.model == ModelChoice::best) {
    double tree_g = fit.heldout_tree.geomean, forest_g = fit.heldout_forest.geomean;
    if (fit.draw != 0) {
      const HeldOut tree0 = heldout_choices(ts, cv_of_draw(0));
      tree_g = summarize_picks(ts, picks_of(tree0)).geomean;
      forest_g = summarize_picks(ts, picks_of(forest_heldout(0, tree0))).geomean;
    }
    fit.shipped_forest = forest_g <= tree_g * kForestMargin;
  }

  fit.params = choose_hyper_params(ts, rows, options.cv);
  if (fit.shipped_forest) {
    fit.model = forest_heuristic(
        fit_forest(ts, rows, forest_config_columns(ts, rows, options.forest.configs, options.cv.subset, fit.params.max_configs),
                   options.forest),
        ts, rows);
    fit.heldout_detail = std::move(forest_detail);
    fit.heldout_detail.per_fold = tree_detail.per_fold;  // the subset sizes the forest's folds used
    fit.heldout_repeats = fit.heldout_forest_repeats;
  } else {
    fit.model = fit_on(ts, rows, fit.params, options.cv.subset, options.cv.criterion);
    fit.heldout_detail = tree_detail;
    fit.heldout_repeats = fit.heldout_tree_repeats;
  }
  fit.heldout = summarize_picks(ts, picks_of(fit.heldout_detail), &fit.heldout_slowdowns);
  std::vector<double> fully_measured;
  for (const std::size_t row : rows) {
    bool all = true;
    for (std::size_t c = 0; c < ts.num_configs() && all; ++c)
      all = ts.kind_at(row, c) != CellKind::unmeasured;
    if (all) fully_measured.push_back(fit.heldout_slowdowns[row]);
  }
  fit.heldout_fully_measured = summarize_slowdowns(std::move(fully_measured));
  std::vector<std::optional<uint32_t>> training;
  for (const std::size_t row : rows) training.push_back(picked(route(fit.model, ts, row)));
  fit.training = summarize_picks(ts, training);

  fit.best_single_config = best_single_config(ts);
  fit.best_single = summarize_single(ts, fit.best_single_config);
  fit.default_config = summarize_single(ts, ts.default_config);
  return fit;
}

nlohmann::ordered_json fit_report_json(const FitResult& fit, const TrainingSet& ts,
                                       const std::string& arch, std::size_t worst) {
  nlohmann::ordered_json j;
  j["kernel"] = ts.kernel;
  j["arch"] = arch;
  j["num_configs"] = fit.model.configs.size();
  j["tree_depth"] = std::max(fit.model.depth(), 0);
  j["model"] = fit.shipped_forest ? "forest" : "tree";
  if (fit.shipped_forest) j["forest_trees"] = fit.model.roots.size();
  j["heldout"] = to_json(fit.heldout);
  j["heldout"]["draw"] = fit.draw;
  j["heldout_fully_measured"] = to_json(fit.heldout_fully_measured);
  j["heldout_fully_measured"]["shapes"] = fit.heldout_fully_measured.shapes;
  j["best_single_config"] = to_json(fit.best_single);
  j["best_single_config"].update(config_ref(ts, fit.best_single_config));
  j["default_config"] = to_json(fit.default_config);
  j["default_config"].update(config_ref(ts, ts.default_config));
  j["training"] = to_json(fit.training);
  j["shapes"] = ts.num_shapes();
  j["shapes_without_passing_config"] = ts.dropped_shapes;
  j["folds"] = fit.heldout_detail.per_fold.size();
  j["min_leaf"] = fit.params.min_leaf;
  j["routed_heads"] = fit.params.routed_heads;
  j["max_depth"] = fit.params.max_depth;
  nlohmann::ordered_json configs = nlohmann::ordered_json::array();
  for (const uint32_t c : fit.model.configs) configs.push_back(ts.config_ids[c]);
  j["configs"] = configs;
  j["heldout_worst"] = worst_heldout(fit, ts, worst);
  if (ts.bytes_moved.size() == ts.num_shapes()) j["heldout_by_size"] = heldout_by_size(fit, ts);
  if (fit.heldout_repeats.size() > 1) j["heldout_repeated"] = repeated_json(fit.heldout_repeats);
  // Both models' held-out scores on the same draws, whichever shipped (`heldout` above).
  nlohmann::ordered_json tree = to_json(fit.heldout_tree);
  tree["draw"] = fit.draw;
  j["heldout_tree"] = tree;
  if (fit.heldout_tree_repeats.size() > 1) j["heldout_tree_repeated"] = repeated_json(fit.heldout_tree_repeats);
  if (!fit.heldout_forest_repeats.empty()) {
    nlohmann::ordered_json forest = to_json(fit.heldout_forest);
    forest["draw"] = fit.draw;
    forest["trees"] = fit.forest.trees;
    forest["max_depth"] = fit.forest.max_depth;
    forest["min_leaf"] = fit.forest.min_leaf;
    forest["configs"] = takes_every_config(ts, fit.forest.configs) ? "all" : "subset";
    forest["clip"] = fit.forest.clip;
    j["heldout_forest"] = forest;
    if (fit.heldout_forest_repeats.size() > 1)
      j["heldout_forest_repeated"] = repeated_json(fit.heldout_forest_repeats);
  }
  return j;
}

nlohmann::ordered_json test_set_json(const FitResult& fit, const TrainingSet& train,
                                     const TrainingSet& test, std::size_t worst) {
  if (test.kernel != train.kernel)
    throw InvalidArgument("the test set holds kernel '" + test.kernel + "', not '" + train.kernel +
                          "'");
  if (test.config_ids != train.config_ids)
    throw InvalidArgument("the test set's config space (" + std::to_string(test.num_configs()) +
                          " configs) differs from the training database's (" +
                          std::to_string(train.num_configs()) + "): measured with another build");
  if (test.feature_names != train.feature_names)
    throw InvalidArgument("the test set's features differ from the training database's");
  std::vector<std::optional<uint32_t>> picks;
  for (std::size_t row = 0; row < test.num_shapes(); ++row)
    picks.push_back(picked(route(fit.model, test, row)));
  std::vector<double> slowdowns;
  nlohmann::ordered_json j;
  j["shapes"] = test.num_shapes();
  j["shapes_without_passing_config"] = test.dropped_shapes;
  j["heuristic"] = to_json(summarize_picks(test, picks, &slowdowns));
  j["best_single_config"] = to_json(summarize_single(test, fit.best_single_config));
  j["best_single_config"].update(config_ref(test, fit.best_single_config));
  j["default_config"] = to_json(summarize_single(test, test.default_config));
  j["default_config"].update(config_ref(test, test.default_config));
  nlohmann::ordered_json w = nlohmann::ordered_json::array();
  for (const std::size_t row : slowest_rows(slowdowns, worst)) {
    w.push_back({{"shape", test.shape_keys[row]},
                 {"slowdown", json_number(slowdowns[row])},
                 {"picked", picks[row] ? test.config_ids[*picks[row]] : std::string()},
                 {"best", test.config_ids[best_config_of(test, row)]}});
  }
  j["worst"] = w;
  return j;
}

}  // namespace aotune::heuristics
