#include "tuner/child_process.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "kernels/common/errors.h"
#include "tuner/interrupt.h"

namespace aotune::tuner {

namespace {

ChildStatus decode(int raw) {
  ChildStatus s;
  if (WIFSIGNALED(raw)) {
    s.signaled = true;
    s.signal = WTERMSIG(raw);
  } else {
    s.code = WEXITSTATUS(raw);
  }
  return s;
}

[[noreturn]] void run_body(const std::function<int()>& body, pid_t parent) {
  // Die with the parent; if it is already gone (a race with the fork), go at once.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  // The parent's InterruptGuard handler only sets its flag; a worker stops at Ctrl-C as before.
  restore_interrupt_dispositions();
  int rc = 4;
  try {
    rc = body();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    rc = dynamic_cast<const InvalidArgument*>(&e) != nullptr ? 2 : 4;
  }
  spdlog::default_logger()->flush();
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(rc);  // no atexit handlers: they belong to the parent's copy of the program
}

}  // namespace

std::string ChildStatus::describe() const {
  if (!signaled) return "exit code " + std::to_string(code);
  return "signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
}

ChildProcess ChildProcess::start(const std::function<int()>& body) {
  spdlog::default_logger()->flush();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0)
    throw Error(std::string("cannot start a worker process: fork failed: ") + std::strerror(errno));
  if (pid == 0) run_body(body, parent);
  return ChildProcess(pid);
}

ChildProcess::~ChildProcess() {
  if (running()) kill_and_wait();
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept : pid_(o.pid_) { o.pid_ = -1; }

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    if (running()) kill_and_wait();
    pid_ = o.pid_;
    o.pid_ = -1;
  }
  return *this;
}

std::optional<ChildStatus> ChildProcess::poll() {
  if (!running()) return std::nullopt;
  int raw = 0;
  const pid_t r = ::waitpid(pid_, &raw, WNOHANG);
  if (r == 0) return std::nullopt;
  if (r < 0) throw Error(std::string("waitpid failed: ") + std::strerror(errno));
  pid_ = -1;
  return decode(raw);
}

ChildStatus ChildProcess::wait() {
  if (!running()) throw Error("no worker process to wait for");
  int raw = 0;
  while (::waitpid(pid_, &raw, 0) < 0) {
    if (errno != EINTR) throw Error(std::string("waitpid failed: ") + std::strerror(errno));
  }
  pid_ = -1;
  return decode(raw);
}

ChildStatus ChildProcess::kill_and_wait() {
  ::kill(pid_, SIGKILL);
  return wait();
}

std::string run_child_capturing(const std::function<int(int)>& body, ChildStatus& status) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  ChildProcess child = ChildProcess::start([&] {
    ::close(fds[0]);
    return body(fds[1]);
  });
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  status = child.wait();
  return out;
}

}  // namespace aotune::tuner
