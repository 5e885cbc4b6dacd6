#include "sarfuse/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <string>

namespace sarfuse {

namespace {
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the flag must be safe to set from a signal handler");

std::string describe(int signal) {
  if (signal == SIGINT) return "interrupted (SIGINT)";
  if (signal == SIGTERM) return "terminated (SIGTERM)";
  return "stopped by signal " + std::to_string(signal);
}
}  // namespace

Interrupted::Interrupted(int signal) : std::runtime_error(describe(signal)), signal_(signal) {}

void request_interrupt(int signal) noexcept { g_signal.store(signal, std::memory_order_relaxed); }
int interrupt_signal() noexcept { return g_signal.load(std::memory_order_relaxed); }
void clear_interrupt() noexcept { g_signal.store(0, std::memory_order_relaxed); }
namespace {
thread_local int t_deferred = 0;
}
InterruptsDeferred::InterruptsDeferred() { ++t_deferred; }
InterruptsDeferred::~InterruptsDeferred() { --t_deferred; }

void throw_if_interrupted() {
  if (t_deferred) return;
  if (const int s = interrupt_signal()) throw Interrupted(s);
}

}  // namespace sarfuse
