#include "dispatch/src/library_log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>

namespace aotune::dispatch {

namespace {

constexpr const char* kName = "aotune";

std::shared_ptr<spdlog::logger> make_logger() {
  if (auto existing = spdlog::get(kName)) return existing;
  try {
    return spdlog::stderr_color_mt(kName);
  } catch (const spdlog::spdlog_ex&) {
    return spdlog::get(kName);  // another thread registered it first
  }
}

}  // namespace

spdlog::logger& library_log() {
  static const std::shared_ptr<spdlog::logger> logger = make_logger();
  return *logger;
}

}  // namespace aotune::dispatch
