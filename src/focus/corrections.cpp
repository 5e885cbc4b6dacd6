#include "sarfuse/corrections.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/raw_rows.hpp"
#include "io/mat.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse {

std::vector<double> read_gain_db(const std::string& path, std::size_t first_line, std::size_t lines) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw FileError(path + ": no such file");
  if (first_line < 1) throw Error("gain_first_line: expected a line number >= 1");
  std::vector<double> all;
  if (std::filesystem::path(path).extension() == ".mat") {
    all = io::read_mat_real_vector(path, "");
  } else {
    std::ifstream in(path);
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
      std::istringstream s(line);
      double v;
      if (!(s >> v) || !std::isfinite(v)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
        throw Error(path + ": line " + std::to_string(n) + ": expected a gain in dB (got '" + line + "')");
      }
      all.push_back(v);
    }
  }
  if (first_line - 1 + lines > all.size())
    throw Error(path + ": " + std::to_string(all.size()) + " gains; lines " + std::to_string(first_line) + ".." +
                std::to_string(first_line - 1 + lines) + " are needed for the " + std::to_string(lines) +
                " raw lines (gain_first_line)");
  for (double g : all)
    if (!std::isfinite(g)) throw Error(path + ": non-finite gain");
  return {all.begin() + static_cast<std::ptrdiff_t>(first_line - 1),
          all.begin() + static_cast<std::ptrdiff_t>(first_line - 1 + lines)};
}

void RawMoments::add(const RawView& v) {
  std::vector<std::complex<float>> row(v.samples);
  for (std::size_t i = 0; i < v.lines; ++i) {
    core::convert_row<float>(v, i, row.data());
    for (const auto& x : row) {
      sum_i += x.real();
      sum_q += x.imag();
      sum_ii += double(x.real()) * x.real();
      sum_qq += double(x.imag()) * x.imag();
    }
  }
  n += static_cast<double>(v.lines * v.samples);
}

CorrectionStats RawMoments::stats(const RawCorrections& c) const {
  CorrectionStats st;
  if (!c.gain_db.empty()) {
    st.gain_db_min = *std::min_element(c.gain_db.begin(), c.gain_db.end());
    st.gain_db_max = *std::max_element(c.gain_db.begin(), c.gain_db.end());
  }
  if (!(c.dc_offset || c.iq_balance) || n == 0) return st;
  const double mi = sum_i / n, mq = sum_q / n;
  if (c.dc_offset) {
    st.dc_i = mi;
    st.dc_q = mq;
  }
  // Channel powers after the offset removal (when asked for).
  const double pi = sum_ii - (c.dc_offset ? n * mi * mi : 0.0), pq = sum_qq - (c.dc_offset ? n * mq * mq : 0.0);
  st.q_over_i = pi > 0 ? std::sqrt(std::max(pq, 0.0) / pi) : 1.0;
  if (c.iq_balance && !(pq > 0)) throw Error("I/Q balance: the Q channel is zero");
  return st;
}

void apply_raw_corrections(const RawView& v, std::size_t first_line, const RawCorrections& c,
                           const CorrectionStats& st, std::complex<float>* out) {
  if (!c.gain_db.empty() && first_line + v.lines > c.gain_db.size())
    throw Error("gain correction: " + std::to_string(c.gain_db.size()) + " gains for lines up to " +
                std::to_string(first_line + v.lines));
  const std::complex<float> dc(static_cast<float>(st.dc_i), static_cast<float>(st.dc_q));
  const float q_gain = c.iq_balance ? static_cast<float>(1.0 / st.q_over_i) : 1.0f;
  for (std::size_t i = 0; i < v.lines; ++i) {
    std::complex<float>* r = out + i * v.samples;
    core::convert_row<float>(v, i, r);
    const float g = c.gain_db.empty() ? 1.0f : static_cast<float>(std::pow(10.0, c.gain_db[first_line + i] / 20.0));
    for (std::size_t j = 0; j < v.samples; ++j) {
      const std::complex<float> x = r[j] - dc;
      r[j] = std::complex<float>(x.real(), x.imag() * q_gain) * g;
    }
  }
}

ComplexImage correct_raw(const RawView& raw, const RawCorrections& c, CorrectionStats* stats) {
  if (!c.gain_db.empty() && c.gain_db.size() != raw.lines)
    throw Error("gain correction: " + std::to_string(c.gain_db.size()) + " gains for " + std::to_string(raw.lines) + " lines");
  RawMoments m;
  if (c.dc_offset || c.iq_balance) m.add(raw);
  const CorrectionStats st = m.stats(c);
  ComplexImage out(raw.lines, raw.samples);
  apply_raw_corrections(raw, 0, c, st, out.data());
  if (stats) *stats = st;
  return out;
}

void apply_line_gains(ComplexImage& img, const std::vector<double>& gain_db) {
  if (gain_db.size() != img.lines())
    throw Error("gain correction: " + std::to_string(gain_db.size()) + " gains for " + std::to_string(img.lines()) + " lines");
  for (std::size_t i = 0; i < img.lines(); ++i) {
    const float g = static_cast<float>(std::pow(10.0, gain_db[i] / 20.0));
    std::complex<float>* row = img.row(i);
    for (std::size_t j = 0; j < img.samples(); ++j) row[j] *= g;
  }
}

std::vector<float> range_spreading_weights(const RadarParams& radar, std::size_t samples) {
  const double mid = radar.range_of_column(0.5 * (static_cast<double>(samples) - 1));
  std::vector<float> w(samples);
  for (std::size_t j = 0; j < w.size(); ++j)
    w[j] = static_cast<float>(std::pow(radar.range_of_column(static_cast<double>(j)) / mid, 1.5));
  return w;
}

void correct_range_spreading(ComplexImage& slc, const RadarParams& radar) {
  const std::vector<float> w = range_spreading_weights(radar, slc.samples());
  for (std::size_t i = 0; i < slc.lines(); ++i) {
    std::complex<float>* row = slc.row(i);
    for (std::size_t j = 0; j < w.size(); ++j) row[j] *= w[j];
  }
}

}  // namespace sarfuse
