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
// The whole CLI: argv in, exit status out (cli.cpp).
int run(int argc, char** argv);
}  // namespace sarfuse::cli
