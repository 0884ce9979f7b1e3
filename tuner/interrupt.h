// Stopping a sweep by hand (Ctrl-C), by a scheduler (SIGTERM: Slurm, Kubernetes) or by a closed
// terminal (SIGHUP). While an InterruptGuard lives, the sweep's parent process records the first
// such signal instead of dying of it; the worker pool then kills its workers (a cell in flight is
// lost, every shape already saved is kept), folds the workers' pieces into the database, and the
// sweep ends with its usual summary, a line saying how to resume, and exit code 128 + signal.
// Without the guard a signal killed the parent at once: nothing was lost (the writes are atomic and
// the workers die with their parent), but nothing was said either.
#pragma once

#include <string>

#include "kernels/common/errors.h"

namespace aotune::tuner {

class InterruptGuard {
 public:
  // Catches SIGINT, SIGTERM and SIGHUP, except one the process was started ignoring (`nohup`, a
  // background job of a non-interactive shell): that one stays ignored.
  InterruptGuard();
  ~InterruptGuard();  // puts the former handlers back
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The first signal an InterruptGuard caught, or 0.
int interrupt_signal();

// In a forked worker: the dispositions the process had before the guard, so a Ctrl-C on the
// terminal (which reaches the whole process group) stops the worker as it did before.
void restore_interrupt_dispositions();

// "SIGINT", "SIGTERM", "SIGHUP", or "signal N".
std::string signal_name(int sig);

// The sweep stopped at a caught signal; the summary is already printed. aot-runner exits with
// 128 + signal(), as a shell reports a program the signal killed.
class Interrupted : public Error {
 public:
  Interrupted(int sig, const std::string& message) : Error(message), signal_(sig) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

}  // namespace aotune::tuner
