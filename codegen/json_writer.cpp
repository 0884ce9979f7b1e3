#include "codegen/json_writer.h"

#include "heuristics/tree_node.h"
#include "tuner/json_text.h"

namespace aotune::codegen {

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json database_json(const DatabaseIdentity& db) {
  return {{"path", db.path},
          {"sha256", db.sha256},
          {"device", db.device},
          {"compute_capability", db.compute_capability},
          {"sm_count", db.sm_count},
          {"simulated", db.simulated},
          {"source_hash", db.source_hash},
          {"shapes", db.shapes}};
}

ordered_json scores_json(const FitScores& s) {
  return {
      {"heldout", heuristics::to_json(s.heldout)},
      {"best_single_config",
       {{"id", s.best_single_id},
        {"geomean_slowdown", heuristics::json_number(s.best_single_geomean)}}},
      {"default_config",
       {{"id", s.default_id}, {"geomean_slowdown", heuristics::json_number(s.default_geomean)}}},
      {"folds", s.folds},
      {"max_depth", s.max_depth},
      {"min_leaf", s.min_leaf},
      {"tree_geomean_slowdown", heuristics::json_number(s.tree_geomean)},
      {"forest_geomean_slowdown", heuristics::json_number(s.forest_geomean)}};
}

ordered_json kernel_json(const KernelEntry& k) {
  ordered_json j;
  j["kernel"] = k.kernel;
  j["tuned"] = k.tuned();
  j["note"] = k.note;
  j["default_config"] = k.default_config_id;
  j["database"] = k.database ? database_json(*k.database) : ordered_json(nullptr);
  j["scores"] = k.scores ? scores_json(*k.scores) : ordered_json(nullptr);
  j["features"] = k.features;
  ordered_json configs = ordered_json::array();
  for (std::size_t i = 0; i < k.config_ids.size(); ++i) {
    configs.push_back({{"id", k.config_ids[i]}, {"config", tuner::to_ordered(k.config_json[i])}});
  }
  j["configs"] = configs;
  ordered_json tree = ordered_json::array();
  for (const heuristics::TreeNode& n : k.model.nodes) {
    tree.push_back(
        {{"feature", n.feature}, {"left", n.left}, {"right", n.right}, {"threshold", n.threshold}});
  }
  j["tree"] = tree;
  j["leaf_configs"] = k.model.leaf_configs;
  j["fallback"] = k.model.fallback;
  // A forest (empty for one tree): tree roots in "tree", and the leaves' predicted costs.
  j["roots"] = k.model.roots;
  j["leaf_values"] = k.model.leaf_values;
  return j;
}

}  // namespace

ordered_json to_json(const ArchHeuristics& h) {
  ordered_json j;
  j["format"] = heuristics::kHeuristicFileFormat;
  j["arch"] = h.arch;
  j["generated_by"] = emit_command(h.arch);
  ordered_json kernels = ordered_json::array();
  for (const KernelEntry& k : h.kernels) kernels.push_back(kernel_json(k));
  j["kernels"] = kernels;
  return j;
}

std::string render_json(const ArchHeuristics& h) {
  return tuner::to_readable_json(to_json(h)) + "\n";
}

}  // namespace aotune::codegen
