// Filter and table definitions shared by every backend. All computed in float64; a backend rounds
// to its working precision only at the end, so phases near 1e8 rad are never formed in float32.
#pragma once
#include <complex>
#include <cstddef>
#include <vector>

#include "sarfuse/params.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::core {

// Replica sample n (time n/fs from the echo centre): exp(j pi K t^2), unit amplitude.
std::complex<double> replica_sample(const RadarParams& radar, int n);

// Range matched filter over an nfft-point range spectrum: conj(FFT(replica)) x window(f / B) / nfft
// (the 1/nfft of the range IFFT is folded in here). Window none: no band limit.
std::vector<std::complex<double>> range_matched_filter(const RadarParams& radar, std::size_t nfft,
                                                       const Window& window);

// Constants of one Doppler row of the range-Doppler pass. Column j of the row (output range
// R0_j = near + j dr) reads the range-compressed row at position rcmc_offset + rcmc_slope * j,
// and is multiplied by the azimuth filter weight * exp(j (4 pi R0_j D(f) / lambda + pi/4)), whose phase is
// linear in j: az_phase0 + az_phase_step * j (both reduced modulo 2 pi in float64).
struct DopplerRow {
  double f_eta = 0;          // absolute Doppler of the bin (Hz)
  double rcmc_offset = 0;    // columns
  double rcmc_slope = 1;     // 1/D(f)
  double src_inverse_rate = 0;  // 1/K_src (s^2): SRC filter exp(-j pi f_r^2 src_inverse_rate); 0 = off
  double az_phase0 = 0;      // 4 pi near D / lambda (mod 2 pi) + pi/4
  double az_phase_step = 0;  // 4 pi dr D / lambda    (mod 2 pi)
  double weight = 0;         // azimuth window x 1/Na (0 outside the processed band)
};

std::vector<DopplerRow> doppler_rows(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                     bool src_on, const Window& azimuth_window, double azimuth_bandwidth_hz);

// 4 pi r D / lambda modulo 2 pi, exact in float64 although the phase itself reaches 1e8 rad.
double azimuth_phase_mod_2pi(double r, double d_minus_one, double wavelength);

// Windowed-sinc interpolation kernels tabulated at `fractions` sub-sample positions.
// Row r (fraction r / fractions) holds taps weights for input offsets -taps/2+1 .. taps/2 from
// floor(position); each row sums to 1.
struct SincTable {
  int taps = 8;
  int fractions = 2048;
  std::vector<double> weights;  // (fractions + 1) x taps
  const double* row_for(double frac) const {
    const int r = static_cast<int>(frac * fractions + 0.5);
    return weights.data() + static_cast<std::size_t>(r) * taps;
  }
};
SincTable make_sinc_table(int taps, int fractions = 2048, double kaiser_beta = 2.5);

}  // namespace sarfuse::core
