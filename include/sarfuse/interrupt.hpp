// sarfuse: stopping a long run. A signal handler (the CLI installs one for SIGINT and SIGTERM) calls
// request_interrupt(); the library's long loops notice it within a row or block of work, finish no
// more, and throw Interrupted, so outputs being written are removed (they are atomic) and the caller
// can exit with 128 + signal.
#pragma once
#include <stdexcept>

namespace sarfuse {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

// Async-signal-safe: one store to a lock-free atomic.
void request_interrupt(int signal) noexcept;
// The signal that asked to stop, or 0.
int interrupt_signal() noexcept;
inline bool interrupted() noexcept { return interrupt_signal() != 0; }
void clear_interrupt() noexcept;
// Throws Interrupted when a stop was requested, unless an InterruptsDeferred lives on this thread.
void throw_if_interrupted();

// While one lives on this thread, throw_if_interrupted() does not throw: for the few milliseconds that
// finish what must appear together (a product's sidecar, quicklook and report once the product has
// its name). The stop takes effect at the next check after it.
class InterruptsDeferred {
 public:
  InterruptsDeferred();
  ~InterruptsDeferred();
  InterruptsDeferred(const InterruptsDeferred&) = delete;
  InterruptsDeferred& operator=(const InterruptsDeferred&) = delete;
};

}  // namespace sarfuse
