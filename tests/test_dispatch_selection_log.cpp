// AOTUNE_LOG_SELECTIONS: which settings turn the log on, that each distinct selection is logged
// once and the log stays bounded, and what a line says. (The calls through select_config are in
// test_dispatch_select.cpp, next to its heuristics.)
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dispatch/src/selection_log.h"

namespace aotune::dispatch {
namespace {

TEST(SelectionLog, OnlyTheDocumentedSettingsTurnItOnAndABadOneIsNamed) {
  const auto sink = [](const std::string&) {};
  for (const char* on : {"1", "true", "on"}) {
    const SelectionLog log(on, sink);
    EXPECT_TRUE(log.enabled()) << on;
    EXPECT_EQ(log.warning(), "") << on;
  }
  for (const char* off : {static_cast<const char*>(nullptr), "", "0", "false", "off"}) {
    const SelectionLog log(off, sink);
    EXPECT_FALSE(log.enabled()) << (off == nullptr ? "unset" : off);
    EXPECT_EQ(log.warning(), "") << (off == nullptr ? "unset" : off);
  }
  const SelectionLog bad("yes", sink);
  EXPECT_FALSE(bad.enabled());
  EXPECT_NE(bad.warning().find("AOTUNE_LOG_SELECTIONS='yes'"), std::string::npos) << bad.warning();
}

TEST(SelectionLog, EachDistinctSelectionOnceUpToItsCapacity) {
  std::vector<std::string> lines;
  SelectionLog log(
      "1", [&](const std::string& l) { lines.push_back(l); }, 2);
  const Features small = {{"B", 8}, {"M", 32}};
  const Features large = {{"B", 8}, {"M", 256}};
  const Features third = {{"B", 9}, {"M", 256}};
  const LoggedSelection a{.kernel = "jagged_sum",
                          .device_arch = 90,
                          .features = &small,
                          .config_id = "group_row.t128.v4.s1",
                          .arch_used = 90,
                          .heuristic_source = "compiled"};
  LoggedSelection b = a;
  b.features = &large;
  LoggedSelection c = a;
  c.features = &third;
  log.record(a);
  log.record(a);
  ASSERT_EQ(lines.size(), 1U);
  LoggedSelection a_on_sm120 = a;  // another device architecture is another selection
  a_on_sm120.device_arch = 120;
  log.record(a_on_sm120);
  ASSERT_EQ(lines.size(), 2U);
  log.record(b);  // over capacity: one line says so, then silence
  log.record(c);
  log.record(a);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[2],
            "aotune: 2 distinct selections logged (AOTUNE_LOG_SELECTIONS); later new ones are not");
}

// Threads calling the same shapes at once: each selection still logged exactly once.
TEST(SelectionLog, ThreadsRecordingTheSameSelectionsLogEachOnce) {
  std::mutex mutex;
  std::vector<std::string> lines;
  SelectionLog log("1", [&](const std::string& l) {
    const std::lock_guard lock(mutex);
    lines.push_back(l);
  });
  std::vector<Features> shapes;
  for (int i = 0; i < 50; ++i) shapes.push_back({{"B", static_cast<double>(i)}, {"M", 8}});
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 100; ++rep) {
        for (std::size_t i = 0; i < shapes.size(); ++i) {
          const Features& f = shapes[(i + static_cast<std::size_t>(t) * 7) % shapes.size()];
          log.record({.kernel = "jagged_sum",
                      .device_arch = 90,
                      .features = &f,
                      .config_id = "flat_scan.t256.v4",
                      .arch_used = 90,
                      .heuristic_source = "compiled"});
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(lines.size(), shapes.size());
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(std::unique(lines.begin(), lines.end()), lines.end());
}

TEST(SelectionLog, ALineNamesTheDeviceTheConfigTheHeuristicAndEveryFeature) {
  const Features f = {{"elem_bytes", 2}, {"B", 1024}, {"skew", 1.5}, {"nnz", 4294967296.0}};
  LoggedSelection s{.kernel = "jagged_sum",
                    .device_arch = 120,
                    .features = &f,
                    .config_id = "flat_scan.t256.v4",
                    .source = heuristics::ChoiceSource::fallback,
                    .rank = 2,
                    .arch_used = 90,
                    .heuristic_source = "compiled"};
  EXPECT_EQ(
      format_selection(s),
      "aotune: jagged_sum on sm120 chose flat_scan.t256.v4 (sm90 heuristic, compiled, fallback "
      "rank 2) for elem_bytes=2 B=1024 skew=1.5 nnz=4294967296");
  s.arch_used = 0;
  s.source = heuristics::ChoiceSource::default_config;
  EXPECT_EQ(
      format_selection(s),
      "aotune: jagged_sum on sm120 chose flat_scan.t256.v4 (no heuristic applies, default_config) "
      "for elem_bytes=2 B=1024 skew=1.5 nnz=4294967296");
}

}  // namespace
}  // namespace aotune::dispatch
