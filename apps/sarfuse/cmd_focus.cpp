#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <tuple>

#include "commands.hpp"
#include "focus_command.hpp"
#include "progress_line.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::cli {

void FocusCommand::add_to(CLI::App* cmd) {
  cmd->add_option("raw", inputs, "raw data (.npy or .mat, or a Sentinel-1 Level-0 .SAFE / .dat); several with --output-dir")->required();
  cmd->add_option("--params", params, "radar parameters (JSON; Level-0 input: taken from its packets when absent)");
  cmd->add_option("-o,--output", output, "product: .npy, .tif (GeoTIFF) or .h5 (HDF5); a .json sidecar is written beside it");
  cmd->add_option("--output-dir", output_dir, "several inputs: each product as DIR/<input name>.<--format>");
  cmd->add_option("--format", format, "with --output-dir: npy, tif or h5")->capture_default_str();
  cmd->add_option("--var", var, "variable name in a .mat file");
  cmd->add_option("--orbit", orbit, "Sentinel-1 Level-0 input: a precise orbit file (*_POEORB_*.EOF) instead of the packets' PVT");
  cmd->add_option("--polarization", polarization, "Sentinel-1 Level-0 input: VV, VH, HH or HV (needed when it has several)");
  cmd->add_option("--doppler-centroid", doppler, "absolute Doppler centroid (Hz), overriding the parameters file");
  cmd->add_option("--doppler", doppler_mode, "auto: estimate the Doppler centroid from the data (ACCC; ambiguity by MLCC, MLBF and, when unsure, the sharpest patch focus)");
  cmd->add_option("--doppler-ambiguity", doppler_ambiguity, "with --doppler auto: force the ambiguity number");
  cmd->add_option("--doppler-check", doppler_check,
                  "with --doppler auto: focus a patch per candidate ambiguity and keep the sharpest: auto (when the "
                  "estimators disagree or are unsure), always or never")
      ->capture_default_str();
  cmd->add_option("--detect", detect, "none (complex SLC), amplitude, intensity or db")->capture_default_str();
  cmd->add_option("--multilook", multilook, "looks AZxRG for detected products, e.g. 4x1")->capture_default_str();
  cmd->add_option("--sample-format", sample_format, "complex64, complex32 (IEEE half pairs) or cint16 (scaled)")
      ->capture_default_str();
  cmd->add_option("--compression", compression,
                  "h5 / tif: auto (h5 fast, tif none), none, fast or best (h5: shuffle + deflate, planes coded by "
                  "their entropy, in parallel; tif: deflate 1 or 9)")
      ->capture_default_str();
  cmd->add_option("--mantissa-bits", mantissa_bits, "round float samples to N mantissa bits (1..23) before compressing");
  cmd->add_option("--gain-db", gain, "per-line receiver gains (dB) to undo: RADARSAT AGC .mat or a text column");
  cmd->add_option("--gain-first-line", gain_first_line, "line of the gain file for raw line 0 (1-based)")
      ->capture_default_str();
  cmd->add_flag("--dc-offset", dc_offset, "remove the I/Q DC offset");
  cmd->add_flag("--iq-balance", iq_balance, "correct the I/Q gain imbalance");
  cmd->add_flag("--range-spreading", range_spreading, "correct the range spreading loss (off by default)");
  cmd->add_option("--report", report, "processing report (JSON; also printed)");
  cmd->add_option("--png", png, "quicklook PNG (amplitude, clipped at --png-clip percent)");
  cmd->add_option("--png-clip", png_clip, "quicklook: amplitude percentile shown white")->capture_default_str();
  cmd->add_option("--png-range-db", png_range, "quicklook in dB instead: this dynamic range below the peak");
  cmd->add_option("--png-incidence", png_incidence, "quicklook: incidence angle (deg) for square ground pixels")
      ->capture_default_str();
  cmd->add_flag("--no-overlap", no_overlap, "read, focus and write one after another (the same product; for timing)");
  args.add_to(cmd);
}

std::vector<FocusRequest> FocusCommand::requests() const {
  // Sentinel-1 Level-0 input carries its radar parameters (the Doppler centroid then estimated).
  const bool from_packets = params.empty() && !params_json;
  if (!orbit.empty() && !from_packets) throw Error("--orbit applies to Sentinel-1 Level-0 input without --params");
  if (from_packets)
    for (const std::string& in : inputs)
      if (!sentinel1::is_level0_path(in))
        throw Error("--params: required (the radar parameters JSON; only Sentinel-1 Level-0 input carries its own)");
  ParamsFile p;
  if (!from_packets) p = params_json ? parse_params(*params_json, "params") : load_params(params);
  if (doppler && !std::isfinite(*doppler))
    throw Error("--doppler-centroid: expected a finite frequency in Hz (got " + std::to_string(*doppler) + ")");
  auto radar_of = [&](const std::string& input) {
    RadarParams r = p.radar;
    if (from_packets) {
      sentinel1::DecodeOptions o;
      o.polarisation = polarization;
      r = sentinel1::radar_parameters(input, o, orbit);
    }
    if (doppler) {
      r.doppler_centroid_hz = *doppler;
      validate(r, "--doppler-centroid");
    }
    return r;
  };
  FocusRequest q;
  q.scene = p.scene;
  q.variable = var;
  q.polarisation = polarization;
  if (from_packets && doppler_mode.empty() && !doppler) {
    q.doppler = DopplerOptions{};
    q.doppler->ambiguity = doppler_ambiguity;
    q.doppler->check = parse_doppler_check(doppler_check);
  } else if (!doppler_mode.empty()) {
    if (doppler_mode != "auto") throw Error("--doppler: expected auto (got '" + doppler_mode + "')");
    if (doppler) throw Error("--doppler auto and --doppler-centroid exclude each other");
    q.doppler = DopplerOptions{};
    q.doppler->ambiguity = doppler_ambiguity;
    q.doppler->check = parse_doppler_check(doppler_check);
  } else if (doppler_ambiguity) {
    throw Error("--doppler-ambiguity applies with --doppler auto");
  } else if (doppler_check != "auto") {
    throw Error("--doppler-check applies with --doppler auto");
  }
  ProductOptions& product = q.product;
  product.detect = parse_detection(detect);
  std::tie(product.looks_azimuth, product.looks_range) = parse_size_pair(multilook, "--multilook", "AZxRG looks such as 4x1");
  product.sample_format = parse_sample_format(sample_format);
  product.compression = parse_compression(compression);
  product.mantissa_bits = mantissa_bits;
  product.threads = args.threads;
  q.gain_path = gain;
  q.gain_first_line = gain_first_line;
  q.dc_offset = dc_offset;
  q.iq_balance = iq_balance;
  q.range_spreading = range_spreading;
  q.report_path = report;
  q.png = png;
  q.quicklook.clip_percentile = png_clip;
  q.quicklook.incidence_deg = png_incidence;
  if (png_range) {
    q.quicklook.scale = QuicklookOptions::Scale::db;
    q.quicklook.dynamic_range_db = *png_range;
  }
  q.options = args.resolve();
  args.resolve_azimuth(q);
  q.overlap = !no_overlap;

  std::vector<FocusRequest> out;
  if (output_dir.empty()) {
    if (output.empty()) throw Error("-o/--output: required (or --output-dir for several inputs)");
    if (inputs.size() != 1) throw Error("several inputs need --output-dir DIR (each product DIR/<name>.<--format>)");
    q.input = inputs[0];
    q.radar = radar_of(q.input);
    q.output = output;
    out.push_back(q);
    return out;
  }
  if (!output.empty()) throw Error("-o/--output and --output-dir exclude each other");
  if (!png.empty() || !report.empty()) throw Error("--png and --report take one input; with --output-dir, focus them one by one");
  if (format != "npy" && format != "tif" && format != "h5") throw Error("--format: expected npy, tif or h5 (got '" + format + "')");
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(output_dir, ec)) throw FileError("--output-dir '" + output_dir + "': no such folder");
  for (const std::string& in : inputs) {
    FocusRequest r = q;
    r.input = in;
    r.radar = radar_of(in);
    r.output = (fs::path(output_dir) / (fs::path(in).stem().string() + "." + format)).string();
    for (const FocusRequest& o : out)
      if (o.output == r.output) throw Error("inputs '" + o.input + "' and '" + in + "' would both become '" + r.output + "'");
    check_product_path(r.output, r.product);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<FocusReport> FocusCommand::run(bool print) const {
  std::vector<FocusRequest> list = requests();
  for (FocusRequest& q : list) q.release_gpu_when_focused = print && process_ends_after_command();
  auto owned = std::make_unique<FocusSession>();
  std::optional<ProgressLine> progress;
  if (print && ::isatty(2) == 1) progress.emplace(list.size());
  for (std::size_t k = 0; k < list.size() && progress; ++k)
    list[k].progress = [&progress, k](std::size_t done, std::size_t rows) { progress->update(k, done, rows); };
  std::vector<FocusReport> reports = owned->focus_all(list);
  if (progress) progress->finish();
  for (std::size_t k = 0; k < reports.size() && print; ++k) {
    const FocusRequest& q = list[k];
    const FocusReport& rep = reports[k];
    if (rep.doppler) {
      if (!q.report_path.empty()) std::cout << format_doppler_table(*rep.doppler);
      std::cerr << "sarfuse: Doppler centroid estimated: " << rep.doppler->centroid_hz << " Hz (ambiguity "
                << rep.doppler->ambiguity << " from " << rep.doppler->ambiguity_source << ", confidence "
                << rep.doppler->confidence << "; parameters file: " << q.radar.doppler_centroid_hz << " Hz)\n";
      if (rep.doppler->low_confidence()) std::cerr << "sarfuse: warning: " << rep.doppler->warning() << "\n";
    }
    if (!rep.notes.empty()) std::cerr << "sarfuse: note: " << rep.notes;
    if (!q.report_path.empty()) {
      std::cout << rep.target_table;
      std::printf("processing report %s: focus %.3f s (%s), wall %.3f s; mean power %.4g, contrast %.3f\n",
                  q.report_path.c_str(), rep.timings.focus.total, to_string(rep.options.backend), rep.timings.wall,
                  rep.mean_power, rep.intensity_contrast);
    }
    std::cout << "wrote " << rep.output << " (" << rep.rows << " x " << rep.samples << "; azimuth: " << rep.layout
              << ") in " << rep.timings.wall << " s (focus " << rep.timings.focus.total << " s)\n";
  }
  if (print && !reports.empty() && leave_state_to_exit())
    (void)owned.release();  // the executable's exit frees it (main.cpp): the plans' memory, the GPU's state
  return reports;
}

std::vector<std::string> focus_command_reports(const std::vector<std::string>& argv, const std::optional<std::string>& params_json) {
  CLI::App app{"sarfuse focus"};
  FocusCommand c;
  c.params_json = params_json;
  c.add_to(&app);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw Error(std::string("focus_file: ") + e.what());
  }
  std::vector<std::string> out;
  for (const FocusReport& r : c.run(false)) out.push_back(r.report_json);
  return out;
}

void add_focus(CLI::App& app) {
  auto* cmd = app.add_subcommand("focus", "focus raw data into a single-look complex image (Range-Doppler)");
  static FocusCommand command;
  command.add_to(cmd);
  cmd->callback([] { command.run(true); });
}

}  // namespace sarfuse::cli
