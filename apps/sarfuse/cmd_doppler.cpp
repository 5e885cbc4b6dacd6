#include <iostream>
#include <optional>

#include "commands.hpp"
#include "sarfuse/doppler.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse::cli {

void add_doppler(CLI::App& app) {
  auto* cmd = app.add_subcommand("doppler", "estimate the Doppler centroid of raw data (ACCC; MLCC, MLBF and a sharpness check)");
  static std::string raw, params, var, json, check = "auto", azimuth = "linear";
  static std::optional<int> ambiguity;
  static int blocks = 16, degree = 1;
  cmd->add_option("raw", raw, "raw data (.npy or .mat)")->required();
  cmd->add_option("--params", params, "radar parameters (JSON)")->required();
  cmd->add_option("--var", var, "variable name in a .mat file");
  cmd->add_option("--doppler-ambiguity", ambiguity, "force the ambiguity number instead of estimating it");
  cmd->add_option("--range-blocks", blocks, "range blocks for the centroid vs range")->capture_default_str();
  cmd->add_option("--degree", degree, "polynomial degree of the centroid vs range")->capture_default_str();
  cmd->add_option("--doppler-check", check,
                  "focus a patch per candidate ambiguity and keep the sharpest: auto (when unsure), always or never")
      ->capture_default_str();
  cmd->add_option("--azimuth", azimuth, "the product's azimuth processing the check focuses with: linear or circular")
      ->capture_default_str();
  cmd->add_option("--json", json, "write the estimate as JSON");
  cmd->callback([] {
    if (!json.empty()) check_output_path(json);
    const ParamsFile p = load_params(params);
    const RawData data = read_raw(raw, var);
    DopplerOptions o;
    o.range_blocks = blocks;
    o.poly_degree = degree;
    o.ambiguity = ambiguity;
    o.check = parse_doppler_check(check);
    if (azimuth != "linear" && azimuth != "circular")
      throw Error("--azimuth: expected linear or circular (got '" + azimuth + "')");
    o.circular = azimuth == "circular";
    const DopplerEstimate e = estimate_doppler(p.radar, data.view(), o);
    std::cout << format_doppler_table(e);
    if (e.low_confidence()) std::cerr << "sarfuse: warning: " << e.warning() << "\n";
    if (!json.empty()) write_text_file(json, doppler_to_json(e) + "\n");
  });
}

}  // namespace sarfuse::cli
