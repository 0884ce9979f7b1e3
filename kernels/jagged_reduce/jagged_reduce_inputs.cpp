#include "kernels/jagged_reduce/jagged_reduce_inputs.h"

#include "kernels/common/host_data.h"

namespace aotune::jagged_reduce {

std::vector<nlohmann::json> test_shapes() {
  const std::vector<nlohmann::json> base = {
      {{"B", 0}, {"M", 16}, {"len", 4}},
      {{"B", 1}, {"M", 8}, {"len", 0}, {"dist", "fixed"}},
      {{"B", 300}, {"M", 64}, {"len", 20}, {"dist", "many_empty"}},
      {{"B", 64}, {"M", 32}, {"len", 2000}, {"dist", "one_huge"}},
      {{"B", 500}, {"M", 128}, {"len", 50}, {"dist", "powerlaw"}},
      {{"B", 1000}, {"M", 1}, {"len", 30}},
      {{"B", 200}, {"M", 7}, {"len", 40}, {"dist", "tritonbench"}},
      {{"B", 100}, {"M", 6}, {"len", 33}},
      {{"B", 90}, {"M", 64}, {"len", 25}, {"misalign", 1}},
      {{"B", 70}, {"M", 48}, {"len", 25}, {"misalign", 2}},
      {{"B", 16}, {"M", 1024}, {"len", 100}},
      {{"B", 3}, {"M", 2000}, {"len", 5000}, {"dist", "fixed"}},
      // nnz_split ownership: rows over several chunks with empty rows between and at the end.
      {{"B", 40}, {"M", 256}, {"len", 300}, {"dist", "many_empty"}},
      // nnz_split with one row group (M / VEC >= 256 lanes): short rows inside a chunk written
      // directly by their thread, beside a huge row spread over chunks; M = 520 leaves idle lanes.
      {{"B", 3000}, {"M", 256}, {"len", 4}, {"dist", "one_huge"}},
      {{"B", 1500}, {"M", 520}, {"len", 6}, {"dist", "powerlaw"}},
      // group_row with 8-32 slots (M of at most 4 lanes): rows longer than the 4 x 32 elements a
      // warp loads per step, and shorter than one step.
      {{"B", 400}, {"M", 4}, {"len", 300}, {"dist", "powerlaw"}},
      // flat_scan (M x element size divides 16 bytes; blocks of 512-16384 entries): rows cut at
      // thread and block edges, empty rows there, a row over tens of blocks, M = 8 (16-bit only).
      {{"B", 3000}, {"M", 1}, {"len", 6}, {"dist", "many_empty"}},
      {{"B", 300}, {"M", 2}, {"len", 200}, {"dist", "one_huge"}},
      {{"B", 5}, {"M", 4}, {"len", 9001}, {"dist", "fixed"}},
      {{"B", 700}, {"M", 8}, {"len", 40}, {"dist", "powerlaw"}},
      // flat_row with groups of 2-16 warps: rows of thousands of entries off a 16-byte boundary,
      // empty rows, and a last block with part of its groups past B.
      {{"B", 41}, {"M", 1}, {"len", 3000}, {"dist", "many_empty"}},
      // Tiny problems (written for session 38's one_block strategy, removed in session 45; kept
      // for every strategy): masked columns, empty rows, an odd M off every vector boundary, one
      // row, and 16384 values elements.
      {{"B", 16}, {"M", 16}, {"len", 8}, {"misalign", 1}},
      {{"B", 64}, {"M", 3}, {"len", 20}, {"dist", "many_empty"}},
      {{"B", 1}, {"M", 1000}, {"len", 10}, {"dist", "fixed"}},
      {{"B", 32}, {"M", 64}, {"len", 8}, {"dist", "fixed"}},
      // flat_split (narrow rows; long past nnz / 4 x SMs elements and past 4 steps of the row's
      // group): one long row over every split block among rows far under the bound (jagged_mean:
      // its feature count decides whether it is split or masked), then several long rows of a
      // power law, so split ranges meet two rows. (The fixed B = 5 rows above are all long.)
      {{"B", 2000}, {"M", 4}, {"len", 64}, {"dist", "one_huge"}},
      {{"B", 60}, {"M", 1}, {"len", 4000}, {"dist", "powerlaw"}},
  };
  return in_every_dtype_and_index(base, 11);
}

}  // namespace aotune::jagged_reduce
