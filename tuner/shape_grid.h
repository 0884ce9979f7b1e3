// Shape grids: configs/grids/<kernel>.json expands into the list of shapes a kernel is tuned on.
//
//   {"kernel": "jagged_sum",
//    "generators": [{"B": [1, 64], "M": [32, 256], "len": [8, 512], "dist": "uniform",
//                    "dtype": ["f32", "bf16"], "seed": 1, "min_bytes": 0, "max_bytes": 1e9}]}
//
// A generator is the cartesian product of its fields (arrays; a scalar is a one-value array),
// first field outermost. Reserved fields: seed (mixed into every shape's data seed), min_bytes /
// max_bytes (keep shapes whose bytes_moved lies in between), comment. Shapes equal after the
// kernel normalises them are kept once (first wins). Every shape gets a data seed derived from its
// normalised spec, so adding shapes never changes the others.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/common/tunable_kernel.h"

namespace aotune::tuner {

struct GridShape {
  int64_t index = 0;    // position in the expanded grid: shard slices and database order use it
  std::string key;      // canonical text of the normalised spec, unique within the grid
  nlohmann::json spec;  // normalised by the kernel's describe(), seed included
  ProblemInfo info;
};

struct ShapeGrid {
  std::string kernel;
  std::vector<GridShape> shapes;
  std::string digest;  // hash of every key in order: two databases of one grid share it
};

// "B=1024,M=256,dist=uniform,..." from a normalised spec: keys sorted, strings unquoted.
std::string shape_key(const nlohmann::json& spec);

// configs/grids/<kernel>.json under `grid_dir`.
std::string grid_path(const std::string& grid_dir, const std::string& kernel);

// Throws InvalidArgument naming the file, the generator and the field that is wrong.
ShapeGrid load_shape_grid(const std::string& path, const TunableKernel& kernel);
ShapeGrid expand_shape_grid(const nlohmann::ordered_json& doc, const TunableKernel& kernel,
                            const std::string& origin);

}  // namespace aotune::tuner
