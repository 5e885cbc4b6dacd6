// Glue shared by sub-commands: file in -> plan -> focus -> product files out.
#pragma once
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>

#include "sarfuse/doppler.hpp"
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

// Reads raw samples, focuses them and writes the SLC (+ its .json sidecar and an optional PNG).
// Outputs are checked before any work, and written atomically after it.
// With `doppler`, the Doppler centroid is estimated from the data first (and printed).
inline FocusedProduct focus_file(const std::string& raw_path, const std::string& var, RadarParams radar,
                                 const FocusOptions& options, const std::string& out_path,
                                 const std::string& png_path, double png_range_db,
                                 const std::optional<DopplerOptions>& doppler = std::nullopt,
                                 const ProductOptions& product = {}) {
  require_distinct(raw_path, out_path);
  check_product_path(out_path, product);
  if (!png_path.empty()) check_output_path(png_path);
  const bool tty = stderr_is_terminal();
  if (tty) std::cerr << "sarfuse: reading " << raw_path << "\r" << std::flush;
  const RawData raw = read_raw(raw_path, var);
  if (doppler) {
    DopplerOptions d = *doppler;
    d.threads = options.threads;
    const DopplerEstimate e = estimate_doppler(radar, raw.view(), d);
    std::cerr << "sarfuse: Doppler centroid estimated: " << e.centroid_hz << " Hz (ambiguity " << e.ambiguity
              << " from " << e.ambiguity_source << "; parameters file: " << radar.doppler_centroid_hz << " Hz)\n";
    radar.doppler_centroid_hz = e.centroid_hz;
  }
  Plan plan = make_plan(radar, raw.lines, raw.samples, options);
  if (tty) std::cerr << "sarfuse: focusing " << raw.lines << " x " << raw.samples << " on " << to_string(plan.backend())
                     << " (" << plan.options().threads << " threads)...\r" << std::flush;
  FocusedProduct p;
  plan.focus(raw.view(), p.slc);
  p.geometry = plan.geometry();
  p.times = plan.last_times();
  p.options = plan.options();
  p.notes = plan.notes();
  const std::string sidecar = product_sidecar_json(radar, p.options, p.geometry, raw.lines, raw.samples, raw_path);
  write_product(out_path, p.slc, product, sidecar);
  write_text_file(out_path + ".json", sidecar);
  if (!png_path.empty()) write_png(png_path, p.slc, png_range_db);
  if (tty) std::cerr << "\33[2K\r" << std::flush;
  return p;
}

}  // namespace sarfuse::cli
