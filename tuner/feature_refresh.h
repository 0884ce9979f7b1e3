// Shape features stored in a results database against those the kernel's code computes now.
//
// A database records each shape's features (kernels/<k>/<k>_features.cpp) next to its timings, and
// the fitter and emit read them from there. Features never change a timing, so that file is outside
// the kernel source hash (cmake/SourceHash.cmake): a new or changed feature is a refresh of the
// stored features from each shape's spec, no GPU and no re-tuning, instead of a full re-sweep.
// `aot-runner verify` and `emit` refuse a database whose stored features are not the code's.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/common/tunable_kernel.h"
#include "tuner/results_database.h"

namespace aotune::tuner {

struct StaleFeatures {
  std::string shape_key;
  std::string detail;  // which feature differs and how, e.g. "'skew' is 2 in the database, 2.5 now"
};

// The shapes of `db` whose stored features (names, order or values) differ from
// kernel.describe(spec).features. Throws InvalidArgument when a stored spec no longer describes.
std::vector<StaleFeatures> find_stale_features(const TunableKernel& kernel, const ResultsDatabase& db);

// Rewrites every shape's features from its spec; returns how many shapes changed.
std::size_t refresh_features(const TunableKernel& kernel, ResultsDatabase& db);

// "N of M shapes of <path> store features that differ from what <kernel> computes now (first:
// shape <key>: <detail>)" for error messages; `stale` must not be empty.
std::string describe_stale_features(const std::vector<StaleFeatures>& stale, std::size_t shapes,
                                    const std::string& path, std::string_view kernel);

}  // namespace aotune::tuner
