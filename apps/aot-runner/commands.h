// Each aot-runner subcommand lives in its own cmd_<name>.cpp and registers itself on the app here.
// A command's callback throws for errors; main() prints them and sets the exit code: tuner::NoGpu -> 3,
// InvalidArgument -> 2, any other aotune::Error -> 1, anything else -> 4; tuner::Interrupted (a
// sweep stopped by a signal) -> 128 + the signal.
#pragma once

#include <CLI/CLI.hpp>

namespace aotune::tuner {
struct TimingProtocol;
}

namespace aotune::cli {

// Exit codes shared by every command (documented in `aot-runner --help` and docs/USAGE.md).
enum ExitCode : int {
  kOk = 0,
  kFailure = 1,         // the command ran and found a problem (verify failed, a check failed)
  kUsage = 2,           // bad command line or bad input file
  kNoGpu = 3,           // the command needs a GPU and none is usable
  kInternal = 4,        // unexpected error (a bug: please report it)
  kSignalBase = 128,    // + the signal that stopped a sweep (130 for Ctrl-C), as a shell reports it
};

void register_devices(CLI::App& app);
void register_list(CLI::App& app);
void register_tune(CLI::App& app);
void register_merge(CLI::App& app);
void register_fit(CLI::App& app);
void register_emit(CLI::App& app);
void register_explain(CLI::App& app);
void register_verify(CLI::App& app);
void register_run(CLI::App& app);
void register_bench(CLI::App& app);
void register_refresh_features(CLI::App& app);

// --near-tie and --tie-candidates (TimingProtocol::near_tie, ::max_tie_candidates), shared by
// `tune` and `bench` (cmd_tune.cpp); check_tie_options throws InvalidArgument naming a bad value.
void add_tie_options(CLI::App& cmd, tuner::TimingProtocol& protocol);
void check_tie_options(const tuner::TimingProtocol& protocol);

}  // namespace aotune::cli
