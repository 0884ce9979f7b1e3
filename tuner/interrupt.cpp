#include "tuner/interrupt.h"

#include <signal.h>

#include <array>
#include <csignal>

namespace aotune::tuner {

namespace {

constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};

volatile std::sig_atomic_t g_caught = 0;
// The dispositions before the guard (index as kSignals) and which of them the guard replaced.
std::array<struct sigaction, kSignals.size()> g_former{};
std::array<bool, kSignals.size()> g_replaced{};

extern "C" void record_signal(int sig) {
  if (g_caught == 0) g_caught = sig;  // the first one decides the exit code
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_caught = 0;
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    g_replaced[i] = false;
    if (::sigaction(kSignals[i], nullptr, &g_former[i]) != 0) continue;
    if (g_former[i].sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = record_signal;
    ::sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // the pool's waits and file writes carry on; the pool polls the flag
    g_replaced[i] = ::sigaction(kSignals[i], &sa, nullptr) == 0;
  }
}

InterruptGuard::~InterruptGuard() { restore_interrupt_dispositions(); }

int interrupt_signal() { return g_caught; }

void restore_interrupt_dispositions() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (g_replaced[i]) ::sigaction(kSignals[i], &g_former[i], nullptr);
    g_replaced[i] = false;
  }
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(sig);
  }
}

}  // namespace aotune::tuner
