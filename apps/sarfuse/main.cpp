#include "commands.hpp"
#include "exit_after_run.hpp"

int main(int argc, char** argv) {
  sarfuse::cli::allow_exit_without_teardown();
  const int code = sarfuse::cli::run(argc, argv);
  // After a focus run everything is on disk: leave without tearing anything down (exit_after_run.hpp).
  if (sarfuse::cli::exit_without_teardown()) sarfuse::cli::exit_after_run(code);
  return code;
}
