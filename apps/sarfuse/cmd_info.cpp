#include <iostream>

#include "commands.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "print a file's type, shape and parameters");
  static std::vector<std::string> files;
  cmd->add_option("files", files, ".npy, .mat or .json files, Sentinel-1 Level-0 .SAFE folders or .dat files")->required();
  cmd->callback([] {
    for (const auto& f : files) std::cout << (sentinel1::is_level0_path(f) ? sentinel1::describe_level0(f) : describe_file(f));
  });
}

}  // namespace sarfuse::cli
