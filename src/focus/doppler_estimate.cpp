// Doppler centroid estimation (see sarfuse/doppler.hpp for the method).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <vector>

#include "focus/doppler_parts.hpp"
#include "sarfuse/doppler.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse {

namespace {

using doppler::cd;
using doppler::Correlations;
using doppler::Sums;

constexpr double kSureRounding = 0.99;     // probability of the right ambiguity to skip the check
constexpr double kSureFraction = 0.01;     // fraction's standard error (x PRF) to skip the check
constexpr double kDecisiveMargin = 0.10;   // sharpness margin counted as certain
constexpr double kRefineSpan = 0.15;       // refinement window at most, +- x PRF
constexpr double kNegligibleDrift = 0.01;  // centroid change over the swath (x PRF) not worth applying
constexpr double kUsefulSigma = 1.0;       // an ambiguity estimator's standard error (x PRF) to be heard
constexpr int kRefineSteps = 7;            // golden-section steps (window / 1.618^7 ~ 0.01 PRF)
constexpr double kRefineGain = 0.01;       // sharpness gain a refined fraction must bring

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


struct Fraction {
  std::vector<double> poly, block_hz, coherence;
};

// The ACCC fraction per block and its polynomial in range. Each block is unwrapped to lie within
// PRF/2 of the scene's (the phase of the summed correlation): noise-only blocks have random phases,
// and unwrapping block to block would carry their jumps into the blocks that hold signal. Weights: the
// correlation magnitude, i.e. the energy that agrees from line to line. (The coherence alone, the
// inverse phase variance of a stationary scene, favours blocks that see a target through part of its
// aperture only, such as its range sidelobes as it walks, and those are biased.)
Fraction fit_fraction(const Correlations& c, const Sums& s, double prf, double range_ref, double range_scale, int degree) {
  const int nb = static_cast<int>(s.block_accc.size());
  cd total = 0;
  for (const cd& a : s.block_accc) total += a;
  const double scene = std::arg(total) / (2 * M_PI) * prf;
  Fraction f;
  std::vector<double> x, w;
  for (int b = 0; b < nb; ++b) {
    double hz = std::arg(s.block_accc[b]) / (2 * M_PI) * prf;
    hz += prf * std::round((scene - hz) / prf);
    const double g = s.block_power[b] > 0 ? std::min(1.0, std::abs(s.block_accc[b]) / s.block_power[b]) : 0;
    f.block_hz.push_back(hz);
    f.coherence.push_back(g);
    x.push_back((c.block_range_m[b] - range_ref) / range_scale);
    w.push_back(std::abs(s.block_accc[b]) + 1e-300);
  }
  f.poly = fit_poly(x, f.block_hz, w, degree);
  return f;
}

double mlcc_hz(const Correlations& c, const Sums& s, const RadarParams& r) {
  return std::arg(s.upper * std::conj(s.lower)) / (2 * M_PI) * r.prf_hz * r.carrier_frequency_hz / c.look_separation_hz;
}

double mlbf_hz(const Correlations& c, const Sums& s, const RadarParams& r) {
  return std::arg(s.beat) / (2 * M_PI * c.lag) * r.prf_hz * r.carrier_frequency_hz / c.look_separation_hz;
}

// Jackknife standard error over the line groups of an estimate that wraps with `period`.
template <class Estimate>
double jackknife_sigma(const Correlations& c, double full, double period, Estimate estimate) {
  const std::size_t g = c.groups.size();
  std::vector<double> v;
  for (const Sums& group : c.groups) {
    Sums rest = c.total;
    rest -= group;
    v.push_back(full + std::remainder(estimate(rest) - full, period));
  }
  double mean = 0, var = 0;
  for (double x : v) mean += x / static_cast<double>(g);
  for (double x : v) var += (x - mean) * (x - mean);
  return std::sqrt(var * static_cast<double>(g - 1) / static_cast<double>(g));
}

// Probability that a value estimated as x (in PRFs) with standard error sigma rounds to round(x).
double rounding_probability(double x, double sigma) {
  const double k = std::round(x);
  if (sigma <= 0) return 1;
  auto phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  return phi((k + 0.5 - x) / sigma) - phi((k - 0.5 - x) / sigma);
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
  if (raw.lines < 8) throw Error("Doppler estimation: at least 8 lines needed (got " + std::to_string(raw.lines) + ")");
  const Correlations c = doppler::measure_correlations(radar, raw, o);
  const double prf = radar.prf_hz;
  DopplerEstimate e;
  e.range_ref_m = radar.range_of_column(0.5 * (static_cast<double>(raw.samples) - 1));
  e.range_scale_m = std::max(1.0, 0.5 * static_cast<double>(raw.samples) * radar.range_spacing_m());
  // A range dependence of under 1 % of the PRF over the swath changes no filter measurably, but would
  // make the plan blend two RCMC rows per sample: dropped (the fit redone as a constant).
  int degree = o.poly_degree;
  Fraction f = fit_fraction(c, c.total, prf, e.range_ref_m, e.range_scale_m, degree);
  if (degree > 0) {
    double lo = f.poly[0], hi = f.poly[0];
    for (double x = -1; x <= 1; x += 1.0 / 16) {
      double v = 0, p = 1;
      for (double k : f.poly) {
        v += k * p;
        p *= x;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (hi - lo < kNegligibleDrift * prf) {
      degree = 0;
      f = fit_fraction(c, c.total, prf, e.range_ref_m, e.range_scale_m, degree);
    }
  }
  e.poly = f.poly;
  for (std::size_t b = 0; b < f.block_hz.size(); ++b) e.blocks.push_back({c.block_range_m[b], f.block_hz[b], f.coherence[b]});
  e.accc_fractional_hz = e.poly[0];
  e.fractional_sigma_hz = jackknife_sigma(c, e.poly[0], prf, [&](const Sums& s) {
    return fit_fraction(c, s, prf, e.range_ref_m, e.range_scale_m, degree).poly[0];
  });
  const double per_radian = radar.carrier_frequency_hz / c.look_separation_hz * prf;
  e.mlcc_centroid_hz = mlcc_hz(c, c.total, radar);
  e.mlcc_sigma_hz = jackknife_sigma(c, e.mlcc_centroid_hz, per_radian, [&](const Sums& s) { return mlcc_hz(c, s, radar); });
  e.mlbf_lag = c.lag;
  e.mlbf_centroid_hz = mlbf_hz(c, c.total, radar);
  e.mlbf_sigma_hz = jackknife_sigma(c, e.mlbf_centroid_hz, per_radian / c.lag, [&](const Sums& s) { return mlbf_hz(c, s, radar); });

  const double frac = e.poly[0];
  auto vote = [&](double absolute, double sigma) {
    const double x = (absolute - frac) / prf;
    return std::pair<int, double>{static_cast<int>(std::lround(x)),
                                  rounding_probability(x, std::hypot(sigma, e.fractional_sigma_hz) / prf)};
  };
  const auto [k_mlcc, p_mlcc] = vote(e.mlcc_centroid_hz, e.mlcc_sigma_hz);
  const auto [k_mlbf, p_mlbf] = vote(e.mlbf_centroid_hz, e.mlbf_sigma_hz);
  // An estimator whose standard error exceeds a PRF says nothing about the ambiguity (MLBF on
  // homogeneous clutter, whose two looks are independent speckle), and proposes no candidates.
  const bool use_mlcc = e.mlcc_sigma_hz < kUsefulSigma * prf, use_mlbf = e.mlbf_sigma_hz < kUsefulSigma * prf;
  const bool agree = !use_mlcc || !use_mlbf || k_mlcc == k_mlbf;
  const double p_min = std::min(use_mlcc ? p_mlcc : 1.0, use_mlbf ? p_mlbf : 1.0);
  const bool sure = (use_mlcc || use_mlbf) && agree && p_min >= kSureRounding && e.fractional_sigma_hz <= kSureFraction * prf;
  const int k_best = !use_mlbf || (use_mlcc && p_mlcc >= p_mlbf) ? k_mlcc : k_mlbf;
  if (o.ambiguity) {
    e.ambiguity = *o.ambiguity;
    e.ambiguity_source = "forced";
    e.confidence = 1;
  } else if (o.check == DopplerCheck::never || (o.check == DopplerCheck::when_unsure && sure)) {
    e.ambiguity = k_best;
    e.ambiguity_source = use_mlcc && use_mlbf ? (agree ? "mlcc+mlbf" : (k_best == k_mlcc ? "mlcc" : "mlbf"))
                                              : (use_mlbf ? "mlbf" : "mlcc");
    e.confidence = agree && (use_mlcc || use_mlbf) ? std::clamp(1 - (1 - p_min) * 0.5 / (1 - kSureRounding), 0.0, 1.0) : 0.0;
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    const doppler::Patch patch = doppler::choose_patch(radar, raw, c, o);
    e.patch.first_line = patch.first_line;
    e.patch.lines = patch.raw.lines();
    e.patch.first_column = patch.first_column;
    e.patch.columns = patch.raw.samples();
    auto with_fraction = [&](double fraction, int k) {
      DopplerEstimate trial = e;
      trial.poly[0] = fraction + k * prf;
      return trial.applied_to(radar);
    };
    std::set<int> ks;
    if (!use_mlcc && !use_mlbf)
      for (int d = -2; d <= 2; ++d) ks.insert(k_mlcc + d);
    for (auto [k, use] : {std::pair{k_mlcc, use_mlcc}, std::pair{k_mlbf, use_mlbf}})
      for (int d = -1; d <= 1 && use; ++d) ks.insert(k + d);
    for (int k : ks) {
      std::string by = k == k_mlcc && k == k_mlbf ? "mlcc+mlbf" : k == k_mlcc ? "mlcc" : k == k_mlbf ? "mlbf" : "neighbour";
      ++e.patch.focuses;
      e.candidates.push_back({k, frac + k * prf, doppler::patch_sharpness(patch, with_fraction(frac, k), o, true), by});
    }
    std::sort(e.candidates.begin(), e.candidates.end(),
              [](const auto& a, const auto& b) { return a.sharpness > b.sharpness; });
    const auto& best = e.candidates[0];
    const double margin = e.candidates.size() > 1 && e.candidates[1].sharpness > 0
                              ? best.sharpness / e.candidates[1].sharpness - 1
                              : 1.0;
    e.confidence = std::clamp(margin / kDecisiveMargin, 0.0, 1.0);
    // A check that cannot tell the candidates apart (speckle alone: its contrast is 1 whatever the
    // focus) leaves the estimators' choice, flagged as unsure.
    const bool decisive = margin >= kDecisiveMargin / 10;
    e.ambiguity = decisive ? best.ambiguity : k_best;
    e.ambiguity_source = decisive ? "sharpness" : (use_mlbf && k_best == k_mlbf && !use_mlcc ? "mlbf" : "mlcc");
    // Where the ACCC fraction is itself uncertain, it is refined to the sharpest within 4 standard
    // errors (at most 0.15 PRF), as the product is focused, on rows common to the window's ends (golden
    // section; the best point seen is kept); accepted only when clearly sharper, since where the
    // processed band is wider than the signal's the sharpness hardly depends on it.
    const double span = std::min(kRefineSpan * prf, 4 * e.fractional_sigma_hz);
    double lo = frac - span, hi = frac + span;
    const bool refine = e.fractional_sigma_hz > kSureFraction * prf;
    // Linear: the rows both ends of the window give (circular when there are none, or refinement is off).
    double eta_from = 0, eta_to = 0;
    if (refine && !o.circular) {
      const auto a = doppler::patch_rows_span(patch, with_fraction(lo, e.ambiguity), o);
      const auto b = doppler::patch_rows_span(patch, with_fraction(hi, e.ambiguity), o);
      eta_from = std::max(a.first, b.first);
      eta_to = std::min(a.second, b.second);
    }
    const bool circular = !refine || o.circular || eta_from >= eta_to;
    auto sharpness = [&](double fraction) {
      ++e.patch.focuses;
      return doppler::patch_sharpness(patch, with_fraction(fraction, e.ambiguity), o, circular, eta_from, eta_to);
    };
    const double ratio = 0.5 * (std::sqrt(5.0) - 1);
    const double start = refine ? sharpness(frac) : 0;
    double best_f = frac, best_s = start;
    double x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
    double s1 = refine ? sharpness(x1) : 0, s2 = refine ? sharpness(x2) : 0;
    for (int step = 0; refine; ++step) {
      for (auto [x, v] : {std::pair{x1, s1}, std::pair{x2, s2}})
        if (v > best_s) {
          best_s = v;
          best_f = x;
        }
      if (step == kRefineSteps) break;
      if (s1 >= s2) {
        hi = x2;
        x2 = x1;
        s2 = s1;
        x1 = hi - ratio * (hi - lo);
        s1 = sharpness(x1);
      } else {
        lo = x1;
        x1 = x2;
        s1 = s2;
        x2 = lo + ratio * (hi - lo);
        s2 = sharpness(x2);
      }
    }
    e.refined = refine && best_s > (1 + kRefineGain) * start;
    if (e.refined) e.poly[0] = best_f;
    e.patch.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  e.poly[0] += e.ambiguity * prf;
  e.centroid_hz = e.poly[0];
  e.fractional_hz = e.centroid_hz - prf * std::floor(e.centroid_hz / prf + 0.5);
  return e;
}

}  // namespace sarfuse
