// sarfuse: radiometric and data corrections applied before (raw) and after (image) focusing.
#pragma once
#include <complex>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

struct RawCorrections {
  std::vector<double> gain_db;  // per raw line, the receiver attenuation to undo (x 10^(dB/20)); empty: none
  bool dc_offset = false;       // subtract the mean of I and of Q
  bool iq_balance = false;      // scale Q to the RMS of I (gain imbalance)
  bool any() const { return !gain_db.empty() || dc_offset || iq_balance; }
};

struct CorrectionStats {
  double dc_i = 0, dc_q = 0;   // removed offsets (sample units)
  double q_over_i = 1;         // RMS ratio before balancing
  double gain_db_min = 0, gain_db_max = 0;
};

// Per-line gains (dB): a MATLAB file (RADARSAT's AGC_attenuation_values.mat: the first real vector)
// or a text file with one value per line; `lines` values from line `first_line` (1-based) of the file.
std::vector<double> read_gain_db(const std::string& path, std::size_t first_line, std::size_t lines);

// The raw data with the corrections applied, as complex64.
ComplexImage correct_raw(const RawView& raw, const RawCorrections& c, CorrectionStats* stats = nullptr);

// The same in pieces, for takes read block by block: the sums the DC offset and the I/Q balance need,
// accumulated over all lines, then the corrections applied to any lines.
struct RawMoments {
  double n = 0, sum_i = 0, sum_q = 0, sum_ii = 0, sum_qq = 0;
  void add(const RawView& lines);
  CorrectionStats stats(const RawCorrections& c) const;  // throws when I/Q balance finds no Q
};
// Lines [first_line, first_line + lines.lines) of the take (first_line indexes c.gain_db) as complex64.
void apply_raw_corrections(const RawView& lines, std::size_t first_line, const RawCorrections& c,
                           const CorrectionStats& stats, std::complex<float>* out);

// Multiplies line i by 10^(gain_db[i] / 20).
void apply_line_gains(ComplexImage& img, const std::vector<double>& gain_db);

// Range spreading loss: amplitude x (R / R_mid)^(3/2) per column (R the column's slant range, R_mid the
// swath centre's), the usual correction of the SLC's radiometry for a distributed scene.
void correct_range_spreading(ComplexImage& slc, const RadarParams& radar);
// Those factors, one per column.
std::vector<float> range_spreading_weights(const RadarParams& radar, std::size_t samples);

}  // namespace sarfuse
