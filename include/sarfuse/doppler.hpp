// sarfuse: Doppler centroid estimation from the raw data.
//   Fractional part: phase of the azimuth lag-1 correlation (ACCC) of the range-compressed data, per
//   range block, unwrapped across blocks and fitted with a low-order polynomial in slant range.
//   Ambiguity number: multilook cross correlation (MLCC): the same correlation in the upper and the
//   lower half of the range band; the Doppler scales with the carrier of each look, so their phase
//   difference measures the absolute centroid (coarsely, but well within +-PRF/2).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

struct DopplerOptions {
  int range_blocks = 16;
  int poly_degree = 1;             // of the fractional centroid vs slant range
  std::optional<int> ambiguity;    // force the ambiguity number (else MLCC)
  int threads = 0;                 // 0: all cores
};

struct DopplerEstimate {
  double centroid_hz = 0;           // absolute, at mid-swath
  double fractional_hz = 0;         // the same folded into [-PRF/2, PRF/2)
  int ambiguity = 0;                // centroid = unwrapped fraction + ambiguity x PRF
  double mlcc_centroid_hz = 0;      // the MLCC estimate of the absolute centroid (unrounded)
  std::string ambiguity_source;     // "mlcc" or "forced"
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
};

// Estimates the Doppler centroid of raw data (lines x samples of any sample type).
DopplerEstimate estimate_doppler(const RadarParams& radar, const RawView& raw, const DopplerOptions& options = {});

std::string doppler_to_json(const DopplerEstimate& e, int indent = 2);
std::string format_doppler_table(const DopplerEstimate& e);

}  // namespace sarfuse
