#include <iostream>

#include "commands.hpp"
#include "sarfuse/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"sarfuse: SAR raw data -> focused SLC (Range-Doppler), simulation and quality analysis"};
  app.require_subcommand(1);
  sarfuse::cli::add_simulate(app);
  sarfuse::cli::add_focus(app);
  sarfuse::cli::add_analyze(app);
  sarfuse::cli::add_compare(app);
  sarfuse::cli::add_info(app);
  sarfuse::cli::add_demo(app);
  sarfuse::cli::add_bench(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const sarfuse::Error& e) {
    std::cerr << "sarfuse: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "sarfuse: error: out of memory\n";
    return 2;
  }
  return 0;
}
