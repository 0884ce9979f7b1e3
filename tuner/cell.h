// One (shape, config) entry of the timing matrix: a timing, or why there is none.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace aotune::tuner {

enum class CellStatus {
  ok,       // checked against the reference, then timed
  illegal,  // the kernel's supports() refused the config for this shape
  failed,   // launched but wrong (or an error the context survived): its time never counts
  crashed,  // killed the CUDA context or the worker process
  skipped,  // legal but not measured (search effort, or the shape could not be prepared)
};

std::string_view to_string(CellStatus s);
// Throws InvalidArgument for an unknown name.
CellStatus parse_cell_status(std::string_view name);

// Repetition statistics in microseconds.
struct Timing {
  double median_us = 0;
  double p10_us = 0;
  double p90_us = 0;
  int reps = 0;
};

struct Cell {
  CellStatus status = CellStatus::skipped;
  Timing timing;       // status ok only
  std::string reason;  // every other status

  static Cell measured(const Timing& t) { return {CellStatus::ok, t, {}}; }
  static Cell with(CellStatus s, std::string why) { return {s, {}, std::move(why)}; }
  bool ok() const { return status == CellStatus::ok; }
};

nlohmann::ordered_json to_json(const Cell& c);
// Throws InvalidArgument naming the missing or mistyped field.
Cell cell_from_json(const nlohmann::ordered_json& j);

// Microseconds rounded to the nanosecond: event timers resolve ~0.5 us, so more digits are noise
// that would only make files differ.
double round_us(double us);

}  // namespace aotune::tuner
