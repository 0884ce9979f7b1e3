// aot-runner: the one CLI over aotune (devices, list, tune, merge, fit, emit, verify, explain, run,
// bench, refresh-features). Commands throw; this file maps exception types to the documented exit codes.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "aotune/aotune_c.h"
#include "apps/aot-runner/commands.h"
#include "kernels/common/errors.h"
#include "tuner/device_setup.h"
#include "tuner/interrupt.h"
#include "tuner/progress.h"

namespace {

constexpr const char* kFooter = R"(Exit codes: 0 ok, 1 check failed, 2 bad usage or input, 3 no GPU, 4 internal error,
128 + signal when Ctrl-C (130), SIGTERM (143) or SIGHUP (129) stopped a sweep (tune --resume continues).
Logs go to stderr; stdout holds only a command's output (so --json output parses).
Run 'aot-runner <command> --help' for a command's options and an example; docs/USAGE.md for workflows.)";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aot-runner: ahead-of-time autotuning and heuristic generation for CUDA kernels"};
  app.footer(kFooter);
  app.require_subcommand(1);
  // The version of the dispatch library built alongside (aotune_c.h) and the CUDA runtime it was
  // compiled against, for bug reports and for telling two installs apart.
  app.set_version_flag("--version", fmt::format("aot-runner {}.{}.{} (CUDA runtime {}.{})",
                                                AOTUNE_VERSION_MAJOR, AOTUNE_VERSION_MINOR,
                                                AOTUNE_VERSION_PATCH, CUDART_VERSION / 1000,
                                                CUDART_VERSION % 1000 / 10));
  int verbosity = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbosity, "More log output (-vv for trace)");
  app.add_flag("-q,--quiet", quiet, "Only warnings and errors");
  app.parse_complete_callback([&] {
    spdlog::set_level(quiet ? spdlog::level::warn
                            : verbosity >= 2 ? spdlog::level::trace
                            : verbosity == 1 ? spdlog::level::debug
                                             : spdlog::level::info);
  });
  // Before any command logs: stdout is for output only.
  aotune::tuner::route_logs_to_stderr();
  spdlog::set_pattern("%^[%l]%$ %v");

  aotune::cli::register_devices(app);
  aotune::cli::register_list(app);
  aotune::cli::register_tune(app);
  aotune::cli::register_merge(app);
  aotune::cli::register_fit(app);
  aotune::cli::register_emit(app);
  aotune::cli::register_explain(app);
  aotune::cli::register_verify(app);
  aotune::cli::register_run(app);
  aotune::cli::register_bench(app);
  aotune::cli::register_refresh_features(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? aotune::cli::kOk : aotune::cli::kUsage;
  } catch (const aotune::tuner::Interrupted& e) {
    spdlog::warn("{}", e.what());
    return aotune::cli::kSignalBase + e.signal();
  } catch (const aotune::tuner::NoGpu& e) {
    spdlog::error("{}", e.what());
    return aotune::cli::kNoGpu;
  } catch (const aotune::InvalidArgument& e) {
    spdlog::error("{}", e.what());
    return aotune::cli::kUsage;
  } catch (const aotune::CudaError& e) {
    spdlog::error("{}", e.what());
    return aotune::cli::kFailure;
  } catch (const aotune::Error& e) {
    spdlog::error("{}", e.what());
    return aotune::cli::kFailure;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the system refuses (too long, not permitted, a file where a folder must be): the
    // input's fault, not aotune's, so the usage code with the path and the system's reason.
    const std::string second = e.path2().empty() ? "" : " and " + e.path2().string();
    spdlog::error("{}{}: {}", e.path1().string(), second, e.code().message());
    return aotune::cli::kUsage;
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return aotune::cli::kInternal;
  }
  return aotune::cli::kOk;
}
