// sarfuse: radiometric and data corrections applied before (raw) and after (image) focusing.
#pragma once
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

// Multiplies line i by 10^(gain_db[i] / 20).
void apply_line_gains(ComplexImage& img, const std::vector<double>& gain_db);

// Range spreading loss: amplitude x (R / R_mid)^(3/2) per column (R the column's slant range, R_mid the
// swath centre's), the usual correction of the SLC's radiometry for a distributed scene.
void correct_range_spreading(ComplexImage& slc, const RadarParams& radar);

}  // namespace sarfuse
