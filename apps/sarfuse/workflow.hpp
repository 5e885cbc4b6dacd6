// Glue shared by sub-commands: file in -> plan -> focus -> product files out.
#pragma once
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>

#include "sarfuse/corrections.hpp"
#include "sarfuse/doppler.hpp"
#include "sarfuse/quality.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::cli {

inline bool stderr_is_terminal() { return ::isatty(2) == 1; }

inline void require_distinct(const std::string& input, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec1, ec2;
  if (fs::weakly_canonical(input, ec1) == fs::weakly_canonical(output, ec2))
    throw Error("output '" + output + "' is the input file; choose another output path");
}

struct FocusedProduct {
  ComplexImage slc;
  ProductGeometry geometry;
  StageTimes times;
  FocusOptions options;
  std::string notes;
};

// What `focus` does beyond plain focusing (all optional).
struct FocusExtras {
  std::optional<DopplerOptions> doppler;  // estimate the centroid from the data first
  ProductOptions product;                 // format by extension, detection, looks
  std::string gain_path;                  // per-line gains (dB) to undo
  std::size_t gain_first_line = 1;
  bool dc_offset = false, iq_balance = false, range_spreading = false;
  std::string report_path;                // processing report (JSON); also printed as a table
  std::optional<SceneParams> scene;       // targets to analyse in the report
};

// Reads raw samples, focuses them and writes the product (+ its .json sidecar, an optional PNG and
// report). Outputs are checked before any work, and written atomically after it.
inline FocusedProduct focus_file(const std::string& raw_path, const std::string& var, RadarParams radar,
                                 const FocusOptions& options, const std::string& out_path,
                                 const std::string& png_path, double png_range_db, const FocusExtras& x = {}) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  require_distinct(raw_path, out_path);
  check_product_path(out_path, x.product);
  if (!png_path.empty()) check_output_path(png_path);
  if (!x.report_path.empty()) check_output_path(x.report_path);
  const RadarParams given = radar;
  nlohmann::json report;
  const bool tty = stderr_is_terminal();
  if (tty) std::cerr << "sarfuse: reading " << raw_path << "\r" << std::flush;
  auto t = Clock::now();
  const RawData raw = read_raw(raw_path, var);
  report["timings_s"]["read"] = since(t);
  RawCorrections corr;
  if (!x.gain_path.empty()) corr.gain_db = read_gain_db(x.gain_path, x.gain_first_line, raw.lines);
  corr.dc_offset = x.dc_offset;
  corr.iq_balance = x.iq_balance;
  ComplexImage corrected;
  RawView view = raw.view();
  // The line gains go in after the Doppler estimate: the AGC evens the echo level along azimuth, and
  // undoing it first reweights the lines' correlations (on RADARSAT scene5 it moved the MLCC estimate
  // by two PRFs).
  std::vector<double> gains;
  std::swap(gains, corr.gain_db);
  if (corr.any() || !gains.empty()) {
    t = Clock::now();
    CorrectionStats st;
    corrected = correct_raw(view, corr, &st);
    if (!gains.empty()) {
      st.gain_db_min = *std::min_element(gains.begin(), gains.end());
      st.gain_db_max = *std::max_element(gains.begin(), gains.end());
    }
    view = view_of(corrected);
    report["timings_s"]["corrections"] = since(t);
    report["corrections"] = {{"gain_file", x.gain_path}, {"gain_first_line", x.gain_first_line},
                             {"gain_db_range", {st.gain_db_min, st.gain_db_max}}, {"dc_offset", x.dc_offset},
                             {"dc_i", st.dc_i}, {"dc_q", st.dc_q}, {"iq_balance", x.iq_balance},
                             {"q_over_i_rms", st.q_over_i}};
  }
  if (x.doppler) {
    DopplerOptions d = *x.doppler;
    d.threads = options.threads;
    t = Clock::now();
    const DopplerEstimate e = estimate_doppler(radar, view, d);
    report["timings_s"]["doppler_estimation"] = since(t);
    report["doppler_estimate"] = nlohmann::json::parse(doppler_to_json(e));
    if (!x.report_path.empty()) std::cout << format_doppler_table(e);
    std::cerr << "sarfuse: Doppler centroid estimated: " << e.centroid_hz << " Hz (ambiguity " << e.ambiguity
              << " from " << e.ambiguity_source << "; parameters file: " << radar.doppler_centroid_hz << " Hz)\n";
    radar = e.applied_to(radar);
  }
  if (!gains.empty()) apply_line_gains(corrected, gains);
  t = Clock::now();
  Plan plan = make_plan(radar, raw.lines, raw.samples, options);
  report["timings_s"]["plan"] = since(t);
  if (tty) std::cerr << "sarfuse: focusing " << raw.lines << " x " << raw.samples << " on " << to_string(plan.backend())
                     << " (" << plan.options().threads << " threads)...\r" << std::flush;
  FocusedProduct p;
  plan.focus(view, p.slc);
  if (x.range_spreading) correct_range_spreading(p.slc, radar);
  p.geometry = plan.geometry();
  p.times = plan.last_times();
  p.options = plan.options();
  p.notes = plan.notes();
  const std::string sidecar = product_sidecar_json(radar, p.options, p.geometry, raw.lines, raw.samples, raw_path);
  t = Clock::now();
  write_product(out_path, p.slc, x.product, sidecar);
  write_text_file(out_path + ".json", sidecar);
  if (!png_path.empty()) write_png(png_path, p.slc, png_range_db);
  report["timings_s"]["write"] = since(t);
  if (tty) std::cerr << "\33[2K\r" << std::flush;
  if (!x.report_path.empty()) {
    report["input"] = raw_path;
    report["output"] = out_path;
    report["parameters_given"] = nlohmann::json::parse(to_json_text(ParamsFile{given, std::nullopt}))["radar"];
    report["product"] = nlohmann::json::parse(sidecar);
    report["block_layout"] = {{"azimuth_processing", "one circular block"}, {"lines", raw.lines},
                              {"range_samples", raw.samples}, {"range_fft_size", plan.range_fft_size()}};
    report["timings_s"]["focus"] = {{"range_compression", p.times.range_compress}, {"azimuth_fft", p.times.azimuth_fft},
                                    {"range_doppler", p.times.range_doppler}, {"azimuth_ifft", p.times.azimuth_ifft},
                                    {"total", p.times.total}};
    double power = 0, peak = 0;
    for (std::size_t k = 0; k < p.slc.size(); ++k) {
      const double q = std::norm(p.slc.data()[k]);
      power += q;
      peak = std::max(peak, q);
    }
    report["output_statistics"] = {{"mean_power", power / static_cast<double>(p.slc.size())},
                                   {"peak_amplitude", std::sqrt(peak)},
                                   {"intensity_contrast", intensity_contrast(p.slc)}};
    if (x.scene && !x.scene->targets.empty()) {
      const auto q = analyze_targets(p.slc, radar, x.scene->targets);
      report["point_targets"] = nlohmann::json::parse(quality_to_json(q))["targets"];
      std::cout << format_quality_table(q);
    }
    write_text_file(x.report_path, report.dump(2) + "\n");
    std::printf("processing report %s: read %.3f s, focus %.3f s (%s), write %.3f s; mean power %.4g, contrast %.3f\n",
                x.report_path.c_str(), report["timings_s"]["read"].get<double>(), p.times.total,
                to_string(plan.backend()), report["timings_s"]["write"].get<double>(), power / p.slc.size(),
                report["output_statistics"]["intensity_contrast"].get<double>());
  }
  return p;
}

}  // namespace sarfuse::cli
