#include "tuner/cell.h"

#include <cmath>

#include "kernels/common/errors.h"

namespace aotune::tuner {

std::string_view to_string(CellStatus s) {
  switch (s) {
    case CellStatus::ok:
      return "ok";
    case CellStatus::illegal:
      return "illegal";
    case CellStatus::failed:
      return "failed";
    case CellStatus::crashed:
      return "crashed";
    case CellStatus::skipped:
      return "skipped";
  }
  return "?";
}

CellStatus parse_cell_status(std::string_view name) {
  for (CellStatus s : {CellStatus::ok, CellStatus::illegal, CellStatus::failed, CellStatus::crashed,
                       CellStatus::skipped}) {
    if (to_string(s) == name) return s;
  }
  throw InvalidArgument("unknown cell status '" + std::string(name) +
                        "' (expected ok, illegal, failed, crashed or skipped)");
}

double round_us(double us) { return std::round(us * 1000.0) / 1000.0; }

nlohmann::ordered_json to_json(const Cell& c) {
  nlohmann::ordered_json j;
  j["status"] = to_string(c.status);
  if (c.ok()) {
    j["median_us"] = round_us(c.timing.median_us);
    j["p10_us"] = round_us(c.timing.p10_us);
    j["p90_us"] = round_us(c.timing.p90_us);
    j["reps"] = c.timing.reps;
  } else {
    j["reason"] = c.reason;
  }
  return j;
}

Cell cell_from_json(const nlohmann::ordered_json& j) {
  Cell c;
  c.status = parse_cell_status(j.at("status").get<std::string>());
  if (c.ok()) {
    c.timing.median_us = j.at("median_us").get<double>();
    c.timing.p10_us = j.at("p10_us").get<double>();
    c.timing.p90_us = j.at("p90_us").get<double>();
    c.timing.reps = j.at("reps").get<int>();
  } else {
    c.reason = j.at("reason").get<std::string>();
  }
  return c;
}

}  // namespace aotune::tuner
