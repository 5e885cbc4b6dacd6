#include <unistd.h>

#include <cstdio>

#include "commands.hpp"

int main(int argc, char** argv) {
  sarfuse::cli::allow_exit_without_teardown();
  const int code = sarfuse::cli::run(argc, argv);
  // After a GPU run everything is on disk: leave without tearing the CUDA context down (a few hundred
  // ms the operating system does for us at exit anyway).
  if (sarfuse::cli::exit_without_teardown()) {
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
  }
  return code;
}
