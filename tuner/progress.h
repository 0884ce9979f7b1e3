// The progress line of a worker: shapes done of total, the shape just measured, its winner, and an
// ETA from the estimated cost of what is left (so a few large shapes do not fool it).
#pragma once

#include <chrono>
#include <string>

namespace aotune::tuner {

class Progress {
 public:
  Progress(std::string label, std::size_t total_shapes, std::size_t done_shapes,
           double total_estimate_s);
  // Logs one line at info level.
  void shape_done(const std::string& key, double estimate_s, const std::string& outcome);
  double elapsed_seconds() const;

 private:
  std::string label_;
  std::size_t total_;
  std::size_t done_;
  double estimate_left_s_;
  double estimate_done_s_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Sends log lines to stderr (spdlog's default logger writes to stdout), keeping the level and
// pattern, so that stdout holds only a command's output (--json).
void route_logs_to_stderr();

// "42s", "3m05s", "1h02m".
std::string format_duration(double seconds);

}  // namespace aotune::tuner
