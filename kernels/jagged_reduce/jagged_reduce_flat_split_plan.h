// flat_split's division of the long rows among its split blocks: the arithmetic the kernel
// (jagged_reduce_flat_split.cuh) runs and the CPU tests check on simulated problems. constexpr, so
// device code calls the same functions (the build passes --expt-relaxed-constexpr).
//
// The values' nnz entries are cut into equal ranges of `range` entries (flat_split_grid), one per
// split block: block j's range starts at entry lo = j x range. A long row is longer than a range
// (long_len >= range), so it holds the start of at least one range; block j takes part of the row
// holding its lo, and only that row: from lo (or from the row's start, when the row starts inside
// the range before, which no block's lo falls in before this one) to the end of its own range or
// of the row. So each long row's entries go to the blocks whose lo falls inside it, once each, and
// a block finds its row by one search of the offsets for lo, with no list and no waiting.
#pragma once

#include <cstdint>

namespace aotune::jagged_reduce {

// Whether a row goes to the split blocks: past long_len entries (flat_split_grid), with live
// columns (a row whose feature count is 0 outputs zeros, loading nothing). The row blocks and the
// split blocks both ask, with the same arguments, so a row is summed by exactly one of them.
constexpr bool flat_split_is_long(int64_t len, int64_t cols, int64_t long_len) { return cols > 0 && len > long_len; }

// The entries [from, to) of the row [rs, re) that the block whose range starts at lo takes (the
// row holds lo: rs <= lo < re): from lo, or from rs when the row starts after the previous range's
// start (lo - range < rs), to the end of the block's range or of the row.
struct FlatSplitPart {
  int64_t from = 0;
  int64_t to = 0;
};
constexpr FlatSplitPart flat_split_part(int64_t rs, int64_t re, int64_t lo, int64_t range) {
  return {rs > lo - range ? rs : lo, re < lo + range ? re : lo + range};
}

// Split blocks other than the first that take part of the row [rs, re) (re - rs > range): those
// whose range start lo = j x range falls inside it, less one; the count its arrival counter
// reaches before the last one arrives.
// The first range start in the row [rs, re): the kernel counts the row's blocks from its block
// number, (re - 1) / range - flat_split_first_start(rs, range) / range = flat_split_others.
constexpr int64_t flat_split_first_start(int64_t rs, int64_t range) { return (rs + range - 1) / range * range; }
constexpr unsigned flat_split_others(int64_t rs, int64_t re, int64_t range) {
  return static_cast<unsigned>((re - 1) / range - flat_split_first_start(rs, range) / range);
}

// Block i's role among `blocks` = split_blocks + row blocks: the split blocks are spread evenly
// over the grid (floor(i x split_blocks / blocks) of them come before block i), so the first wave
// of resident blocks holds both roles. With the split blocks first (session 41's second version),
// the first wave on an H200 was split blocks only (528 of 4 resident per SM), and on rows without
// a long one the row blocks waited for them to finish their searches. `index` is the block's
// number within its role.
struct FlatSplitRole {
  bool split = false;
  int64_t index = 0;
};
constexpr FlatSplitRole flat_split_role(int64_t i, int64_t split_blocks, int64_t blocks) {
  const int64_t before = i * split_blocks / blocks;  // split blocks with a lower block index
  if ((i + 1) * split_blocks / blocks > before) return {true, before};
  return {false, i - before};
}

}  // namespace aotune::jagged_reduce
