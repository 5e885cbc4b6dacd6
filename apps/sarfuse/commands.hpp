// The CLI: a thin shell over the library. Each sub-command registers itself on the app and runs
// through a callback; library errors (sarfuse::Error) reach run(), which prints them and returns 2.
#pragma once
#include <CLI/CLI.hpp>

namespace sarfuse::cli {
void add_simulate(CLI::App& app);
void add_focus(CLI::App& app);
void add_analyze(CLI::App& app);
void add_compare(CLI::App& app);
void add_info(CLI::App& app);
void add_demo(CLI::App& app);
void add_bench(CLI::App& app);
void add_doppler(CLI::App& app);
void add_decode(CLI::App& app);
// The whole CLI: argv in, exit status out (cli.cpp).
int run(int argc, char** argv);
// The executable (not Python's `python3 -m sarfuse`, which goes on after the command) allows commands
// to leave their state (plans, their memory; with a GPU pinned memory and the context) for the
// process's exit to release; it then ends with _exit (main.cpp).
void allow_exit_without_teardown();
bool exit_without_teardown();
// A command's state: true when the process's exit will release it (the caller must not).
bool leave_state_to_exit();
// Whether the process ends after this command (the executable): it may then release the GPU early.
bool process_ends_after_command();
}  // namespace sarfuse::cli
