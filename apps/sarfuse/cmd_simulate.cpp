#include <iostream>

#include "commands.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/simulate.hpp"

namespace sarfuse::cli {

void add_simulate(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate", "simulate point-target raw data from a scene file");
  static std::string scene, out;
  static int threads = 0;
  cmd->add_option("scene", scene, "scene/radar parameters (JSON)")->required();
  cmd->add_option("-o,--output", out, "raw data output (.npy, complex64)")->required();
  cmd->add_option("--threads", threads, "threads (0: all cores)");
  cmd->callback([] {
    const ParamsFile p = load_params(scene);
    if (!p.scene) throw Error(scene + ": scene: missing (simulate needs a \"scene\" section)");
    require_distinct_paths(scene, out);
    const ComplexImage raw = simulate(p.radar, *p.scene, threads);
    write_npy(out, raw);
    std::cout << "wrote " << out << " (" << raw.lines() << " x " << raw.samples() << ", " << p.scene->targets.size()
              << " targets)\n";
  });
}

}  // namespace sarfuse::cli
