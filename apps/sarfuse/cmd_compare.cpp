#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/quality.hpp"

namespace sarfuse::cli {

void add_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "relative L2 difference of two images, and per-target differences");
  static std::string a, b, params;
  cmd->add_option("a", a, "image under test (.npy)")->required();
  cmd->add_option("b", b, "reference image (.npy)")->required();
  cmd->add_option("--params", params, "parameters with scene targets: also compare target by target");
  cmd->callback([] {
    const ComplexImage ia = read_image(a), ib = read_image(b);
    std::printf("relative L2 error ||a-b||/||b|| = %.3e\n", relative_l2(ia, ib));
    if (params.empty()) return;
    const ParamsFile p = load_params(params);
    if (!p.scene || p.scene->targets.empty()) throw Error(params + ": scene.targets: missing");
    AnalysisOptions oa, ob;
    if (auto e = read_sidecar_eta_first(a)) oa.eta_first_s = *e;
    if (auto e = read_sidecar_eta_first(b)) ob.eta_first_s = *e;
    const auto qa = analyze_targets(ia, p.radar, p.scene->targets, oa);
    const auto qb = analyze_targets(ib, p.radar, p.scene->targets, ob);
    std::printf("%3s %9s %9s %9s %9s %9s %9s %9s\n", "#", "dSNR dB", "dPSLRr", "dISLRr", "dPSLRa", "dISLRa", "drow px",
                "dcol px");
    for (std::size_t t = 0; t < qa.size(); ++t)
      std::printf("%3zu %9.4f %9.4f %9.4f %9.4f %9.4f %9.5f %9.5f\n", t, qa[t].snr_db - qb[t].snr_db,
                  qa[t].range.pslr_db - qb[t].range.pslr_db, qa[t].range.islr_db - qb[t].range.islr_db,
                  qa[t].azimuth.pslr_db - qb[t].azimuth.pslr_db, qa[t].azimuth.islr_db - qb[t].azimuth.islr_db,
                  qa[t].row - qb[t].row, qa[t].col - qb[t].col);
  });
}

}  // namespace sarfuse::cli
