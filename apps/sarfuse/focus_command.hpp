// `sarfuse focus`: its options, the library requests they make, and the run (shared with Python's
// sarfuse.focus_file, which passes the same option names).
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "focus_options.hpp"
#include "sarfuse/focus_file.hpp"

namespace sarfuse::cli {

struct FocusCommand {
  std::vector<std::string> inputs;
  std::string params, output, output_dir, format = "npy", var, polarization, orbit, png, report;
  std::optional<std::string> params_json;  // Python: the parameters as JSON text instead of a file
  double png_clip = 99.0, png_incidence = 35.0;
  std::optional<double> png_range;
  std::optional<double> doppler;
  std::string doppler_mode, detect = "none", multilook = "1x1", gain, sample_format = "complex64",
                            compression = "auto";
  int mantissa_bits = 0;
  std::size_t gain_first_line = 1;
  bool dc_offset = false, iq_balance = false, range_spreading = false, no_overlap = false;
  std::optional<int> doppler_ambiguity;
  std::string doppler_check = "auto";
  FocusArgs args;

  void add_to(CLI::App* cmd);
  std::vector<FocusRequest> requests() const;
  // Focuses every request in one session; print: the CLI's messages, tables and progress line.
  std::vector<FocusReport> run(bool print) const;
};

// The focus command's options as argv (without "sarfuse focus"), run without printing: one report
// (JSON) per product.
std::vector<std::string> focus_command_reports(const std::vector<std::string>& argv,
                                               const std::optional<std::string>& params_json);

}  // namespace sarfuse::cli
