// sarfuse: Doppler centroid estimation from the raw data (docs/design.md "Doppler estimation").
//   Fractional part: phase of the azimuth lag-1 correlation (ACCC) of the range-compressed data per
//   range block, weighted by its coherence, unwrapped across blocks to the scene's phase and fitted
//   with a low-order polynomial in slant range; its standard error by the jackknife over line groups.
//   Ambiguity number, two estimators: multilook cross correlation (MLCC: the ACCC phase difference
//   between the upper and the lower half of the range band) and multilook beat frequency (MLBF: the
//   azimuth frequency of the beat between the two looks' images, measured at a lag of several lines).
//   Both measure the absolute centroid through the carrier's scaling of the Doppler, coarsely but
//   each with its own error. Where they disagree, where either may round to the wrong ambiguity, or
//   where the fraction itself is uncertain, a decisive check focuses a patch of the data (the product's
//   own processing, on the CPU) for each candidate ambiguity and keeps the sharpest by intensity
//   contrast; the fraction is then refined to the sharpest within +-0.15 PRF.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

enum class DopplerCheck { when_unsure, always, never };

struct DopplerOptions {
  int range_blocks = 16;
  int poly_degree = 1;             // of the fractional centroid vs slant range
  std::optional<int> ambiguity;    // force the ambiguity number (no estimators' vote, no check)
  int threads = 0;                 // 0: all cores
  std::size_t max_lines = 8192;    // lines the correlations use: the centred run of lines, in 16 groups
  DopplerCheck check = DopplerCheck::when_unsure;
  // The check focuses its patches as the product will be focused: these options (run on the CPU)
  // and this azimuth processing.
  FocusOptions focus;
  bool circular = false;
};

struct DopplerEstimate {
  double centroid_hz = 0;           // absolute, at mid-swath
  double fractional_hz = 0;         // the same folded into [-PRF/2, PRF/2)
  int ambiguity = 0;                // centroid = unwrapped fraction + ambiguity x PRF
  double fractional_sigma_hz = 0;   // standard error of the ACCC fraction at mid-swath
  double accc_fractional_hz = 0;    // the ACCC fraction at mid-swath before any refinement
  bool refined = false;             // the fraction was moved to the sharpest focus by the check
  double mlcc_centroid_hz = 0, mlcc_sigma_hz = 0;  // absolute centroid by MLCC, its standard error
  double mlbf_centroid_hz = 0, mlbf_sigma_hz = 0;  // absolute centroid by MLBF, its standard error
  int mlbf_lag = 1;                 // lines between the beat samples MLBF correlates
  // "forced", "mlcc+mlbf" (both agree and neither is near a rounding edge), or "sharpness" (the check).
  std::string ambiguity_source;
  // In [0, 1]; below 0.5 the estimate is reported as unsure. Without the check: 1 - 50 x the
  // probability, from the estimators' standard errors, that they round to a wrong ambiguity (0.5 at
  // 1 %, where the check would have run). With it: the winner's sharpness margin over the runner-up,
  // 10 % or more counting as 1. Forced: 1.
  double confidence = 0;
  bool low_confidence() const { return confidence < 0.5; }
  struct Candidate {
    int ambiguity = 0;
    double centroid_hz = 0;
    double sharpness = 0;       // intensity contrast of the patch focused with this centroid
    std::string proposed_by;    // "mlcc", "mlbf", "mlcc+mlbf" or "neighbour"
  };
  std::vector<Candidate> candidates;  // what the check compared (empty when it did not run)
  struct Patch {
    std::size_t first_line = 0, lines = 0, first_column = 0, columns = 0;
    int focuses = 0;           // patch focuses the check ran (candidates and refinement)
    double seconds = 0;        // the check's wall time
  } patch;
  // Absolute centroid vs slant range: sum_i poly[i] ((r - range_ref_m) / range_scale_m)^i.
  std::vector<double> poly;
  double range_ref_m = 0, range_scale_m = 1;
  struct Block {
    double range_m = 0;       // block centre
    double fractional_hz = 0; // ACCC phase x PRF / 2 pi, unwrapped across blocks
    double coherence = 0;     // |ACCC| / power: 1 = a pure tone, 0 = noise
  };
  std::vector<Block> blocks;
  double at_range(double r) const;
  // The radar parameters with this centroid: doppler_centroid_hz at range_ref_m and the polynomial's
  // range dependence as doppler_centroid_range_coefficients (Hz/m^i).
  RadarParams applied_to(RadarParams radar) const;
  // One paragraph for the user when the estimate is unsure (empty otherwise): the alternatives and
  // how to force one.
  std::string warning() const;
};

// Estimates the Doppler centroid of raw data (lines x samples of any sample type).
DopplerEstimate estimate_doppler(const RadarParams& radar, const RawView& raw, const DopplerOptions& options = {});

std::string doppler_to_json(const DopplerEstimate& e, int indent = 2);
std::string format_doppler_table(const DopplerEstimate& e);
const char* to_string(DopplerCheck c);
DopplerCheck parse_doppler_check(const std::string& s);  // "auto" (when unsure), "always", "never"

}  // namespace sarfuse
