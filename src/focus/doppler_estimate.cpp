// Doppler centroid estimation (see sarfuse/doppler.hpp for the method).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/fft.hpp"
#include "core/filters.hpp"
#include "core/raw_rows.hpp"
#include "core/threads.hpp"
#include "sarfuse/doppler.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;


// Least-squares polynomial (weighted) in x; returns coefficients, lowest order first.
std::vector<double> fit_poly(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& w,
                             int degree) {
  const int m = degree + 1;
  std::vector<double> a(m * m, 0.0), b(m, 0.0);
  for (std::size_t k = 0; k < x.size(); ++k) {
    std::vector<double> p(m, 1.0);
    for (int i = 1; i < m; ++i) p[i] = p[i - 1] * x[k];
    for (int i = 0; i < m; ++i) {
      b[i] += w[k] * p[i] * y[k];
      for (int j = 0; j < m; ++j) a[i * m + j] += w[k] * p[i] * p[j];
    }
  }
  // Gaussian elimination with partial pivoting (m <= 4).
  for (int c = 0; c < m; ++c) {
    int piv = c;
    for (int r = c + 1; r < m; ++r)
      if (std::abs(a[r * m + c]) > std::abs(a[piv * m + c])) piv = r;
    if (std::abs(a[piv * m + c]) < 1e-300) throw Error("Doppler estimation: too few range blocks for the fit");
    if (piv != c) {
      for (int j = 0; j < m; ++j) std::swap(a[c * m + j], a[piv * m + j]);
      std::swap(b[c], b[piv]);
    }
    for (int r = c + 1; r < m; ++r) {
      const double f = a[r * m + c] / a[c * m + c];
      for (int j = c; j < m; ++j) a[r * m + j] -= f * a[c * m + j];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> coef(m);
  for (int r = m - 1; r >= 0; --r) {
    double s = b[r];
    for (int j = r + 1; j < m; ++j) s -= a[r * m + j] * coef[j];
    coef[r] = s / a[r * m + r];
  }
  return coef;
}

}  // namespace

RadarParams DopplerEstimate::applied_to(RadarParams radar) const {
  radar.doppler_centroid_hz = poly.empty() ? centroid_hz : poly[0];
  radar.doppler_centroid_reference_range_m = range_ref_m;
  radar.doppler_centroid_range_coefficients.clear();
  double scale = 1;
  for (std::size_t i = 1; i < poly.size(); ++i) {
    scale *= range_scale_m;
    radar.doppler_centroid_range_coefficients.push_back(poly[i] / scale);
  }
  return radar;
}

double DopplerEstimate::at_range(double r) const {
  const double x = (r - range_ref_m) / range_scale_m;
  double v = 0, p = 1;
  for (double c : poly) {
    v += c * p;
    p *= x;
  }
  return v;
}

DopplerEstimate estimate_doppler(const RadarParams& radar, const RawView& raw, const DopplerOptions& o) {
  validate(radar, "parameters");
  validate_shape(radar, raw.lines, raw.samples, "raw data");
  if (o.range_blocks < 1 || o.range_blocks > static_cast<int>(raw.samples))
    throw Error("Doppler estimation: range blocks must be in [1, " + std::to_string(raw.samples) + "]");
  if (o.poly_degree < 0 || o.poly_degree > 3 || o.poly_degree >= o.range_blocks)
    throw Error("Doppler estimation: polynomial degree must be in [0, 3] and below the number of range blocks");
  const std::size_t na = raw.lines, nr = raw.samples;
  const std::size_t nfft = fft_friendly_size(nr + static_cast<std::size_t>(radar.replica_length()) - 1);
  const auto h = core::range_matched_filter(radar, nfft, Window{});
  std::vector<cf> hf(nfft);
  for (std::size_t m = 0; m < nfft; ++m) hf[m] = cf(h[m]);
  // Range looks: the lower and the upper half of the chirp band (baseband frequencies < 0 and >= 0).
  const double fs = radar.range_sampling_rate_hz, band = radar.chirp_bandwidth_hz();
  std::vector<unsigned char> upper(nfft), lower(nfft);
  for (std::size_t m = 0; m < nfft; ++m) {
    const double f = (m < (nfft + 1) / 2 ? static_cast<double>(m) : static_cast<double>(m) - nfft) * fs / nfft;
    upper[m] = f >= 0 && f < band / 2;
    lower[m] = f < 0 && f >= -band / 2;
  }
  const int threads = core::resolve_threads(o.threads);
  const int nb = o.range_blocks;
  auto block_of = [&](std::size_t j) { return static_cast<int>(j * nb / nr); };

  std::vector<cf> probe(nfft);
  const core::FftShape one{static_cast<int>(nfft), 1, 1, static_cast<int>(nfft)};
  const core::FftPlan<float> fwd(one, core::FftDirection::forward, probe.data(), probe.data(), FftPlanning::estimate);
  const core::FftPlan<float> inv(one, core::FftDirection::inverse, probe.data(), probe.data(), FftPlanning::estimate);

  // Per thread: the correlations of the full band per block, of each look (all blocks), and power.
  struct Acc {
    std::vector<cd> full;
    std::vector<double> power;
    cd hi{0, 0}, lo{0, 0};
  };
  std::vector<Acc> acc(static_cast<std::size_t>(threads), Acc{std::vector<cd>(nb), std::vector<double>(nb), {}, {}});
#pragma omp parallel num_threads(threads)
  {
    Acc& a = acc[static_cast<std::size_t>(omp_get_thread_num())];
    std::vector<cf> spec(nfft), cur[3], prev[3];
    for (auto& v : cur) v.resize(nfft);
    for (auto& v : prev) v.resize(nfft);
    bool have_prev = false;
    std::size_t last = 0;
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < na; ++i) {
      if (interrupted()) continue;
      if (have_prev && i != last + 1) have_prev = false;
      // Range compression of a line: full band and both looks.
      auto compress = [&](std::size_t line, std::vector<cf> (&out)[3]) {
        std::fill(spec.begin(), spec.end(), cf(0));
        core::convert_row<float>(raw, line, spec.data());
        fwd.execute(spec.data(), spec.data());
        for (std::size_t m = 0; m < nfft; ++m) {
          const cf x = spec[m] * hf[m];
          out[0][m] = x;
          out[1][m] = upper[m] ? x : cf(0);
          out[2][m] = lower[m] ? x : cf(0);
        }
        for (auto& v : out) inv.execute(v.data(), v.data());
      };
      compress(i, cur);
      if (!have_prev && i > 0) {  // the line before this thread's first: compute it too
        compress(i - 1, prev);
        have_prev = true;
      }
      if (have_prev) {
        for (std::size_t j = 0; j < nr; ++j) {
          const int b = block_of(j);
          a.full[b] += cd(cur[0][j]) * std::conj(cd(prev[0][j]));
          a.power[b] += 0.5 * (std::norm(cd(cur[0][j])) + std::norm(cd(prev[0][j])));
          a.hi += cd(cur[1][j]) * std::conj(cd(prev[1][j]));
          a.lo += cd(cur[2][j]) * std::conj(cd(prev[2][j]));
        }
      }
      for (int k = 0; k < 3; ++k) std::swap(cur[k], prev[k]);
      have_prev = true;
      last = i;
    }
  }
  throw_if_interrupted();
  std::vector<cd> full(nb, 0.0);
  std::vector<double> power(nb, 0.0);
  cd hi = 0, lo = 0;
  for (const Acc& a : acc) {
    for (int b = 0; b < nb; ++b) {
      full[b] += a.full[b];
      power[b] += a.power[b];
    }
    hi += a.hi;
    lo += a.lo;
  }

  const double prf = radar.prf_hz, two_pi = 2 * M_PI;
  DopplerEstimate e;
  std::vector<double> x, y, w;
  // Each block's fraction is unwrapped to lie within PRF/2 of the scene's (the phase of the summed
  // correlation): noise-only blocks have random phases, and unwrapping block to block would carry
  // their jumps into the blocks that hold signal.
  cd total = 0;
  for (const cd& c : full) total += c;
  const double scene_fraction = std::arg(total) / two_pi * prf;
  for (int b = 0; b < nb; ++b) {
    const std::size_t j0 = static_cast<std::size_t>(b) * nr / nb, j1 = static_cast<std::size_t>(b + 1) * nr / nb;
    DopplerEstimate::Block blk;
    blk.range_m = radar.range_of_column(0.5 * (static_cast<double>(j0) + static_cast<double>(j1) - 1));
    double f = std::arg(full[b]) / two_pi * prf;
    f += prf * std::round((scene_fraction - f) / prf);
    blk.fractional_hz = f;
    blk.coherence = power[b] > 0 ? std::abs(full[b]) / power[b] : 0;
    e.blocks.push_back(blk);
  }
  e.range_ref_m = radar.range_of_column(0.5 * (static_cast<double>(nr) - 1));
  e.range_scale_m = std::max(1.0, 0.5 * static_cast<double>(nr) * radar.range_spacing_m());
  // Weights: the correlation magnitude (signal energy that agrees from line to line).
  for (int b = 0; b < nb; ++b) {
    x.push_back((e.blocks[b].range_m - e.range_ref_m) / e.range_scale_m);
    y.push_back(e.blocks[b].fractional_hz);
    w.push_back(std::abs(full[b]) + 1e-300);
  }
  e.poly = fit_poly(x, y, w, o.poly_degree);
  const double frac_mid = e.poly[0];
  // MLCC: the looks are centred B/4 above and below the carrier, B/2 apart.
  const double dphi = std::arg(hi * std::conj(lo));
  e.mlcc_centroid_hz = dphi / two_pi * prf * radar.carrier_frequency_hz / (band / 2);
  if (o.ambiguity) {
    e.ambiguity = *o.ambiguity;
    e.ambiguity_source = "forced";
  } else {
    e.ambiguity = static_cast<int>(std::lround((e.mlcc_centroid_hz - frac_mid) / prf));
    e.ambiguity_source = "mlcc";
  }
  e.poly[0] += e.ambiguity * prf;
  e.centroid_hz = e.poly[0];
  e.fractional_hz = e.centroid_hz - prf * std::floor(e.centroid_hz / prf + 0.5);
  return e;
}

std::string doppler_to_json(const DopplerEstimate& e, int indent) {
  nlohmann::json j;
  j["centroid_hz"] = e.centroid_hz;
  j["fractional_hz"] = e.fractional_hz;
  j["ambiguity"] = e.ambiguity;
  j["ambiguity_source"] = e.ambiguity_source;
  j["mlcc_centroid_hz"] = e.mlcc_centroid_hz;
  j["polynomial"] = {{"coefficients_hz", e.poly}, {"range_ref_m", e.range_ref_m}, {"range_scale_m", e.range_scale_m},
                     {"form", "sum_i c_i ((r - range_ref_m) / range_scale_m)^i"}};
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : e.blocks)
    blocks.push_back({{"range_m", b.range_m}, {"fractional_hz", b.fractional_hz}, {"coherence", b.coherence},
                      {"fitted_hz", e.at_range(b.range_m)}});
  j["blocks"] = blocks;
  return j.dump(indent);
}

std::string format_doppler_table(const DopplerEstimate& e) {
  std::ostringstream s;
  char line[256];
  std::snprintf(line, sizeof line, "%12s %14s %10s %14s\n", "range_m", "ACCC_frac_Hz", "coherence", "fitted_abs_Hz");
  s << line;
  for (const auto& b : e.blocks) {
    std::snprintf(line, sizeof line, "%12.1f %14.2f %10.3f %14.2f\n", b.range_m, b.fractional_hz, b.coherence,
                  e.at_range(b.range_m));
    s << line;
  }
  std::snprintf(line, sizeof line,
                "Doppler centroid at mid-swath: %.2f Hz (fraction %.2f Hz, ambiguity %d from %s; MLCC estimate %.1f Hz)\n",
                e.centroid_hz, e.fractional_hz, e.ambiguity, e.ambiguity_source.c_str(), e.mlcc_centroid_hz);
  s << line;
  return s.str();
}

}  // namespace sarfuse
