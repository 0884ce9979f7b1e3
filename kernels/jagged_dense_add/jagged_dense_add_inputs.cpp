#include "kernels/jagged_dense_add/jagged_dense_add_inputs.h"

#include "kernels/common/host_data.h"

namespace aotune::jagged_dense_add {

std::vector<nlohmann::json> test_shapes() {
  const std::vector<nlohmann::json> base = {
      {{"B", 0}, {"N", 16}, {"len", 4}},                    // nothing to launch
      {{"B", 1}, {"N", 8}, {"len", 0}, {"dist", "fixed"}},  // one empty row: out = y
      {{"B", 300}, {"N", 256}, {"len", 20}, {"dist", "many_empty"}},
      {{"B", 64}, {"N", 4096}, {"len", 300}, {"dist", "one_huge"}},
      {{"B", 500}, {"N", 512}, {"len", 50}, {"dist", "powerlaw"}},
      {{"B", 1000}, {"N", 1}, {"len", 1}},                            // N = 1: vec 1 only
      {{"B", 200}, {"N", 77}, {"len", 40}, {"dist", "tritonbench"}},  // N odd
      {{"B", 100}, {"N", 6}, {"len", 3}},                             // N % 4 != 0
      {{"B", 150}, {"N", 12}, {"len", 6}},                            // N % 8 != 0
      {{"B", 90}, {"N", 128}, {"len", 60}, {"misalign", 1}},          // vec 1 only
      {{"B", 70}, {"N", 96}, {"len", 50}, {"misalign", 2}},           // vec <= 2
      {{"B", 50}, {"N", 64}, {"len", 64}, {"dist", "fixed"}},         // rows exactly N long
      {{"B", 4}, {"N", 16384}, {"len", 8000}},                        // wide rows, few of them
      {{"B", 5000}, {"N", 32}, {"len", 16}},                          // many short rows
      // flat vectors across rows: N below the vector width, and a wide odd N with a huge row
      {{"B", 2001}, {"N", 3}, {"len", 2}},  // B*N = 6003: a 3-element tail at 8
      {{"B", 700}, {"N", 1767}, {"len", 900}, {"dist", "one_huge"}},
  };
  return in_every_dtype_and_index(base, 101);
}

}  // namespace aotune::jagged_dense_add
