// Impulse-response analysis of point targets. Everything is band-limited interpolation in float64:
// a patch is upsampled by zero-padding its spectrum (about the spectrum's own centre, so squinted
// images whose azimuth spectrum straddles the folding frequency are handled), and each cut is taken
// exactly through the sub-pixel peak before being upsampled itself.
#include <algorithm>
#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/fft.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/quality.hpp"

namespace sarfuse {

namespace {

using cd = std::complex<double>;

long wrap(long i, long n) {
  long r = i % n;
  return r < 0 ? r + n : r;
}

// The SLC as the analysis sees it. The azimuth filter multiplies column j by exp(j 4 pi R0_j / lambda)
// (R0_j: the column's range), which remodulates the range spectrum to the carrier folded into
// [-fs/2, fs/2). Undoing that per column gives the natural signal, whose phase near a target is
// flat (phase_rad - 4 pi R0 / lambda) and whose range spectrum is at baseband: then band-limited
// interpolation to a sub-pixel peak is exact, and the target's own exp(-j 4 pi R0 / lambda) is
// removed afterwards with its known (or measured) range.
// Likewise in azimuth: the focused response of a squinted scene is modulated by its absolute Doppler
// centroid, exp(j 2 pi f_dc eta), of which a sampled image keeps only the alias. Demodulating rows by
// exp(-j 2 pi f_dc i / PRF) (i continuous across the circular wrap: the band-limited image is
// periodic) and remodulating at the peak keeps the phase exact whatever the ambiguity number.
struct View {
  const ComplexImage& img;
  std::vector<cd> demod;  // exp(-j 4 pi R0_j / lambda)
  double doppler_cycles_per_line;  // f_dc / PRF
  View(const ComplexImage& image, const RadarParams& radar)
      : img(image), demod(image.samples()), doppler_cycles_per_line(radar.doppler_centroid_hz / radar.prf_hz) {
    const double k = 4.0 * M_PI / radar.wavelength_m();
    for (std::size_t j = 0; j < demod.size(); ++j)
      demod[j] = std::polar(1.0, -std::fmod(k * radar.range_of_column(static_cast<double>(j)), 2.0 * M_PI));
  }
  // exp(j 2 pi f_dc row / PRF) for a continuous row coordinate.
  cd azimuth_carrier(double row) const {
    const double cycles = doppler_cycles_per_line * row;
    return std::polar(1.0, 2.0 * M_PI * (cycles - std::floor(cycles)));
  }
};

// Pixel (i, j) with rows circular (the azimuth block is circular) and zero outside the range record,
// demodulated in range and azimuth.
cd pixel(const View& v, long i, long j) {
  if (j < 0 || j >= static_cast<long>(v.img.samples())) return 0.0;
  return cd(v.img(static_cast<std::size_t>(wrap(i, static_cast<long>(v.img.lines()))), static_cast<std::size_t>(j))) *
         v.demod[static_cast<std::size_t>(j)] * std::conj(v.azimuth_carrier(static_cast<double>(i)));
}

// exp(+j 4 pi r / lambda), exact in float64.
cd carrier(const RadarParams& radar, double r) {
  return std::polar(1.0, std::fmod(4.0 * M_PI * r / radar.wavelength_m(), 2.0 * M_PI));
}

void fft_many(std::vector<cd>& a, int n, int batch, int stride, int dist, core::FftDirection dir) {
  core::FftPlan<double> p({n, batch, stride, dist}, dir, a.data(), a.data(), FftPlanning::estimate);
  p.execute(a.data(), a.data());
}

// Centre of a spectrum's energy (circular mean), as a signed bin in [-n/2, n/2]: zero-padding goes
// where there is no signal, and the band is taken as the alias nearest 0 (a centre of n-1 must mean
// -1, not +1 cycle per sample less one bin).
int spectral_centre(const std::vector<double>& energy) {
  const int n = static_cast<int>(energy.size());
  cd s = 0;
  for (int k = 0; k < n; ++k) s += energy[k] * std::polar(1.0, 2.0 * M_PI * k / n);
  return static_cast<int>(std::lround(std::arg(s) * n / (2.0 * M_PI)));
}

// Representative frequency (in bins) of bin k for a spectrum centred at c: c + [-n/2, n/2).
int centred_bin(int k, int c, int n) {
  const int d = static_cast<int>(wrap(k - c + n / 2, n)) - n / 2;
  return c + d;
}

// 2-D upsampling of a rows x cols patch by u (spectral zero-padding).
std::vector<cd> upsample_2d(const std::vector<cd>& patch, int rows, int cols, int u) {
  std::vector<cd> spec = patch;
  fft_many(spec, cols, rows, 1, cols, core::FftDirection::forward);
  fft_many(spec, rows, cols, cols, 1, core::FftDirection::forward);
  std::vector<double> er(rows, 0.0), ec(cols, 0.0);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      er[i] += std::norm(spec[i * cols + j]);
      ec[j] += std::norm(spec[i * cols + j]);
    }
  const int cr = spectral_centre(er), cc = spectral_centre(ec);
  const int R = rows * u, C = cols * u;
  std::vector<cd> big(static_cast<std::size_t>(R) * C, 0.0);
  const double scale = 1.0 / (static_cast<double>(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      big[wrap(centred_bin(i, cr, rows), R) * C + wrap(centred_bin(j, cc, cols), C)] = spec[i * cols + j] * scale;
  fft_many(big, C, R, 1, C, core::FftDirection::inverse);
  fft_many(big, R, C, C, 1, core::FftDirection::inverse);
  return big;
}

// 1-D upsampling by u.
std::vector<cd> upsample_1d(const std::vector<cd>& x, int u) {
  const int n = static_cast<int>(x.size());
  std::vector<cd> spec = x;
  fft_many(spec, n, 1, 1, n, core::FftDirection::forward);
  std::vector<double> e(n);
  for (int k = 0; k < n; ++k) e[k] = std::norm(spec[k]);
  const int c = spectral_centre(e);
  std::vector<cd> big(static_cast<std::size_t>(n) * u, 0.0);
  for (int k = 0; k < n; ++k) big[wrap(centred_bin(k, c, n), n * u)] = spec[k] / static_cast<double>(n);
  fft_many(big, n * u, 1, 1, n * u, core::FftDirection::inverse);
  return big;
}

// Weights w_n such that sum_n w_n x_n is the band-limited value at fractional position t of an
// n-sample segment whose spectrum is centred at bin c.
std::vector<cd> interpolation_weights(int n, int c, double t) {
  std::vector<cd> w(n);
  for (int m = 0; m < n; ++m) {
    cd s = 0;
    for (int k = 0; k < n; ++k) s += std::polar(1.0, 2.0 * M_PI * centred_bin(k, c, n) * (t - m) / n);
    w[m] = s / static_cast<double>(n);
  }
  return w;
}

int next_pow2(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

struct Peak {
  double row, col;
  cd value;
};

// Band-limited value at the fractional position (row, col), from the 64 x 64 pixels around it: the
// peak's phase must be read at the refined position, not at the nearest upsampled sample (with a
// squinted spectrum the phase turns by 2 pi f_dc/PRF per pixel).
cd value_at(const View& img, double row, double col) {
  const int M = 64;
  const long i0 = static_cast<long>(std::floor(row)) - M / 2 + 1, j0 = static_cast<long>(std::floor(col)) - M / 2 + 1;
  std::vector<cd> block(M * M);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) block[i * M + j] = pixel(img, i0 + i, j0 + j);
  std::vector<cd> spec = block;
  fft_many(spec, M, M, 1, M, core::FftDirection::forward);
  fft_many(spec, M, M, M, 1, core::FftDirection::forward);
  std::vector<double> er(M, 0.0), ec(M, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
      er[i] += std::norm(spec[i * M + j]);
      ec[j] += std::norm(spec[i * M + j]);
    }
  const std::vector<cd> wr = interpolation_weights(M, spectral_centre(er), row - static_cast<double>(i0));
  const std::vector<cd> wc = interpolation_weights(M, spectral_centre(ec), col - static_cast<double>(j0));
  cd v = 0;
  for (int i = 0; i < M; ++i) {
    cd r = 0;
    for (int j = 0; j < M; ++j) r += wc[j] * block[i * M + j];
    v += wr[i] * r;
  }
  return v;
}

// Sub-pixel peak by 2-D upsampling of a patch around the integer peak, refined by a parabola.
Peak locate_peak(const View& img, long r0, long c0, int u) {
  const int P = 32;
  std::vector<cd> patch(P * P);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) patch[i * P + j] = pixel(img, r0 - P / 2 + i, c0 - P / 2 + j);
  const std::vector<cd> up = upsample_2d(patch, P, P, u);
  const int N = P * u;
  // The integer peak sits at patch (P/2, P/2): search one pixel around it.
  int bi = 0, bj = 0;
  double best = -1;
  for (int i = (P / 2 - 1) * u; i <= (P / 2 + 1) * u; ++i)
    for (int j = (P / 2 - 1) * u; j <= (P / 2 + 1) * u; ++j)
      if (std::norm(up[i * N + j]) > best) {
        best = std::norm(up[i * N + j]);
        bi = i;
        bj = j;
      }
  auto mag = [&](int i, int j) { return std::abs(up[wrap(i, N) * N + wrap(j, N)]); };
  auto vertex = [](double ym, double y0, double yp) {
    const double den = ym - 2 * y0 + yp;
    return den < 0 ? std::clamp(0.5 * (ym - yp) / den, -0.5, 0.5) : 0.0;
  };
  const double di = vertex(mag(bi - 1, bj), mag(bi, bj), mag(bi + 1, bj));
  const double dj = vertex(mag(bi, bj - 1), mag(bi, bj), mag(bi, bj + 1));
  Peak p;
  p.row = static_cast<double>(r0 - P / 2) + (bi + di) / u;
  p.col = static_cast<double>(c0 - P / 2) + (bj + dj) / u;
  // Polish on the band-limited function itself: parabolas through exact values, shrinking steps.
  for (double h = 1.0 / u; h > 1e-4; h /= 8) {
    const double a0 = std::abs(value_at(img, p.row, p.col));
    p.row += h * vertex(std::abs(value_at(img, p.row - h, p.col)), a0, std::abs(value_at(img, p.row + h, p.col)));
    const double b0 = std::abs(value_at(img, p.row, p.col));
    p.col += h * vertex(std::abs(value_at(img, p.row, p.col - h)), b0, std::abs(value_at(img, p.row, p.col + h)));
  }
  p.value = value_at(img, p.row, p.col) * img.azimuth_carrier(p.row);
  return p;
}

// Cut through the exact sub-pixel peak along one axis, `len` pixels long, upsampled by u.
// along_range: the cut runs along columns at fractional row peak.row.
std::vector<cd> cut_through(const View& img, const Peak& pk, bool along_range, int len, int u) {
  const int M = 64;  // samples across the cut used to interpolate to the peak's fractional position
  const long across0 = static_cast<long>(std::floor(along_range ? pk.row : pk.col)) - M / 2 + 1;
  const long along0 = static_cast<long>(std::lround(along_range ? pk.col : pk.row)) - len / 2;
  auto at = [&](long across, long along) {
    return along_range ? pixel(img, across, along) : pixel(img, along, across);
  };
  // Spectral centre of the across-cut direction, from the block's energy.
  std::vector<cd> seg(M);
  std::vector<double> energy(M, 0.0);
  for (int a = 0; a < len; a += std::max(1, len / 32)) {
    for (int m = 0; m < M; ++m) seg[m] = at(across0 + m, along0 + a);
    fft_many(seg, M, 1, 1, M, core::FftDirection::forward);
    for (int m = 0; m < M; ++m) energy[m] += std::norm(seg[m]);
  }
  const double t = (along_range ? pk.row : pk.col) - static_cast<double>(across0);
  const std::vector<cd> w = interpolation_weights(M, spectral_centre(energy), t);
  std::vector<cd> line(len);
  for (int a = 0; a < len; ++a) {
    cd s = 0;
    for (int m = 0; m < M; ++m) s += w[m] * at(across0 + m, along0 + a);
    line[a] = s;
  }
  return upsample_1d(line, u);
}

struct CutShape {
  CutMetrics m;
  bool complete = true;  // the sidelobe region fitted inside the cut
};

CutShape measure_cut(const std::vector<cd>& y, double peak_pos, int u, double metres_per_bin) {
  const int n = static_cast<int>(y.size());
  std::vector<double> p(n);
  for (int i = 0; i < n; ++i) p[i] = std::norm(y[i]);
  int pk = std::clamp(static_cast<int>(std::lround(peak_pos)), 0, n - 1);
  for (int i = std::max(0, pk - u); i <= std::min(n - 1, pk + u); ++i)
    if (p[i] > p[pk]) pk = i;
  const double peak = p[pk];
  int left = pk, right = pk;
  while (left > 0 && p[left - 1] < p[left]) --left;
  while (right < n - 1 && p[right + 1] < p[right]) ++right;
  // 3 dB points, linear interpolation of power between samples.
  auto crossing = [&](int step) {
    int i = pk;
    while (i + step >= 0 && i + step < n && p[i + step] > 0.5 * peak) i += step;
    if (i + step < 0 || i + step >= n) return static_cast<double>(i);
    const double f = (p[i] - 0.5 * peak) / (p[i] - p[i + step]);
    return i + step * f;
  };
  CutShape s;
  s.m.width_bins = (crossing(+1) - crossing(-1)) / u;
  s.m.width_m = s.m.width_bins * metres_per_bin;
  const double null_dist = 0.5 * (right - left);
  s.m.null_distance_bins = null_dist / u;
  const int lo = static_cast<int>(std::floor(pk - 10 * null_dist)), hi = static_cast<int>(std::ceil(pk + 10 * null_dist));
  s.complete = lo >= 0 && hi < n;
  double main = 0, side = 0, side_peak = 0;
  for (int i = std::max(0, lo); i <= std::min(n - 1, hi); ++i) {
    if (i >= left && i <= right) {
      main += p[i];
    } else {
      side += p[i];
      side_peak = std::max(side_peak, p[i]);
    }
  }
  s.m.pslr_db = 10.0 * std::log10(std::max(side_peak, 1e-300) / peak);
  s.m.islr_db = 10.0 * std::log10(std::max(side, 1e-300) / main);
  return s;
}

CutMetrics analyze_cut(const View& img, const Peak& pk, bool along_range, int u, double metres_per_bin) {
  const int dim = static_cast<int>(along_range ? img.img.samples() : img.img.lines());
  int len = 64;
  for (;;) {
    const std::vector<cd> y = cut_through(img, pk, along_range, len, u);
    const double pos = ((along_range ? pk.col : pk.row) - (std::lround(along_range ? pk.col : pk.row) - len / 2)) * u;
    const CutShape s = measure_cut(y, pos, u, metres_per_bin);
    const int need = next_pow2(static_cast<int>(2 * 10 * s.m.null_distance_bins) + 16);
    if (s.complete || len >= dim || need <= len) return s.m;
    len = std::min(need, next_pow2(dim));
  }
}

// `range_m`: the target's known range, whose carrier phase is removed from the peak phase; NaN: the
// measured range (then the phase is only as good as the position: 1e-3 px is ~30 degrees at X band).
TargetQuality analyze_at(const View& img, const RadarParams& radar, long r0, long c0, int u, double range_m) {
  const Peak pk = locate_peak(img, r0, c0, u);
  TargetQuality q;
  q.row = pk.row;
  q.col = pk.col;
  q.peak_amplitude = std::abs(pk.value);
  const double r = std::isnan(range_m) ? radar.range_of_column(pk.col) : range_m;
  q.peak_phase_rad = std::arg(pk.value * carrier(radar, r));
  q.range = analyze_cut(img, pk, true, u, radar.range_spacing_m());
  q.azimuth = analyze_cut(img, pk, false, u, radar.effective_velocity_m_s / radar.prf_hz);
  return q;
}

void finish_snr(const ComplexImage& img, std::vector<TargetQuality>& qs) {
  const double noise = noise_power(img, qs);
  for (auto& q : qs) q.snr_db = 10.0 * std::log10(q.peak_amplitude * q.peak_amplitude / std::max(noise, 1e-300));
}

}  // namespace

std::vector<TargetQuality> analyze_targets(const ComplexImage& img, const RadarParams& radar,
                                           const std::vector<Target>& targets, const AnalysisOptions& opt) {
  const long na = static_cast<long>(img.lines()), nr = static_cast<long>(img.samples());
  const View view(img, radar);
  const double eta_first = std::isnan(opt.eta_first_s) ? -static_cast<double>(na) / (2 * radar.prf_hz) : opt.eta_first_s;
  std::vector<TargetQuality> out;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const double er = std::fmod((targets[t].azimuth_time_s - eta_first) * radar.prf_hz, static_cast<double>(na));
    const double exp_row = er < 0 ? er + na : er;
    const double exp_col = (targets[t].range_m - radar.near_range_m) / radar.range_spacing_m();
    if (exp_col < 0 || exp_col >= nr)
      throw Error("analyze: target " + std::to_string(t) + " (range " + std::to_string(targets[t].range_m) +
                  " m) lies outside the image's range extent");
    const long er0 = std::lround(exp_row), ec0 = std::lround(exp_col);
    long r0 = er0, c0 = ec0;
    double best = -1;
    for (long i = er0 - opt.search_radius; i <= er0 + opt.search_radius; ++i)
      for (long j = std::max(0L, ec0 - opt.search_radius); j <= std::min(nr - 1, ec0 + opt.search_radius); ++j) {
        const double v = std::norm(pixel(view, i, j));
        if (v > best) {
          best = v;
          r0 = wrap(i, na);
          c0 = j;
        }
      }
    TargetQuality q = analyze_at(view, radar, r0, c0, opt.upsample, targets[t].range_m);
    q.index = static_cast<int>(t);
    q.has_expected = true;
    q.expected_row = exp_row;
    q.expected_col = exp_col;
    q.row = std::fmod(q.row + na, static_cast<double>(na));
    q.row_error = q.row - exp_row;
    q.row_error -= na * std::round(q.row_error / na);
    q.col_error = q.col - exp_col;
    q.azimuth_error_m = q.row_error * radar.effective_velocity_m_s / radar.prf_hz;
    q.range_error_m = q.col_error * radar.range_spacing_m();
    out.push_back(q);
  }
  finish_snr(img, out);
  return out;
}

std::vector<TargetQuality> analyze_peaks(const ComplexImage& img, const RadarParams& radar, int n,
                                         const AnalysisOptions& opt) {
  if (n < 1) throw Error("peaks: expected a positive count");
  const long na = static_cast<long>(img.lines()), nr = static_cast<long>(img.samples());
  struct Cand {
    double p;
    long i, j;
  };
  const View view(img, radar);
  std::vector<Cand> cands;
  for (long i = 0; i < na; ++i)
    for (long j = 1; j + 1 < nr; ++j) {
      const double v = std::norm(img(i, j));
      bool is_max = v > 0;
      for (long di = -1; di <= 1 && is_max; ++di)
        for (long dj = -1; dj <= 1 && is_max; ++dj)
          if ((di || dj) && std::norm(pixel(view, i + di, j + dj)) > v) is_max = false;
      if (is_max) cands.push_back({v, i, j});
    }
  std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.p > b.p; });
  const long guard = 32;
  std::vector<Cand> chosen;
  for (const Cand& c : cands) {
    bool isolated = true;
    for (const Cand& o : chosen) {
      long di = std::abs(c.i - o.i);
      di = std::min(di, na - di);
      if (di <= guard && std::abs(c.j - o.j) <= guard) isolated = false;
    }
    if (isolated) chosen.push_back(c);
    if (static_cast<int>(chosen.size()) == n) break;
  }
  std::vector<TargetQuality> out;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    TargetQuality q = analyze_at(view, radar, chosen[k].i, chosen[k].j, opt.upsample, std::nan(""));
    q.index = static_cast<int>(k);
    q.row = std::fmod(q.row + na, static_cast<double>(na));
    out.push_back(q);
  }
  finish_snr(img, out);
  return out;
}

double noise_power(const ComplexImage& img, const std::vector<TargetQuality>& peaks, int guard) {
  const long na = static_cast<long>(img.lines()), nr = static_cast<long>(img.samples());
  std::vector<char> row_ok(na, 1), col_ok(nr, 1);
  for (const auto& q : peaks) {
    for (long d = -guard; d <= guard; ++d) {
      row_ok[wrap(std::lround(q.row) + d, na)] = 0;
      const long j = std::lround(q.col) + d;
      if (j >= 0 && j < nr) col_ok[j] = 0;
    }
  }
  double sum = 0;
  std::size_t count = 0;
  for (long i = 0; i < na; ++i) {
    if (!row_ok[i]) continue;
    for (long j = 0; j < nr; ++j)
      if (col_ok[j]) {
        sum += std::norm(std::complex<double>(img(i, j)));
        ++count;
      }
  }
  if (count == 0) throw Error("analyze: no pixels left away from the targets to measure the noise");
  return sum / static_cast<double>(count);
}

std::string format_quality_table(const std::vector<TargetQuality>& qs) {
  std::ostringstream s;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%3s %9s %9s %7s %7s %7s %6s %6s %7s %7s %7s %7s %7s %7s\n", "#", "row", "col",
                "d_row", "d_col", "phase", "rg_w", "az_w", "rg_PSLR", "rg_ISLR", "az_PSLR", "az_ISLR", "SNR", "ampl");
  s << buf;
  std::snprintf(buf, sizeof buf, "%3s %9s %9s %7s %7s %7s %6s %6s %7s %7s %7s %7s %7s %7s\n", "", "px", "px", "px",
                "px", "deg", "px", "px", "dB", "dB", "dB", "dB", "dB", "");
  s << buf;
  for (const auto& q : qs) {
    std::snprintf(buf, sizeof buf, "%3d %9.3f %9.3f %7.3f %7.3f %7.2f %6.3f %6.3f %7.2f %7.2f %7.2f %7.2f %7.2f %7.4g\n",
                  q.index, q.row, q.col, q.has_expected ? q.row_error : 0.0, q.has_expected ? q.col_error : 0.0,
                  q.peak_phase_rad * 180 / M_PI, q.range.width_bins, q.azimuth.width_bins, q.range.pslr_db,
                  q.range.islr_db, q.azimuth.pslr_db, q.azimuth.islr_db, q.snr_db, q.peak_amplitude);
    s << buf;
  }
  return s.str();
}

std::string quality_to_json(const std::vector<TargetQuality>& qs, int indent) {
  using nlohmann::json;
  json a = json::array();
  auto cut = [](const CutMetrics& m) {
    return json{{"width_px", m.width_bins}, {"width_m", m.width_m}, {"pslr_db", m.pslr_db},
                {"islr_db", m.islr_db}, {"first_null_px", m.null_distance_bins}};
  };
  for (const auto& q : qs) {
    json t = {{"index", q.index},
              {"row", q.row},
              {"col", q.col},
              {"peak_amplitude", q.peak_amplitude},
              {"peak_phase_rad", q.peak_phase_rad},
              {"snr_db", q.snr_db},
              {"range", cut(q.range)},
              {"azimuth", cut(q.azimuth)}};
    if (q.has_expected) {
      t["expected_row"] = q.expected_row;
      t["expected_col"] = q.expected_col;
      t["row_error_px"] = q.row_error;
      t["col_error_px"] = q.col_error;
      t["azimuth_error_m"] = q.azimuth_error_m;
      t["range_error_m"] = q.range_error_m;
    }
    a.push_back(t);
  }
  return json{{"targets", a}}.dump(indent) + "\n";
}

}  // namespace sarfuse
