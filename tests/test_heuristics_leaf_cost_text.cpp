// The three-character text a generated header holds a forest's 16-bit leaf costs in
// (heuristics/leaf_cost_text.h): every value round-trips, and damaged text is refused whole.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "heuristics/leaf_cost_text.h"

namespace aotune::heuristics {
namespace {

TEST(LeafCostText, EveryValueRoundTripsInThreeCharacters) {
  std::string text;
  std::vector<uint16_t> want;
  for (uint32_t v = 0; v <= 0xFFFF; ++v) {
    const std::string digits = encode_leaf_cost(static_cast<uint16_t>(v));
    ASSERT_EQ(digits.size(), kLeafCostChars);
    text += digits;
    want.push_back(static_cast<uint16_t>(v));
  }
  EXPECT_EQ(encode_leaf_cost(0), "000");
  EXPECT_EQ(encode_leaf_cost(30000), "7Km");  // 7*4096 + 20*64 + 48
  EXPECT_EQ(encode_leaf_cost(0xFFFF), "F__");
  std::vector<uint16_t> got;
  ASSERT_TRUE(decode_leaf_costs(text, got));
  EXPECT_EQ(got, want);
}

TEST(LeafCostText, DamagedTextIsRefusedAndLeavesTheOutputAlone) {
  const std::vector<uint16_t> before = {7, 8};
  for (const std::string bad : {"00", "0000", "00\"", "0 0", "G00", "___"}) {
    std::vector<uint16_t> out = before;
    EXPECT_FALSE(decode_leaf_costs(bad, out)) << bad;
    EXPECT_EQ(out, before) << bad;
  }
  std::vector<uint16_t> out = before;
  EXPECT_TRUE(decode_leaf_costs("", out));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace aotune::heuristics
