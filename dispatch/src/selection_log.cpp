#include "dispatch/src/selection_log.h"

#include <fmt/core.h>

#include <atomic>
#include <cstdlib>
#include <utility>

#include "aotune/arch_fallback.h"
#include "dispatch/src/library_log.h"

namespace aotune::dispatch {

namespace {

std::atomic<SelectionLog*> installed{nullptr};
std::atomic<uint64_t> next_log_id{1};

const char* setting() { return std::getenv("AOTUNE_LOG_SELECTIONS"); }

// AOTUNE_LOG_SELECTIONS as the process has it when the library loads; a bad value is warned about
// here, once (the hot path never looks at the setting again).
bool setting_is_on() {
  const SelectionLog parsed(setting(), {});
  if (!parsed.warning().empty()) library_log().warn("{}", parsed.warning());
  return parsed.enabled();
}

}  // namespace

std::atomic<bool> selection_log_on{setting_is_on()};

SelectionLog::SelectionLog(const char* setting, Sink sink, std::size_t capacity)
    : id_(next_log_id.fetch_add(1, std::memory_order_relaxed)),
      sink_(std::move(sink)),
      capacity_(capacity) {
  const std::string_view v = setting == nullptr ? std::string_view() : std::string_view(setting);
  if (v == "1" || v == "true" || v == "on") {
    enabled_ = true;
  } else if (!(v.empty() || v == "0" || v == "false" || v == "off")) {
    warning_ = fmt::format(
        "aotune: AOTUNE_LOG_SELECTIONS='{}' is not one of 1, true, on (log each distinct "
        "selection once) or 0, false, off; selections are not logged",
        v);
  }
}

namespace {

// What makes a selection distinct, as raw bytes (no formatting: a model repeats its shapes, and
// the log is looked up on every call). Feature names are the kernel's, so their values suffice.
void selection_key(const LoggedSelection& s, std::string& key) {
  auto add = [&](const void* p, std::size_t n) { key.append(static_cast<const char*>(p), n); };
  key.clear();
  key.append(s.kernel).push_back('\0');
  key.append(s.config_id).push_back('\0');
  key.append(s.heuristic_source).push_back('\0');
  add(&s.device_arch, sizeof s.device_arch);
  add(&s.arch_used, sizeof s.arch_used);
  add(&s.source, sizeof s.source);
  add(&s.rank, sizeof s.rank);
  if (s.features != nullptr) {
    for (const auto& f : *s.features) add(&f.second, sizeof f.second);
  }
}

}  // namespace

void SelectionLog::record(const LoggedSelection& s) {
  // This thread's last selection is checked without the lock: a loop calling one shape costs a
  // key and a compare (PERF.md, Session 44).
  thread_local std::string key;
  thread_local std::string last;
  thread_local uint64_t last_log = 0;
  selection_key(s, key);
  if (last_log == id_ && key == last) return;
  std::string line;
  {
    const std::lock_guard lock(mutex_);
    if (full_) return;
    if (seen_.contains(key)) {
      last = key;
      last_log = id_;
      return;
    }
    if (seen_.size() >= capacity_) {
      full_ = true;
      line = fmt::format(
          "aotune: {} distinct selections logged (AOTUNE_LOG_SELECTIONS); later new ones are not",
          capacity_);
    } else {
      seen_.insert(key);
      last = key;
      last_log = id_;
      line = format_selection(s);
    }
  }
  sink_(line);
}

std::string format_selection(const LoggedSelection& s) {
  std::string line =
      fmt::format("aotune: {} on {} chose {} (", s.kernel, arch_name(s.device_arch), s.config_id);
  if (s.arch_used != 0) {
    line += fmt::format("{} heuristic, {}, {} rank {}", arch_name(s.arch_used), s.heuristic_source,
                        heuristics::to_string(s.source), s.rank);
  } else {
    line += fmt::format("no heuristic applies, {}", heuristics::to_string(s.source));
  }
  line += ") for";
  if (s.features != nullptr) {
    for (const auto& [name, value] : *s.features) line += fmt::format(" {}={}", name, value);
  }
  return line;
}

SelectionLog& process_selection_log() {
  if (SelectionLog* log = installed.load(std::memory_order_acquire)) return *log;
  static SelectionLog log(setting(),
                          [](const std::string& line) { library_log().info("{}", line); });
  return log;
}

void install_selection_log_for_testing(SelectionLog* log) {
  installed.store(log, std::memory_order_release);
  selection_log_on.store(log != nullptr ? log->enabled() : SelectionLog(setting(), {}).enabled(),
                         std::memory_order_relaxed);
}

}  // namespace aotune::dispatch
