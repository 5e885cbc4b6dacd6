// The pieces of the Doppler centroid estimator (sarfuse/doppler.hpp): the correlations measured from
// the data, and the sharpness check's patch.
#pragma once
#include <complex>
#include <cstddef>
#include <vector>

#include "sarfuse/doppler.hpp"

namespace sarfuse::doppler {

using cd = std::complex<double>;

// Correlation sums over one group of consecutive lines (or several groups added up).
struct Sums {
  std::vector<cd> block_accc;       // per range block: lag-1 azimuth correlation, both looks
  std::vector<double> block_power;  // per range block: mean power of the pairs' samples, summed
  cd upper{0, 0}, lower{0, 0};      // each look's lag-1 correlation over the swath (MLCC)
  cd beat{0, 0};                    // the looks' beat correlated at the MLBF lag
  explicit Sums(int blocks = 0) : block_accc(blocks), block_power(blocks) {}
  Sums& operator+=(const Sums& o);
  Sums& operator-=(const Sums& o);
};

struct Correlations {
  std::vector<Sums> groups;  // one per line group, for the jackknife
  Sums total;
  std::vector<double> block_range_m;  // range of each block's centre
  std::vector<std::size_t> block_first_column;  // block b: columns [first[b], first[b + 1]); one extra entry
  double look_separation_hz = 0;      // centre of the upper look minus centre of the lower one
  int lag = 1;                        // MLBF lag, lines
  std::size_t lines_used = 0;
};

// Range-compresses up to options.max_lines lines (groups of consecutive lines spread over the take) and
// splits each into the upper and the lower half of the chirp band, as two images at half the rate.
Correlations measure_correlations(const RadarParams& radar, const RawView& raw, const DopplerOptions& options);

// A window of the raw data the check focuses: centred in azimuth, long enough for the product's
// processing to give rows; in range the brightest `columns` (the replica plus at least 512 columns).
struct Patch {
  std::size_t first_line = 0, first_column = 0;
  ComplexImage raw;
  RadarParams radar;  // near range moved to the patch's first column
};
Patch choose_patch(const RadarParams& radar, const RawView& raw, const Correlations& c, const DopplerOptions& options);

// Intensity contrast of the patch focused with `radar`'s centroid, over its fully compressed columns.
// Circular (the ambiguity's candidates): the whole patch as one circular block, so that every target's
// energy is in the image whatever the centroid (a centroid one PRF away moves the beam centre, and so
// a linear product's rows, by most of an aperture). Linear (the fraction's refinement): as the
// product is focused, over the rows whose zero-Doppler time lies in [eta_from, eta_to], the same rows
// for every centroid tried.
double patch_sharpness(const Patch& patch, const RadarParams& radar, const DopplerOptions& options, bool circular,
                       double eta_from = 0, double eta_to = 0);
// Zero-Doppler times [first, last] of the rows a linear focus of the patch gives with `radar`'s
// centroid; empty (first > last) when the patch is shorter than the support.
std::pair<double, double> patch_rows_span(const Patch& patch, const RadarParams& radar, const DopplerOptions& options);

}  // namespace sarfuse::doppler
