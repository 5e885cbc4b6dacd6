// Filter and table definitions shared by every backend. All computed in float64; a backend rounds
// to its working precision only at the end, so phases near 1e8 rad are never formed in float32.
#pragma once
#include <bit>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/geometry.hpp"  // SARFUSE_HD
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
  double weight = 0;         // azimuth window x 1/Na (0 outside the processed band); with a range-dependent
                             // band: 1/Na when some column of the row is inside it, else 0
  double band_x = 0;         // (f_eta - band centre) / processed bandwidth
};

// The azimuth filter of a plan: one DopplerRow per azimuth bin, and, when the Doppler centroid varies
// over the swath, the per-column position of the processed band.
//
// A range-dependent centroid f_dc(R) moves the processed band with the column. Every bin keeps ONE
// absolute Doppler (the alias nearest the centre of the swath's centroid range) for all columns: the
// processed bandwidth is at most PRF - (max f_dc - min f_dc), so no column's band reaches another
// alias of the bin, and the SRC (one filter per row, applied over range frequency), the RCMC and the
// azimuth phase of each row are exact for every column whose band contains the bin. Only the window
// weight varies along the row: W((f_eta - f_dc(R_j)) / B) = W(band_x - column_shift[j]).
struct AzimuthFilter {
  std::vector<DopplerRow> rows;
  double bandwidth_hz = 0;        // processed
  double centre_hz = 0;           // band centre at mid swath (the alias reference)
  double centroid_spread_hz = 0;  // max - min of f_dc over the swath
  std::vector<double> column_shift;  // (f_dc(R_j) - centre) / bandwidth; empty: the centroid is constant
  std::vector<double> window;        // W(x) at x = -1/2 + i / kWindowIntervals, i = 0 .. kWindowIntervals
  std::string note;                  // set when the requested bandwidth was reduced
  static constexpr int kWindowIntervals = 4096;
};

AzimuthFilter azimuth_filter(const RadarParams& radar, std::size_t lines, std::size_t samples, bool src_on,
                             const Window& azimuth_window, double azimuth_bandwidth_hz);

// Window weight at x from a table of intervals + 1 samples over [-1/2, 1/2], linearly interpolated
// (4096 intervals: within 2e-7 of the window for Hamming and Kaiser); 0 outside.
template <class F>
SARFUSE_HD inline F window_lerp(const F* table, int intervals, F x) {
  if (!(x >= F(-0.5) && x <= F(0.5))) return F(0);
  const F pos = (x + F(0.5)) * static_cast<F>(intervals);
  int i = static_cast<int>(pos);
  i = i < intervals - 1 ? i : intervals - 1;
  const F t = pos - static_cast<F>(i);
  return table[i] + t * (table[i + 1] - table[i]);
}

// 4 pi r D / lambda modulo 2 pi, exact in float64 although the phase itself reaches 1e8 rad.
double azimuth_phase_mod_2pi(double r, double d_minus_one, double wavelength);

// Windowed-sinc interpolation kernels tabulated at `fractions` sub-sample positions.
// Row r (fraction r / fractions) holds taps weights for input offsets -taps/2+1 .. taps/2 from
// floor(position); each row sums to 1. Backends blend the two rows around a fraction linearly: the
// kernel then varies continuously with the position, so the RCMC's response is a smooth function of
// Doppler (a nearest-row lookup makes it a staircase, whose steps put long tails on the azimuth
// impulse response and make two azimuth grids, e.g. two block lengths, disagree at 3e-5).
struct SincTable {
  int taps = 8;
  int fractions = 1024;
  std::vector<double> weights;  // (fractions + 1) x taps
};
// Row index and blend factor of fraction `frac` in [0, 1]: weights = row[r] + t (row[r + 1] - row[r]).
template <class F>
SARFUSE_HD inline int sinc_row_blend(F frac, int fractions, F& t) {
  const F pos = frac * static_cast<F>(fractions);
  int r = static_cast<int>(pos);
  r = r < fractions - 1 ? r : fractions - 1;
  t = pos - static_cast<F>(r);
  return r;
}
// 1024 fractions: blended, within 4.2e-7 of the kernel at any position (unit test), and the GPU's FP32
// copy (32 KB at 8 taps) stays in L1 beside pass 3's row (docs/performance.md, "Pass 3").
SincTable make_sinc_table(int taps, int fractions = 1024, double kaiser_beta = 2.5);

// The GPU's form of the table: its weights in FP32, quad-major: plane q holds taps 4q..4q+3 of every row
// as one float4 a row (row r's at float 4 (q (fractions + 1) + r)), taps past the last zero. A warp's
// lanes, whose fractions differ, then read 16 bytes a row apart instead of 32, fewer L1 lines a load
// (docs/performance.md, "Pass 3's spills and the quad-major sinc table"). A blended weight is
// w_r + t (w_{r+1} - w_r), the difference taken in FP32 at the point of use: storing the differences
// too doubled the table to 128 KB, which did not stay in L1 beside the RCMC's row (docs/performance.md,
// "Pass 3: the RCMC's sinc table and the points a thread").
std::vector<float> sinc_table_fp32(const SincTable& table);

// Positions along a row in 32.32 fixed point (samples x 2^32). The floor and the fraction are exact
// bit fields, and a walk p, p + s, p + 2 s, ... is exact integer adds: the GPU's RCMC steps through a
// thread's outputs that way instead of forming each position in float64 and rounding its fraction.
SARFUSE_HD inline std::int64_t fixed_position(double p) {
#ifdef __CUDA_ARCH__
  return __double2ll_rn(p * 4294967296.0);
#else
  return std::llrint(p * 4294967296.0);
#endif
}
SARFUSE_HD inline int fixed_floor(std::int64_t p) { return static_cast<int>(p >> 32); }
// bits x 2^-32 from the top 23 bits: an exponent-0 float built from them, minus 1.
SARFUSE_HD inline float unit_fraction(std::uint32_t bits) {
  const std::uint32_t f = 0x3f800000u | (bits >> 9);
#ifdef __CUDA_ARCH__
  return __uint_as_float(f) - 1.0f;
#else
  return std::bit_cast<float>(f) - 1.0f;
#endif
}
// sinc_row_blend of a fixed-point position's fraction: r = floor(fraction x fractions) from the high
// word of the 32 x 32-bit product, the blend t from its low word (to 2^-23 of a row step).
SARFUSE_HD inline int fixed_row_blend(std::int64_t p, int fractions, float& t) {
  const std::uint64_t x = static_cast<std::uint64_t>(static_cast<std::uint32_t>(p)) * static_cast<std::uint32_t>(fractions);
  t = unit_fraction(static_cast<std::uint32_t>(x));
  return static_cast<int>(x >> 32);
}

}  // namespace sarfuse::core
