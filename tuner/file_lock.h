// An exclusive advisory lock (flock) on <db>.lock, so two sweeps never write one database. Forked
// workers inherit the descriptor, so a lock outlives a killed parent until its workers are gone
// too: a `--resume` right after a SIGKILL waits for them instead of racing them.
#pragma once

#include <string>

namespace aotune::tuner {

class FileLock {
 public:
  // Waits up to `timeout_seconds`, then throws aotune::Error naming the holder's pid.
  FileLock(std::string path, double timeout_seconds);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace aotune::tuner
