// sarfuse: impulse-response (point-target) analysis and image comparison.
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

struct CutMetrics {
  double width_bins = 0;   // 3 dB width in pixels
  double width_m = 0;      // in metres (range: slant; azimuth: along track, V/PRF per line)
  double pslr_db = 0;      // peak sidelobe ratio
  double islr_db = 0;      // sidelobes out to 10 first-null distances vs main lobe (between nulls)
  double null_distance_bins = 0;  // distance from the peak to the first null (mean of both sides)
};

struct TargetQuality {
  int index = 0;                    // target number in the scene, or peak rank
  bool has_expected = false;
  double expected_row = 0, expected_col = 0;  // geometric position (pixels)
  double row = 0, col = 0;          // measured sub-pixel peak
  double row_error = 0, col_error = 0;  // measured - expected (pixels; azimuth wrapped to +-Na/2)
  double azimuth_error_m = 0, range_error_m = 0;
  double peak_amplitude = 0;
  double peak_phase_rad = 0;
  double snr_db = 0;
  CutMetrics range, azimuth;
};

struct AnalysisOptions {
  int upsample = 16;
  int search_radius = 8;     // pixels around the expected position searched for the peak
  double eta_first_s = std::numeric_limits<double>::quiet_NaN();  // default: -Na/(2 PRF)
};

// Analyses each scene target at its geometric position.
std::vector<TargetQuality> analyze_targets(const ComplexImage& slc, const RadarParams& radar,
                                           const std::vector<Target>& targets,
                                           const AnalysisOptions& options = {});
// Analyses the n brightest isolated peaks (no expected position).
std::vector<TargetQuality> analyze_peaks(const ComplexImage& slc, const RadarParams& radar, int n,
                                         const AnalysisOptions& options = {});

// Mean |x|^2 over the pixels away from the given peaks (their rows and columns excluded, where the
// sidelobes of a separable response lie).
double noise_power(const ComplexImage& slc, const std::vector<TargetQuality>& peaks, int guard = 16);

// ||a - b|| / ||b||
double relative_l2(const ComplexImage& a, const ComplexImage& b);
// std/mean of |x|^2: a focus sharpness measure.
double intensity_contrast(const ComplexImage& img);
// The same over columns [first_column, last_column) (all columns when the range is empty).
double intensity_contrast(const ComplexImage& img, std::size_t first_column, std::size_t last_column);

std::string format_quality_table(const std::vector<TargetQuality>& q);
std::string quality_to_json(const std::vector<TargetQuality>& q, int indent = 2);

}  // namespace sarfuse
