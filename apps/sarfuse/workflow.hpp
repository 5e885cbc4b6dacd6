// Glue shared by sub-commands: file in -> plan -> focus -> product files out.
#pragma once
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

#include "sarfuse/blocks.hpp"
#include "sarfuse/corrections.hpp"
#include "sarfuse/doppler.hpp"
#include "sarfuse/quality.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"
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
  ComplexImage slc;  // the product in memory: kept for the demo's analysis and a report's targets only
  std::size_t rows = 0, samples = 0;
  ProductGeometry geometry;
  StageTimes times;
  FocusOptions options;
  std::string notes;
  std::string layout;  // azimuth processing, one line
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
  bool circular = false;                  // --azimuth circular: the take as one circular block
  std::size_t block_lines = 0;            // linear: 0 = from the memory budgets
  std::size_t max_memory_bytes = 0;       // linear: host budget (0: none)
  bool keep_image = false;                // return the product in FocusedProduct::slc
};

// Reads raw samples block by block, focuses them and writes the product (+ its .json sidecar, an
// optional PNG and report) row by row. Outputs are checked before any work and appear only complete.
inline FocusedProduct focus_file(const std::string& raw_path, const std::string& var, RadarParams radar,
                                 const FocusOptions& options, const std::string& out_path,
                                 const std::string& png_path, double png_range_db, const FocusExtras& x = {}) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  require_distinct(raw_path, out_path);
  check_product_path(out_path, x.product);
  if (!png_path.empty()) check_output_path(png_path);
  if (!x.report_path.empty()) check_output_path(x.report_path);
  if (!png_path.empty() && !(png_range_db > 0)) throw Error("--png-range-db: expected a positive number of dB");
  const RadarParams given = radar;
  nlohmann::json report;
  const bool tty = stderr_is_terminal();
  if (tty) std::cerr << "sarfuse: reading " << raw_path << "\r" << std::flush;
  auto t = Clock::now();
  const std::unique_ptr<RawFile> file = RawFile::open(raw_path, var);
  const std::size_t lines = file->lines(), samples = file->samples();
  const std::size_t line_bytes = samples * bytes_per_sample(file->type());
  validate_shape(radar, lines, samples, raw_path);
  report["timings_s"]["open"] = since(t);
  // Native lines of the file, `count` from `first`, through a reusable buffer.
  AlignedBuffer<std::byte> native;
  auto read_native = [&](std::size_t first, std::size_t count) {
    if (native.size() < count * line_bytes) native.resize(count * line_bytes);
    file->read(first, count, native.data());
    return RawView{file->type(), native.data(), count, samples};
  };
  constexpr std::size_t kChunk = 256;  // lines per read: a stop request is seen within one

  RawCorrections corr;
  if (!x.gain_path.empty()) corr.gain_db = read_gain_db(x.gain_path, x.gain_first_line, lines);
  corr.dc_offset = x.dc_offset;
  corr.iq_balance = x.iq_balance;
  CorrectionStats stats;
  if (corr.dc_offset || corr.iq_balance) {
    t = Clock::now();
    RawMoments m;
    for (std::size_t first = 0; first < lines; first += kChunk, throw_if_interrupted()) m.add(read_native(first, std::min(kChunk, lines - first)));
    stats = m.stats(corr);
    report["timings_s"]["correction_statistics"] = since(t);
  } else {
    stats = RawMoments{}.stats(corr);
  }
  if (corr.any())
    report["corrections"] = {{"gain_file", x.gain_path}, {"gain_first_line", x.gain_first_line},
                             {"gain_db_range", {stats.gain_db_min, stats.gain_db_max}}, {"dc_offset", x.dc_offset},
                             {"dc_i", stats.dc_i}, {"dc_q", stats.dc_q}, {"iq_balance", x.iq_balance},
                             {"q_over_i_rms", stats.q_over_i}};
  if (x.doppler) {
    // On up to kDopplerLines lines from the middle of the take, corrected but for the line gains: the
    // AGC evens the echo level along azimuth, and undoing it first reweights the lines' correlations
    // (on RADARSAT scene5 it moved the MLCC estimate by two PRFs).
    constexpr std::size_t kDopplerLines = 8192;
    const std::size_t n = std::min(lines, kDopplerLines), first = (lines - n) / 2;
    RawCorrections no_gains = corr;
    no_gains.gain_db.clear();
    ComplexImage window(n, samples);
    for (std::size_t k = 0; k < n; k += kChunk) {
      const std::size_t c = std::min(kChunk, n - k);
      apply_raw_corrections(read_native(first + k, c), 0, no_gains, stats, window.row(k));
    }
    DopplerOptions d = *x.doppler;
    d.threads = options.threads;
    t = Clock::now();
    const DopplerEstimate e = estimate_doppler(radar, view_of(window), d);
    report["timings_s"]["doppler_estimation"] = since(t);
    report["doppler_estimate"] = nlohmann::json::parse(doppler_to_json(e));
    report["doppler_estimate"]["lines_used"] = {first, first + n};
    if (!x.report_path.empty()) std::cout << format_doppler_table(e);
    std::cerr << "sarfuse: Doppler centroid estimated: " << e.centroid_hz << " Hz (ambiguity " << e.ambiguity
              << " from " << e.ambiguity_source << "; parameters file: " << radar.doppler_centroid_hz << " Hz)\n";
    radar = e.applied_to(radar);
  }
  // Raw lines in, corrected, as complex64.
  auto read_lines = [&](std::size_t first, std::size_t count, std::complex<float>* dst) {
    for (std::size_t k = 0; k < count; k += kChunk) {
      throw_if_interrupted();
      const std::size_t c = std::min(kChunk, count - k);
      apply_raw_corrections(read_native(first + k, c), first + k, corr, stats, dst + k * samples);
    }
  };

  t = Clock::now();
  BlockLayout layout;
  std::optional<Plan> plan;
  FocusedProduct p;
  if (x.circular) {
    plan.emplace(make_plan(radar, lines, samples, options));
    p.rows = lines;
    p.layout = "one circular block of " + std::to_string(lines) + " lines (--azimuth circular)";
  } else {
    try {
      plan_azimuth_blocks(radar, lines, samples, options);  // the take itself: long enough?
    } catch (const Error& e) {
      throw Error(raw_path + ": " + e.what());
    }
    const std::size_t block =
        x.block_lines ? x.block_lines
                      : block_lines_for_memory(radar, lines, samples, options, x.max_memory_bytes,
                                               options.max_gpu_memory_bytes);
    layout = plan_azimuth_blocks(radar, lines, samples, options, block);
    plan.emplace(make_block_plan(radar, samples, options, layout));
    p.rows = layout.rows;
    p.layout = layout.to_string();
  }
  report["timings_s"]["plan"] = since(t);
  p.samples = samples;
  p.geometry = plan->geometry();
  if (!x.circular) {
    p.geometry.eta_first_s = layout.eta_first_s;
    p.geometry.azimuth_processing = "linear";
  }
  p.options = plan->options();
  p.notes = plan->notes();
  const std::string sidecar = product_sidecar_json(radar, p.options, p.geometry, p.rows, samples, raw_path);

  // Product rows out: range spreading, statistics, quicklook, the product file, the kept image.
  ProductWriter writer(out_path, p.rows, samples, x.product, sidecar);
  std::optional<Quicklook> quicklook;
  if (!png_path.empty()) quicklook.emplace(p.rows, samples);
  const bool keep = x.keep_image;
  if (keep) p.slc = ComplexImage(p.rows, samples);
  // The report's point targets: a window around each target's expected position, kept as the rows go
  // by (the product itself is never held).
  constexpr long kHalfWindow = 64;
  struct TargetWindow {
    long row0 = 0, col0 = 0;
    ComplexImage image;
  };
  std::vector<TargetWindow> windows;
  if (x.scene && !x.report_path.empty())
    for (const Target& tg : x.scene->targets) {
      const long row = std::lround((tg.azimuth_time_s - p.geometry.eta_first_s) * radar.prf_hz);
      const long col = std::lround((tg.range_m - radar.near_range_m) / radar.range_spacing_m());
      TargetWindow w;
      w.row0 = std::clamp(row - kHalfWindow, 0L, std::max(0L, static_cast<long>(p.rows) - 2 * kHalfWindow - 1));
      w.col0 = std::clamp(col - kHalfWindow, 0L, std::max(0L, static_cast<long>(samples) - 2 * kHalfWindow - 1));
      w.image = ComplexImage(std::min<std::size_t>(2 * kHalfWindow + 1, p.rows),
                             std::min<std::size_t>(2 * kHalfWindow + 1, samples));
      windows.push_back(std::move(w));
    }
  std::vector<float> spreading;
  if (x.range_spreading) spreading = range_spreading_weights(radar, samples);
  double power = 0, power2 = 0, peak = 0;
  std::size_t written = 0;
  std::vector<std::complex<float>> scratch;
  auto write_rows = [&](const std::complex<float>* rows, std::size_t count) {
    if (!spreading.empty()) {
      scratch.assign(rows, rows + count * samples);
      for (std::size_t k = 0; k < scratch.size(); ++k) scratch[k] *= spreading[k % samples];
      rows = scratch.data();
    }
    for (std::size_t k = 0; k < count * samples; ++k) {
      const double q = std::norm(std::complex<double>(rows[k]));
      power += q;
      power2 += q * q;
      peak = std::max(peak, q);
    }
    writer.write_rows(rows, count);
    if (quicklook) quicklook->add_rows(rows, count);
    if (keep) std::copy(rows, rows + count * samples, p.slc.row(written));
    for (TargetWindow& w : windows)
      for (std::size_t k = 0; k < count; ++k) {
        const long g = static_cast<long>(written + k) - w.row0;
        if (g >= 0 && g < static_cast<long>(w.image.lines()))
          std::copy_n(rows + k * samples + w.col0, w.image.samples(), w.image.row(static_cast<std::size_t>(g)));
      }
    written += count;
  };
  if (tty) std::cerr << "sarfuse: focusing " << lines << " x " << samples << " on " << to_string(plan->backend())
                     << " (" << plan->options().threads << " threads)...\r" << std::flush;
  t = Clock::now();
  if (x.circular) {
    ComplexImage raw(lines, samples), slc;
    read_lines(0, lines, raw.data());
    plan->focus(view_of(raw), slc);
    p.times = plan->last_times();
    write_rows(slc.data(), lines);
  } else {
    focus_in_blocks(*plan, layout, read_lines, write_rows, &p.times);
  }
  const double wall = since(t);
  t = Clock::now();
  writer.commit();
  write_text_file(out_path + ".json", sidecar);
  if (quicklook) quicklook->write(png_path, png_range_db);
  report["timings_s"]["write_commit"] = since(t);
  if (tty) std::cerr << "\33[2K\r" << std::flush;
  if (!x.report_path.empty()) {
    const double n = static_cast<double>(p.rows * samples), mean = power / n;
    report["input"] = raw_path;
    report["output"] = out_path;
    report["parameters_given"] = nlohmann::json::parse(to_json_text(ParamsFile{given, std::nullopt}))["radar"];
    report["product"] = nlohmann::json::parse(sidecar);
    report["block_layout"] = {{"azimuth_processing", x.circular ? "circular" : "linear"}, {"summary", p.layout},
                              {"lines", lines}, {"range_samples", samples}, {"product_rows", p.rows},
                              {"range_fft_size", plan->range_fft_size()}, {"input_streamed", file->streamed()}};
    if (!x.circular)
      report["block_layout"].update({{"block_lines", layout.block_lines}, {"blocks", layout.blocks},
                                     {"rows_per_block", layout.step}, {"support_lines", layout.support_lines},
                                     {"processed_bandwidth_hz", layout.bandwidth_hz},
                                     {"eta_first_s", layout.eta_first_s}});
    report["timings_s"]["focus"] = {{"range_compression", p.times.range_compress}, {"azimuth_fft", p.times.azimuth_fft},
                                    {"range_doppler", p.times.range_doppler}, {"azimuth_ifft", p.times.azimuth_ifft},
                                    {"total", p.times.total}, {"wall_with_io", wall}};
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    report["peak_host_memory_bytes"] = static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux: ru_maxrss in KiB
    report["output_statistics"] = {{"mean_power", mean}, {"peak_amplitude", std::sqrt(peak)},
                                   {"intensity_contrast", std::sqrt(std::max(0.0, power2 / n - mean * mean)) / mean}};
    if (x.scene && !x.scene->targets.empty()) {
      std::vector<TargetQuality> q;
      for (std::size_t i = 0; i < windows.size(); ++i) {  // each target in its window's own geometry
        AnalysisOptions ao;
        ao.eta_first_s = p.geometry.eta_first_s + static_cast<double>(windows[i].row0) / radar.prf_hz;
        RadarParams local = radar;
        local.near_range_m = radar.range_of_column(static_cast<double>(windows[i].col0));
        TargetQuality t = analyze_targets(windows[i].image, local, {x.scene->targets[i]}, ao).front();
        t.index = static_cast<int>(i);
        t.expected_row += static_cast<double>(windows[i].row0);  // back to product pixels
        t.row += static_cast<double>(windows[i].row0);
        t.expected_col += static_cast<double>(windows[i].col0);
        t.col += static_cast<double>(windows[i].col0);
        q.push_back(t);
      }
      report["point_targets"] = nlohmann::json::parse(quality_to_json(q))["targets"];
      std::cout << format_quality_table(q);
    }
    write_text_file(x.report_path, report.dump(2) + "\n");
    std::printf("processing report %s: focus %.3f s (%s), wall %.3f s; mean power %.4g, contrast %.3f\n",
                x.report_path.c_str(), p.times.total, to_string(plan->backend()), wall, mean,
                report["output_statistics"]["intensity_contrast"].get<double>());
  }
  return p;
}

}  // namespace sarfuse::cli
