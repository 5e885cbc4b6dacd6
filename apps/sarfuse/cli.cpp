// The CLI as a function, so the executable and `python3 -m sarfuse` share it. Parses argv, runs the
// sub-command, returns the exit status (errors: message on stderr, 2). Once per process: the
// sub-commands keep their option values in statics.
#include <csignal>
#include <iostream>

#include "commands.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse::cli {

namespace {
extern "C" void on_stop_signal(int signal) { request_interrupt(signal); }

// SIGINT / SIGTERM: ask the library to stop; the run unwinds (temporary outputs removed) and exits
// 128 + signal. A second signal while stopping ends the process at once, as the default would.
void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // Past a file-size limit (ulimit -f) a write should fail with EFBIG and our message, not kill us.
  signal(SIGXFSZ, SIG_IGN);
  // A parent may have blocked them (job runners do); then they would stay pending and never stop us.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}
}  // namespace

namespace {
bool g_exit_allowed = false, g_exit_without_teardown = false;
}
void allow_exit_without_teardown() { g_exit_allowed = true; }
bool exit_without_teardown() { return g_exit_without_teardown; }
bool leave_state_to_exit() { return g_exit_without_teardown = g_exit_allowed; }
bool process_ends_after_command() { return g_exit_allowed; }

int run(int argc, char** argv) {
  CLI::App app{"sarfuse: SAR raw data -> focused SLC (Range-Doppler), simulation and quality analysis"};
  app.require_subcommand(1);
  add_simulate(app);
  add_focus(app);
  add_analyze(app);
  add_compare(app);
  add_info(app);
  add_demo(app);
  add_bench(app);
  add_doppler(app);
  add_decode(app);
  install_stop_handlers();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const Interrupted& e) {
    std::cerr << "sarfuse: " << e.what() << ": stopped (unfinished outputs removed)\n";
    return 128 + e.signal();
  } catch (const Error& e) {
    std::cerr << "sarfuse: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "sarfuse: error: out of memory\n";
    return 2;
  }
  return 0;
}

}  // namespace sarfuse::cli
