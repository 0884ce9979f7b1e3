// `aot-runner explain`: which config a shape gets on an architecture, and why: the fallback chain,
// the tree path, the leaf's candidates and their legality. Reads the compiled heuristics plus any
// in $AOTUNE_HEURISTIC_DIR, exactly as the dispatch library does.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "aotune/arch_fallback.h"
#include "aotune/device.h"
#include "aotune/explain.h"
#include "apps/aot-runner/call_shape.h"
#include "apps/aot-runner/commands.h"
#include "apps/aot-runner/shape_arg.h"
#include "kernels/common/errors.h"
#include "kernels/common/registry.h"
#include "tuner/device_info.h"

namespace aotune::cli {

namespace {

// Candidates the text output lists at least (always every one up to the pick).
constexpr std::size_t kExplainCandidatesShown = 10;

struct ExplainArgs {
  std::string kernel;
  std::string shape;
  std::string arch;
  bool json = false;
};

}  // namespace

void register_explain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd =
      app.add_subcommand("explain", "Show which config a shape gets on an architecture, and why");
  cmd->footer(
      "Example: aot-runner explain --kernel jagged_sum --shape 'B=1024,M=256,len=64,dtype=bf16' "
      "--arch sm120 --json\n"
      "Shape keys are the kernel's shape-spec fields (as in configs/grids/<kernel>.json).\n"
      "A jagged call's exact sizes also work: give nnz (and max_len, the longest row, if the call\n"
      "passes it), e.g. --kernel jagged_sum --shape 'B=2048,M=256,nnz=3376000,max_len=200000,dtype=bf16'\n"
      "(jagged_dense_add: B, N, nnz, max_len); buffers are taken as 256-byte aligned.");
  cmd->add_option("--kernel", args->kernel, "Kernel name (see `aot-runner list`)")->required();
  cmd->add_option("--shape", args->shape, "key=value pairs, comma-separated")->required();
  cmd->add_option("--arch", args->arch,
                  "Architecture to explain for, e.g. sm90 (default: this machine's GPU)");
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->callback([args] {
    const TunableKernel& kernel = find_kernel(args->kernel);
    const nlohmann::json spec = parse_shape_pairs(args->shape);
    // Neither form's size key: name both forms, not only the grid shape's missing `len`.
    if (has_call_form(kernel) && spec.is_object() && !spec.contains("nnz") && !spec.contains("len")) {
      throw InvalidArgument(std::string(kernel.name()) + ": --shape '" + args->shape +
                            "' gives no row lengths: add nnz=<elements> (one call's exact sizes, with "
                            "max_len=<longest row> if the call passes it) or len=<mean row length> (a grid "
                            "shape, with dist, cap, seed)");
    }
    const ProblemInfo info = is_call_shape(spec) ? call_problem_info(kernel, spec) : kernel.describe(spec);
    int arch = 0;
    if (!args->arch.empty()) {
      arch = parse_arch_name(args->arch);
    } else if (tuner::cuda_device_count() > 0) {
      arch = dispatch::device_arch(dispatch::current_device());
    } else {
      throw InvalidArgument(
          "no GPU found to take the architecture from: pass --arch, e.g. --arch sm90");
    }
    // The heuristic the dispatch library asks (a jagged_mean call without feature counts takes
    // jagged_sum's); the same config space, row bound and default, so the walk is that kernel's.
    const std::string chooser = heuristic_kernel(kernel, spec);
    dispatch::Explanation e = dispatch::explain(*dispatch::current_store(), find_kernel(chooser), info, arch);
    e.kernel = std::string(kernel.name());
    const nlohmann::ordered_json j = dispatch::to_json(e, info.shape);
    if (args->json) {
      fmt::print("{}\n", j.dump(2));
      return;
    }
    if (e.heuristic_kernel != e.kernel)
      fmt::print("{} without feature counts does {}'s work: {}'s heuristic chooses\n", e.kernel, e.heuristic_kernel,
                 e.heuristic_kernel);
    fmt::print("{} on {}: fallback chain {} -> uses {}\n", e.kernel, arch_name(arch),
               j["fallback_chain"].dump(),
               e.arch_used ? arch_name(e.arch_used) + " (" + e.heuristic_source + ")"
                           : "no heuristic (default config)");
    const bool forest = !e.forest_leaves.empty();
    if (forest) {
      fmt::print("  a forest of {} trees (--json lists each tree's path); leaves {}\n", e.forest_leaves.size(),
                 fmt::join(e.forest_leaves, ", "));
    } else {
      for (const auto& s : e.tree_path) {
        fmt::print("  node {}: {} = {} {} {} -> {}\n", s.node, s.feature, s.value,
                   s.went_left ? "<" : ">=", s.threshold, s.went_left ? "left" : "right");
      }
    }
    // A forest ranks every config (58-78 of them): the text shows the ones tried up to the pick
    // and a few after it, --json all of them.
    const std::size_t shown = std::min(e.leaf_candidates.size(),
                                       std::max<std::size_t>(kExplainCandidatesShown, static_cast<std::size_t>(e.rank) + 1));
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& c = e.leaf_candidates[i];
      const std::string predicted =
          forest ? fmt::format(" predicted {:.3f}x the best", c.predicted_slowdown) : std::string();
      fmt::print("  candidate {}{}{}\n", c.id, predicted,
                 c.legal ? (c.reason.empty() ? "" : " (" + c.reason + ")") : " (illegal: " + c.reason + ")");
    }
    if (shown < e.leaf_candidates.size())
      fmt::print("  ... {} more candidates (--json lists them all)\n", e.leaf_candidates.size() - shown);
    fmt::print("config {} ({}, rank {})\n", e.config_id, heuristics::to_string(e.source), e.rank);
  });
}

}  // namespace aotune::cli
