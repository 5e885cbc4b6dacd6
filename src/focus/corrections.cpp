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
  if (first_line < 1) throw Error("--gain-first-line: expected a line number >= 1");
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
                " raw lines (--gain-first-line)");
  for (double g : all)
    if (!std::isfinite(g)) throw Error(path + ": non-finite gain");
  return {all.begin() + static_cast<std::ptrdiff_t>(first_line - 1),
          all.begin() + static_cast<std::ptrdiff_t>(first_line - 1 + lines)};
}

ComplexImage correct_raw(const RawView& raw, const RawCorrections& c, CorrectionStats* stats) {
  if (!c.gain_db.empty() && c.gain_db.size() != raw.lines)
    throw Error("gain correction: " + std::to_string(c.gain_db.size()) + " gains for " + std::to_string(raw.lines) + " lines");
  ComplexImage out(raw.lines, raw.samples);
  const std::size_t n = raw.lines * raw.samples;
  for (std::size_t i = 0; i < raw.lines; ++i) core::convert_row<float>(raw, i, out.row(i));
  CorrectionStats st;
  if (c.dc_offset || c.iq_balance) {
    double si = 0, sq = 0;
    for (std::size_t k = 0; k < n; ++k) {
      si += out.data()[k].real();
      sq += out.data()[k].imag();
    }
    if (c.dc_offset) {
      st.dc_i = si / static_cast<double>(n);
      st.dc_q = sq / static_cast<double>(n);
      const std::complex<float> dc(static_cast<float>(st.dc_i), static_cast<float>(st.dc_q));
      for (std::size_t k = 0; k < n; ++k) out.data()[k] -= dc;
    }
    double pi = 0, pq = 0;
    for (std::size_t k = 0; k < n; ++k) {
      pi += double(out.data()[k].real()) * out.data()[k].real();
      pq += double(out.data()[k].imag()) * out.data()[k].imag();
    }
    st.q_over_i = pi > 0 ? std::sqrt(pq / pi) : 1.0;
    if (c.iq_balance) {
      if (!(pq > 0)) throw Error("I/Q balance: the Q channel is zero");
      const float g = static_cast<float>(1.0 / st.q_over_i);
      for (std::size_t k = 0; k < n; ++k) out.data()[k] = {out.data()[k].real(), out.data()[k].imag() * g};
    }
  }
  if (!c.gain_db.empty()) {
    st.gain_db_min = *std::min_element(c.gain_db.begin(), c.gain_db.end());
    st.gain_db_max = *std::max_element(c.gain_db.begin(), c.gain_db.end());
    apply_line_gains(out, c.gain_db);
  }
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

void correct_range_spreading(ComplexImage& slc, const RadarParams& radar) {
  const double mid = radar.range_of_column(0.5 * (static_cast<double>(slc.samples()) - 1));
  std::vector<float> w(slc.samples());
  for (std::size_t j = 0; j < w.size(); ++j)
    w[j] = static_cast<float>(std::pow(radar.range_of_column(static_cast<double>(j)) / mid, 1.5));
  for (std::size_t i = 0; i < slc.lines(); ++i) {
    std::complex<float>* row = slc.row(i);
    for (std::size_t j = 0; j < w.size(); ++j) row[j] *= w[j];
  }
}

}  // namespace sarfuse
