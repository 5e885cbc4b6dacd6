#include "commands.hpp"

int main(int argc, char** argv) { return sarfuse::cli::run(argc, argv); }
