// The CLI as a function, so the executable and `python3 -m sarfuse` share it. Parses argv, runs the
// sub-command, returns the exit status (errors: message on stderr, 2). Once per process: the
// sub-commands keep their option values in statics.
#include <iostream>

#include "commands.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cli {

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
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
