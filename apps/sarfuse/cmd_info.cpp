#include <iostream>

#include "commands.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "print a file's type, shape and parameters");
  static std::vector<std::string> files;
  cmd->add_option("files", files, ".npy, .mat or .json files")->required();
  cmd->callback([] {
    for (const auto& f : files) std::cout << describe_file(f);
  });
}

}  // namespace sarfuse::cli
