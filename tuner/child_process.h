// Forked worker processes. The parent of a sweep never initialises CUDA; each GPU worker is a child
// that does, so a kernel that destroys its CUDA context (or the process) takes only that child
// down. Children die with their parent (PR_SET_PDEATHSIG), so a killed sweep leaves no orphan
// writing files.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

namespace aotune::tuner {

struct ChildStatus {
  bool signaled = false;
  int code = 0;                  // exit code when !signaled
  int signal = 0;                // terminating signal when signaled
  std::string describe() const;  // "exit code 3" | "signal 11 (Segmentation fault)"
};

class ChildProcess {
 public:
  ChildProcess() = default;
  // Forks; the child runs `body` and exits with its return value (4 on an escaped exception).
  static ChildProcess start(const std::function<int()>& body);
  ~ChildProcess();  // kills and reaps a child still running
  ChildProcess(ChildProcess&& o) noexcept;
  ChildProcess& operator=(ChildProcess&& o) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Non-blocking: the status once the child has ended (then it is reaped and no longer running).
  std::optional<ChildStatus> poll();
  ChildStatus wait();
  ChildStatus kill_and_wait();

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
};

// Runs `body` in a child and returns what it wrote to the pipe `out_fd` (its argument) with its
// status: lets the parent ask CUDA questions (device count, properties) without initialising CUDA.
std::string run_child_capturing(const std::function<int(int out_fd)>& body, ChildStatus& status);

}  // namespace aotune::tuner
