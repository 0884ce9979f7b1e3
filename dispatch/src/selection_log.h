// What each call chose, for a user asking "which config did my model's calls get?" in a running
// process: with AOTUNE_LOG_SELECTIONS=1, every distinct selection (kernel, device architecture,
// features, config) is logged once, at info level, with the heuristic that chose it. Off by
// default; the hot path then reads one bool. `aot-runner explain` answers the same question for
// one shape by hand; this answers it for every shape a process meets, including from Python or any
// other FFI caller, without a rebuild.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "heuristics/tree_node.h"
#include "kernels/common/tunable_kernel.h"

namespace aotune::dispatch {

struct LoggedSelection {
  std::string_view
      kernel;  // the heuristic's kernel (a jagged_mean call without feature counts: jagged_sum)
  int device_arch = 0;  // the calling device's architecture
  const Features* features = nullptr;
  std::string_view config_id;
  heuristics::ChoiceSource source = heuristics::ChoiceSource::none;
  int32_t rank = 0;                   // position in the leaf's or forest's list
  int arch_used = 0;                  // the architecture whose heuristic chose; 0: none applied
  std::string_view heuristic_source;  // "compiled" or the override file
};

class SelectionLog {
 public:
  using Sink = std::function<void(const std::string&)>;
  // The most distinct selections logged; past it, one line says the rest are not. A process that
  // calls with ever-new shapes (a jagged batch's nnz changes every step) stays bounded.
  static constexpr std::size_t kDefaultCapacity = 1000;

  // `setting` is AOTUNE_LOG_SELECTIONS' value (null: unset). "1", "true", "on": log; unset, "",
  // "0", "false", "off": do not; anything else: do not, and `warning()` names the value.
  explicit SelectionLog(const char* setting, Sink sink, std::size_t capacity = kDefaultCapacity);

  bool enabled() const { return enabled_; }
  const std::string& warning() const { return warning_; }

  // Logs `s` through the sink unless this selection was logged already (thread-safe).
  void record(const LoggedSelection& s);

 private:
  uint64_t id_;  // never reused: a thread's memo of its last selection names the log it was for
  bool enabled_ = false;
  std::string warning_;
  Sink sink_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::set<std::string, std::less<>> seen_;
  bool full_ = false;
};

// The line for one selection, e.g. "aotune: jagged_sum on sm90 chose flat_scan.t256.v4 (sm90
// heuristic, compiled, leaf rank 0) for elem_bytes=4 B=1024 M=256 ...".
std::string format_selection(const LoggedSelection& s);

// Whether select_config should record: AOTUNE_LOG_SELECTIONS turned on, read when the library
// loads (or a test installed a log). One relaxed load on every call, so off costs nothing that
// shows (PERF.md, Session 44).
extern std::atomic<bool> selection_log_on;

// The process's log, from AOTUNE_LOG_SELECTIONS, writing through spdlog; or the one a test
// installed.
SelectionLog& process_selection_log();

// Makes `log` the process's log, and sets selection_log_on from it, until called again with null
// (tests: the environment is read once per process, and a test binary runs many tests in one).
void install_selection_log_for_testing(SelectionLog* log);

}  // namespace aotune::dispatch
