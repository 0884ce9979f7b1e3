#include "tuner/progress.h"

#include <fmt/core.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

namespace aotune::tuner {

Progress::Progress(std::string label, std::size_t total_shapes, std::size_t done_shapes,
                   double total_estimate_s)
    : label_(std::move(label)),
      total_(total_shapes),
      done_(done_shapes),
      estimate_left_s_(total_estimate_s) {}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::shape_done(const std::string& key, double estimate_s, const std::string& outcome) {
  ++done_;
  estimate_done_s_ += estimate_s;
  estimate_left_s_ = std::max(0.0, estimate_left_s_ - estimate_s);
  // Scale the model's estimate of what is left by how fast the model's estimates have come true.
  const double pace = estimate_done_s_ > 0 ? elapsed_seconds() / estimate_done_s_ : 1.0;
  const std::string shape = key.size() > 70 ? key.substr(0, 67) + "..." : key;
  spdlog::info("[{}] {}/{} ({:.0f}%) {}: {} | ETA {}", label_, done_, total_,
               total_ > 0 ? 100.0 * double(done_) / double(total_) : 100.0, shape, outcome,
               format_duration(estimate_left_s_ * pace));
}

std::string format_duration(double seconds) {
  const auto s = static_cast<long>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace aotune::tuner

namespace aotune::tuner {

void route_logs_to_stderr() {
  constexpr const char* kName = "aot-runner";
  if (spdlog::default_logger()->name() == kName) return;
  const auto level = spdlog::default_logger()->level();
  auto logger = spdlog::get(kName);
  if (!logger) logger = spdlog::stderr_color_mt(kName);
  logger->set_level(level);
  spdlog::set_default_logger(logger);
}

}  // namespace aotune::tuner
