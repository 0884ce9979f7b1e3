// The measurement protocol's parameters (BENCH.md) and the statistics of a set of repetitions.
// The parameters are recorded in every results database: two databases measured under different
// protocols are never merged or resumed into one.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "tuner/cell.h"

namespace aotune::tuner {

struct TimingProtocol {
  int warmup = 3;          // untimed launches before the repetitions
  double target_ms = 2.0;  // repetitions are sized so their kernel time adds up to this
  int min_reps = 5;
  int max_reps = 100;
  int64_t l2_flush_bytes = 0;  // written between repetitions, outside the timed region (2x L2)
  double near_tie = 0.02;      // configs this close to the best are re-timed interleaved
  int max_tie_candidates = 4;  // at most this many, the best included
  // A config whose first two flushed launches are both over loser_factor x the shape's fastest
  // median so far gets loser_reps repetitions in all (those included) and no more warm-up (0: off)
  double loser_factor = 3.0;
  int loser_reps = 2;
  // ... and only once that fastest median is at least loser_min_us: small shapes are cheap to time
  // in full, and it is their single launches that the next shape's input upload can inflate
  // several-fold (a 5 us config once read 47 and 111 us and was cut as a loser).
  double loser_min_us = 50.0;
  // A timed cell whose median is over (1 + unsteady) x its p10 was slowed for most of its
  // repetitions by something outside the kernel (the same launch does not vary so on its own):
  // it is timed again, interleaved with the shape's other such cells (at most
  // max_unsteady_retimes, the most unsteady first), once nothing else runs, and keeps the lower
  // median. Session 45's sweep had 64 such cells at 1.25, 4.8-5 us kernels reading 17-21 us with
  // their p10 at the kernel's time. 0: off.
  double unsteady = 0.25;
  int max_unsteady_retimes = 8;
  bool simulated = false;  // times come from the cost model, not from events
  // Build the next shape's inputs on a second thread while this one is timed. Off by default since
  // session 47: the build ends in cudaMalloc and a pageable cudaMemcpy, and a launch queued on the
  // timing thread meanwhile waits for that copy inside its events (a 4.6 us kernel read about
  // 1 ms at p10 and 120-150 ms at the median beside a looping 1 GB upload on an H200:
  // bench/upload_interference.cu). It slowed whole cells 2.3-4.3x, p10 too, which the unsteady
  // re-timing cannot see. Without it a 606-shape jagged grid waited 39 s for inputs instead of
  // about 15 (3m27s in all). The fix that keeps the overlap is to build the host data apart from
  // its upload, which is kernels/common's code (source-hashed: a re-sweep of every kernel).
  bool overlap_inputs = false;
};

// The protocol block's "inputs" field, by TimingProtocol::overlap_inputs.
inline constexpr const char* kInputsOverlapped =
    "the next shape's inputs are built on a second thread while this one is timed";
inline constexpr const char* kInputsBeforeEachShape =
    "built before each shape, nothing else running";

struct DeviceInfo;
// The protocol on a device: the flush covers twice its L2 (rounded up to a MiB).
TimingProtocol for_device(TimingProtocol p, const DeviceInfo& device);

// Repetitions for a config whose single launch takes about `estimate_us`.
int reps_for(double estimate_us, const TimingProtocol& p);

// Median, p10 and p90 (nearest rank) of the samples, in microseconds. Requires samples.
Timing summarize(std::vector<double> samples_us);

// The protocol as recorded in a database, with the effort level of the search.
nlohmann::ordered_json to_json(const TimingProtocol& p, const std::string& effort);

}  // namespace aotune::tuner
