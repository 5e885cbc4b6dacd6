#include <iostream>

#include "commands.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/quality.hpp"

namespace sarfuse::cli {

void add_analyze(CLI::App& app) {
  auto* cmd = app.add_subcommand("analyze", "point-target quality analysis of a focused image");
  static std::string slc, params, report;
  static int peaks = 0;
  cmd->add_option("slc", slc, "focused image (.npy)")->required();
  cmd->add_option("--params", params, "parameters; targets from its scene section")->required();
  cmd->add_option("--report", report, "write the results as JSON");
  cmd->add_option("--peaks", peaks, "analyse the N brightest isolated peaks instead of the scene targets");
  cmd->callback([] {
    const ParamsFile p = load_params(params);
    const ComplexImage img = read_image(slc);
    AnalysisOptions opt;
    if (auto eta = read_sidecar_eta_first(slc)) opt.eta_first_s = *eta;
    std::vector<TargetQuality> q;
    if (peaks > 0) {
      q = analyze_peaks(img, p.radar, peaks, opt);
    } else {
      if (!p.scene || p.scene->targets.empty())
        throw Error(params + ": scene.targets: missing (give the targets, or use --peaks N)");
      q = analyze_targets(img, p.radar, p.scene->targets, opt);
    }
    std::cout << format_quality_table(q);
    if (!report.empty()) write_text_file(report, quality_to_json(q));
  });
}

}  // namespace sarfuse::cli
