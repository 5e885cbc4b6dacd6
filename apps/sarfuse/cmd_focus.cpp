#include <iostream>
#include <optional>

#include "commands.hpp"
#include "focus_options.hpp"
#include "workflow.hpp"

namespace sarfuse::cli {

void add_focus(CLI::App& app) {
  auto* cmd = app.add_subcommand("focus", "focus raw data into a single-look complex image (Range-Doppler)");
  static std::string raw, params, out, var, png;
  static double png_range = 50;
  static std::optional<double> doppler;
  static std::string doppler_mode, detect = "none", multilook = "1x1", gain, report;
  static std::size_t gain_first_line = 1;
  static bool dc_offset = false, iq_balance = false, range_spreading = false;
  static std::optional<int> doppler_ambiguity;
  static FocusArgs args;
  cmd->add_option("raw", raw, "raw data (.npy or .mat)")->required();
  cmd->add_option("--params", params, "radar parameters (JSON)")->required();
  cmd->add_option("-o,--output", out, "product: .npy, .tif (GeoTIFF) or .h5 (HDF5); a .json sidecar is written beside it")
      ->required();
  cmd->add_option("--var", var, "variable name in a .mat file");
  cmd->add_option("--doppler-centroid", doppler, "absolute Doppler centroid (Hz), overriding the parameters file");
  cmd->add_option("--doppler", doppler_mode, "auto: estimate the Doppler centroid from the data (ACCC + MLCC)");
  cmd->add_option("--doppler-ambiguity", doppler_ambiguity, "with --doppler auto: force the ambiguity number");
  cmd->add_option("--detect", detect, "none (complex SLC), amplitude, intensity or db")->capture_default_str();
  cmd->add_option("--multilook", multilook, "looks AZxRG for detected products, e.g. 4x1")->capture_default_str();
  cmd->add_option("--gain-db", gain, "per-line receiver gains (dB) to undo: RADARSAT AGC .mat or a text column");
  cmd->add_option("--gain-first-line", gain_first_line, "line of the gain file for raw line 0 (1-based)")
      ->capture_default_str();
  cmd->add_flag("--dc-offset", dc_offset, "remove the I/Q DC offset");
  cmd->add_flag("--iq-balance", iq_balance, "correct the I/Q gain imbalance");
  cmd->add_flag("--range-spreading", range_spreading, "correct the range spreading loss (off by default)");
  cmd->add_option("--report", report, "processing report (JSON; also printed)");
  cmd->add_option("--png", png, "quicklook PNG");
  cmd->add_option("--png-range-db", png_range, "quicklook dynamic range (dB)")->capture_default_str();
  args.add_to(cmd);
  cmd->callback([] {
    ParamsFile p = load_params(params);
    if (doppler) {
      if (!std::isfinite(*doppler)) throw Error("--doppler-centroid: expected a finite frequency in Hz (got " +
                                                std::to_string(*doppler) + ")");
      p.radar.doppler_centroid_hz = *doppler;
      validate(p.radar, "--doppler-centroid");
    }
    FocusExtras x;
    if (!doppler_mode.empty()) {
      if (doppler_mode != "auto") throw Error("--doppler: expected auto (got '" + doppler_mode + "')");
      if (doppler) throw Error("--doppler auto and --doppler-centroid exclude each other");
      x.doppler = DopplerOptions{};
      x.doppler->ambiguity = doppler_ambiguity;
    } else if (doppler_ambiguity) {
      throw Error("--doppler-ambiguity applies with --doppler auto");
    }
    ProductOptions& product = x.product;
    product.detect = parse_detection(detect);
    {
      const auto x = multilook.find('x');
      try {
        if (x == std::string::npos) throw std::invalid_argument(multilook);
        product.looks_azimuth = std::stoul(multilook.substr(0, x));
        product.looks_range = std::stoul(multilook.substr(x + 1));
      } catch (const std::exception&) {
        throw Error("--multilook: expected AZxRG looks such as 4x1 (got '" + multilook + "')");
      }
    }
    x.gain_path = gain;
    x.gain_first_line = gain_first_line;
    x.dc_offset = dc_offset;
    x.iq_balance = iq_balance;
    x.range_spreading = range_spreading;
    x.report_path = report;
    x.scene = p.scene;
    const FocusOptions o = args.resolve();
    args.resolve_azimuth(x);
    const FocusedProduct r = focus_file(raw, var, p.radar, o, out, png, png_range, x);
    if (!r.notes.empty()) std::cerr << "sarfuse: note: " << r.notes;
    std::cout << "wrote " << out << " (" << r.rows << " x " << r.samples << "; azimuth: " << r.layout << ") in "
              << r.times.total << " s\n";
  });
}

}  // namespace sarfuse::cli
