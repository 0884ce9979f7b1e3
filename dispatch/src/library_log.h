// The dispatch library's logger: "aotune", on stderr. A library must not write to its caller's
// stdout (spdlog's default logger does), and its own named logger leaves an application's default
// logger alone. Registered with spdlog, so an application that links the library statically
// (aot-runner) sets its level and pattern with spdlog::set_level / set_pattern like any other.
#pragma once

#include <spdlog/logger.h>

namespace aotune::dispatch {

spdlog::logger& library_log();

}  // namespace aotune::dispatch
