// The two small files that let a sweep survive a config that kills its worker process:
//  - the journal, rewritten by the worker before each step: which (shape, config) it is running;
//  - the crash list, written only by the supervising parent: cells that killed a worker, so the
//    restarted worker records them as crashed instead of running them again.
// Both sit next to the database (<db>.journal, <db>.crashes) and are removed when it is complete.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aotune::tuner {

struct JournalEntry {
  std::string shape_key;
  int64_t config = -1;  // -1: between configs (building inputs, writing the database)
  std::string phase;    // prepare | check | time | retime
  std::string error;    // set by a worker that exits because the CUDA context is lost
};

// The worker's side. Each entry is one line written with a single pwrite at offset 0: a process
// that dies never leaves half a line (the kernel finishes or never starts the call), and no rename
// or fsync is paid per cell. The reader takes the first line.
class JournalWriter {
 public:
  explicit JournalWriter(std::string path);  // throws aotune::Error naming the path
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  void write(const JournalEntry& e);

 private:
  std::string path_;
  int fd_ = -1;
};

std::optional<JournalEntry> read_journal(const std::string& path);

struct CrashRecord {
  std::string shape_key;
  int64_t config = -1;  // -1: the whole shape (the worker died outside any config)
  std::string reason;
};

std::vector<CrashRecord> load_crash_records(const std::string& path);
void save_crash_records(const std::string& path, const std::vector<CrashRecord>& records);

}  // namespace aotune::tuner
