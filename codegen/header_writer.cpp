#include "codegen/header_writer.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <string>

#include "codegen/config_bindings.h"
#include "heuristics/fit.h"
#include "heuristics/leaf_cost_text.h"
#include "kernels/common/errors.h"

namespace aotune::codegen {

namespace {

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

void banner_for(const KernelEntry& k, const std::string& arch, std::string& out) {
  if (!k.tuned()) {
    out += fmt::format(
        "// {}: NOT TUNED: {}.\n//   The tables are empty: dispatch runs the default config {}.\n",
        k.kernel, k.note, k.default_config_id);
    if (k.database) {
      out += fmt::format("//   database {} sha256 {}\n", k.database->path, k.database->sha256);
    }
    return;
  }
  const DatabaseIdentity& db = *k.database;
  const FitScores& s = *k.scores;
  out += fmt::format("// {}: tuned on {}{} (cc {}, {} SMs), {} shapes\n", k.kernel, db.device,
                     db.simulated ? " [SIMULATED, not real tuning]" : "", db.compute_capability,
                     db.sm_count, db.shapes);
  out += fmt::format("//   database {}\n//   sha256 {}\n//   kernel source {}\n", db.path,
                     db.sha256, db.source_hash);
  out += fmt::format(
      "//   held-out slowdown vs per-shape best ({}-fold CV): geomean {:.4f}, p95 {:.4f}, max "
      "{:.4f}\n",
      s.folds, s.heldout.geomean, s.heldout.p95, s.heldout.max);
  if (s.heldout.unmeasured > 0) {
    out += fmt::format(
        "//   ({} held-out picks were configs the sweep did not time there: slowdown imputed)\n",
        s.heldout.unmeasured);
  }
  out += fmt::format("//   best single config {}: geomean {:.4f}\n", s.best_single_id,
                     s.best_single_geomean);
  out += fmt::format("//   default config {}: geomean {:.4f}\n", s.default_id, s.default_geomean);
  if (k.model.is_forest()) {
    out += fmt::format(
        "//   {} configs, a forest of {} randomised trees (depth <= {}): held-out geomean {:.4f} "
        "against {:.4f} for one tree\n",
        k.config_ids.size(), k.model.roots.size(), k.model.depth(), s.forest_geomean, s.tree_geomean);
  } else {
    out += fmt::format(
        "//   {} configs, tree depth {} (max depth {} and min leaf {} from cross-validation)\n",
        k.config_ids.size(), k.model.depth(), s.max_depth, s.min_leaf);
    if (s.forest_geomean > 0) {
      out += fmt::format(
          "//   (a forest held out at {:.4f}: not {:g} % better, so the tree ships)\n", s.forest_geomean,
          100.0 * (1.0 - heuristics::kForestMargin));
    }
  }
  (void)arch;
}

// `prefix` followed by a braced list of quoted strings: one line when it fits in 100 columns,
// else one item per line.
std::string string_array(const std::string& prefix, const std::vector<std::string>& items) {
  std::string compact;
  for (std::size_t i = 0; i < items.size(); ++i) compact += (i ? ", " : "") + quoted(items[i]);
  if (prefix.size() + compact.size() + 3 <= 100) return prefix + "{" + compact + "};\n";
  std::string out = prefix + "{\n";
  for (const std::string& item : items) out += "      " + quoted(item) + ",\n";
  return out + "  };\n";
}

std::string leaf_comment(const KernelEntry& k, const heuristics::TreeNode& n) {
  std::string ids;
  for (int32_t r = 0; r < n.right; ++r) {
    ids +=
        (r ? ", " : "") + k.config_ids[k.model.leaf_configs[static_cast<std::size_t>(n.left + r)]];
  }
  return "leaf: " + ids;
}

void kernel_struct(const KernelEntry& k, std::string& out) {
  const ConfigBinding& binding = config_binding(k.kernel);
  out += fmt::format("struct {} {{\n", k.kernel);
  out += fmt::format("  static constexpr std::string_view kernel = \"{}\";\n", k.kernel);
  out += string_array(fmt::format("  static constexpr std::array<std::string_view, {}> features = ",
                                  k.features.size()),
                      k.features);
  out += "  // The configs the tree may pick; the comment is each one's id.\n";
  out += fmt::format("  static constexpr std::array<{}, {}> configs = {}", binding.type,
                     k.config_ids.size(), k.config_ids.empty() ? "{};\n" : "{{\n");
  for (std::size_t i = 0; i < k.config_ids.size(); ++i) {
    out += fmt::format("      {},  // {}: {}\n", config_aggregate(binding, k.config_json[i]), i,
                       k.config_ids[i]);
  }
  if (!k.config_ids.empty()) out += "  }};\n";
  out +=
      string_array(fmt::format("  static constexpr std::array<std::string_view, {}> config_ids = ",
                               k.config_ids.size()),
                   k.config_ids);
  out +=
      "  // Pre-order {feature, left, right, threshold}: go left when features[feature] < "
      "threshold.\n";
  if (k.model.is_forest()) {
    out += "  // A forest: tree t starts at roots[t], its child indices relative to that root; a leaf\n";
    out += "  // (feature -1) holds the configs' predicted costs at leaf_values[left .. left + right),\n";
    out += "  // summed over the trees, cheapest first (16-bit, heuristics/tree_node.h leaf_cost()).\n";
  } else {
    out += "  // A leaf (feature -1) ranks leaf_configs[left .. left + right), best first.\n";
  }
  out += fmt::format("  static constexpr std::array<aotune::heuristics::TreeNode, {}> tree = {}",
                     k.model.nodes.size(), k.model.nodes.empty() ? "{};\n" : "{{\n");
  std::size_t next_tree = 0;
  for (std::size_t i = 0; i < k.model.nodes.size(); ++i) {
    const heuristics::TreeNode& n = k.model.nodes[i];
    if (k.model.is_forest()) {
      // A forest's tens of thousands of nodes go without a comment each (`aot-runner explain`
      // prints a shape's path through every tree); each tree's first node names the tree.
      std::string comment;
      if (next_tree < k.model.roots.size() && static_cast<std::size_t>(k.model.roots[next_tree]) == i)
        comment = fmt::format("  // tree {}", next_tree++);
      out += fmt::format("      {{{}, {}, {}, {}}},{}\n", n.feature, n.left, n.right, double_literal(n.threshold),
                         comment);
      continue;
    }
    const std::string comment =
        heuristics::is_leaf(n)
            ? leaf_comment(k, n)
            : fmt::format("{} < {:.6g} ? {} : {}", k.features[static_cast<std::size_t>(n.feature)],
                          n.threshold, n.left, n.right);
    out += fmt::format("      {{{}, {}, {}, {}}},  // {}: {}\n", n.feature, n.left, n.right,
                       double_literal(n.threshold), i, comment);
  }
  if (!k.model.nodes.empty()) out += "  }};\n";
  auto u16_array = [](const std::vector<uint16_t>& v) {
    std::string s = "{";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "}";
  };
  out += fmt::format("  static constexpr std::array<std::uint16_t, {}> leaf_configs = {};\n",
                     k.model.leaf_configs.size(), u16_array(k.model.leaf_configs));
  out +=
      "  // Every config above, best over all shapes first: tried when a leaf's list has no legal "
      "config.\n";
  out += fmt::format("  static constexpr std::array<std::uint16_t, {}> fallback = {};\n",
                     k.model.fallback.size(), u16_array(k.model.fallback));
  out += "  // Forest only (empty for one tree): each tree's first node, and the leaves' 16-bit costs\n";
  out += "  // (heuristics/tree_node.h leaf_cost()), three characters each (heuristics/leaf_cost_text.h),\n";
  out += "  // a leaf's costs per line.\n";
  std::string roots = "{";
  for (std::size_t i = 0; i < k.model.roots.size(); ++i)
    fmt::format_to(std::back_inserter(roots), "{}{}", i ? ", " : "", k.model.roots[i]);
  out += fmt::format("  static constexpr std::array<std::int32_t, {}> roots = {}}};\n", k.model.roots.size(), roots);
  out += fmt::format("  static constexpr std::size_t num_leaf_values = {};\n", k.model.leaf_values.size());
  // A char array, not a std::string_view: that would measure the literal with a constexpr strlen,
  // past GCC's constexpr loop limit for a forest's megabytes.
  out += "  static constexpr char leaf_values[] =";
  if (k.model.leaf_values.empty()) out += " \"\"";
  const std::size_t per_line = std::max<std::size_t>(k.config_ids.size(), 1);
  for (std::size_t i = 0; i < k.model.leaf_values.size(); ++i) {
    if (i % per_line == 0) out += i ? "\"\n      \"" : "\n      \"";
    out += heuristics::encode_leaf_cost(k.model.leaf_values[i]);
  }
  out += k.model.leaf_values.empty() ? ";\n" : "\";\n";
  out += "};\n\n";
}

}  // namespace

std::string double_literal(double v) {
  if (!std::isfinite(v)) throw InvalidArgument(fmt::format("tree threshold {} is not finite", v));
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string render_header(const ArchHeuristics& h) {
  std::string out;
  out += fmt::format(
      "// heuristic_{}.h: which config each aotune kernel runs on {} GPUs, per problem shape.\n",
      h.arch, h.arch);
  out += fmt::format("// GENERATED by `{}`; do not edit. Rerun that command after re-tuning\n",
                     emit_command(h.arch));
  out += fmt::format(
      "// (configs/{}/*.json); `aot-runner verify` fails while this file is stale.\n//\n", h.arch);
  for (const KernelEntry& k : h.kernels) banner_for(k, h.arch, out);
  // Generated text is data compared byte for byte by `verify`: formatters keep out.
  out +=
      "// clang-format off\n#pragma once\n\n#include <array>\n#include <cstdint>\n#include "
      "<string_view>\n\n";
  std::set<std::string> headers = {"heuristics/tree_node.h"};
  for (const KernelEntry& k : h.kernels)
    headers.insert(std::string(config_binding(k.kernel).header));
  for (const std::string& inc : headers) out += fmt::format("#include \"{}\"\n", inc);
  out += fmt::format("\nnamespace aotune::generated::{} {{\n\n", h.arch);
  for (const KernelEntry& k : h.kernels) kernel_struct(k, out);
  std::string list;
  for (const KernelEntry& k : h.kernels) list += (list.empty() ? "" : ", ") + k.kernel;
  out += fmt::format("using kernels = aotune::heuristics::TableList<{}>;\n\n", list);
  out += fmt::format("}}  // namespace aotune::generated::{}\n// clang-format on\n", h.arch);
  return out;
}

std::string render_arch_index(const std::vector<std::string>& archs) {
  std::string out =
      "// heuristic_archs.h: the generated heuristic headers, one per architecture in "
      "configs/manifest.json.\n"
      "// GENERATED by `aot-runner emit`; do not edit.\n"
      "#pragma once\n\n";
  for (const std::string& a : archs)
    out += fmt::format("#include \"heuristics/generated/heuristic_{}.h\"\n", a);
  std::string x;
  for (const std::string& a : archs) x += fmt::format(" X({})", a);
  out += "\n// X(arch) for every architecture above: the dispatch library's compiled heuristics.\n";
  out += fmt::format("#define AOTUNE_GENERATED_ARCHS(X){}\n", x);
  return out;
}

}  // namespace aotune::codegen
