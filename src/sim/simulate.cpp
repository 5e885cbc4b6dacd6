#include "sarfuse/simulate.hpp"
#include "sarfuse/interrupt.hpp"

#include <omp.h>

#include <cmath>
#include <vector>

#include "core/fft.hpp"
#include "core/threads.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse {

namespace {

// Counter-based generator (splitmix64): the noise of sample (i, j) depends only on the seed and
// its index, so the output is identical for any thread count.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline double to_unit_open(std::uint64_t x) {  // (0, 1]
  return (static_cast<double>(x >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

// Unit-variance complex Gaussian sample (E|n|^2 = 1), Box-Muller.
inline std::complex<double> gaussian(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t a = splitmix64(seed * 0xD1B54A32D192ED03ull ^ (2 * index));
  const std::uint64_t b = splitmix64(a ^ (2 * index + 1));
  const double r = std::sqrt(-std::log(to_unit_open(a)));
  const double th = 2.0 * M_PI * to_unit_open(b);
  return {r * std::cos(th), r * std::sin(th)};
}

inline double sinc(double x) { return x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x); }

// Distributed clutter added to `raw`: a complex Gaussian reflectivity per grid cell (line i at
// zero-Doppler time (i - lines/2) / PRF, column j at range_of_column(j)) convolved with the point
// response in the two-dimensional frequency domain, where the response is known in closed form
// (stationary phase, the omega-k spectrum): range chirp spectrum x antenna pattern at the absolute
// Doppler's angle (all ambiguities, so the azimuth spectrum aliases as the radar's does) x the range-Doppler
// phase of mid-swath range. The range migration is thereby that of mid-swath at every range: exact
// for narrow swaths, and the circular convolution of a stationary reflectivity is itself stationary,
// so no padding is needed.
void add_clutter(const RadarParams& radar, const SceneParams& scene, ComplexImage& raw, int threads) {
  const std::size_t na = raw.lines(), nr = raw.samples();
  using cd = std::complex<double>;
  std::vector<cd> s(na * nr);
  const double amplitude = std::pow(10.0, *scene.clutter_db / 20.0);
  const std::uint64_t seed = splitmix64(scene.seed ^ 0xC1077E5ull);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t k = 0; k < na * nr; ++k) s[k] = gaussian(seed, k) * amplitude;
  const core::FftShape rows{static_cast<int>(nr), static_cast<int>(na), 1, static_cast<int>(nr)};
  const core::FftShape cols{static_cast<int>(na), static_cast<int>(nr), static_cast<int>(nr), 1};
  using Plan = core::FftPlan<double>;
  const Plan row_f(rows, core::FftDirection::forward, s.data(), s.data(), FftPlanning::estimate, threads);
  const Plan col_f(cols, core::FftDirection::forward, s.data(), s.data(), FftPlanning::estimate, threads);
  const Plan row_i(rows, core::FftDirection::inverse, s.data(), s.data(), FftPlanning::estimate, threads);
  const Plan col_i(cols, core::FftDirection::inverse, s.data(), s.data(), FftPlanning::estimate, threads);
  row_f.execute(s.data(), s.data());
  col_f.execute(s.data(), s.data());

  const double fs = radar.range_sampling_rate_hz, prf = radar.prf_hz, v = radar.effective_velocity_m_s;
  const double f0 = radar.carrier_frequency_hz, kr = radar.chirp_rate_hz_per_s;
  const double band = radar.chirp_bandwidth_hz(), lambda = radar.wavelength_m();
  const double r_ref = radar.range_of_column(0.5 * static_cast<double>(nr));
  RadarParams beam = radar;  // the antenna pattern at mid-swath's centroid
  beam.doppler_centroid_hz = radar.doppler_centroid_at(r_ref);
  beam.doppler_centroid_range_coefficients.clear();
  const double ka = 2.0 * v * v / (lambda * r_ref);
  // |DFT| of a unit chirp of rate K sampled at fs is fs / sqrt(|K|) over its band (Parseval).
  const double scale = fs / std::sqrt(std::abs(kr)) * prf / std::sqrt(ka) / static_cast<double>(na * nr);
  const int reach = static_cast<int>(std::ceil(2.0 * v / radar.antenna_length_m / prf)) + 1;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t n = 0; n < na; ++n) {
    const double fa = (n < (na + 1) / 2 ? static_cast<double>(n) : static_cast<double>(n) - static_cast<double>(na)) *
                      prf / static_cast<double>(na);
    const long m0 = std::lround((beam.doppler_centroid_hz - fa) / prf);
    for (std::size_t m = 0; m < nr; ++m) {
      const double fr =
          (m < (nr + 1) / 2 ? static_cast<double>(m) : static_cast<double>(m) - static_cast<double>(nr)) * fs /
          static_cast<double>(nr);
      cd h = 0;
      if (std::abs(fr) <= 0.5 * band) {
        for (long q = m0 - reach; q <= m0 + reach; ++q) {
          const double f = fa + static_cast<double>(q) * prf;
          // The pattern is one of angle: at range frequency fr the same angle has Doppler x (f0 + fr) / f0.
          const double w = antenna_weight(beam, f * f0 / (f0 + fr));
          const double root = (f0 + fr) * (f0 + fr) - std::pow(kSpeedOfLight * f / (2.0 * v), 2);
          if (w == 0.0 || root <= 0) continue;
          const double phase = -4.0 * M_PI * r_ref / kSpeedOfLight * (std::sqrt(root) - (f0 + fr)) - M_PI * fr * fr / kr;
          h += std::polar(w, phase);
        }
      }
      s[n * nr + m] *= h * scale;
    }
  }
  col_i.execute(s.data(), s.data());
  row_i.execute(s.data(), s.data());
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < na; ++i)
    for (std::size_t j = 0; j < nr; ++j) raw(i, j) = std::complex<float>(cd(raw(i, j)) + s[i * nr + j]);
}

}  // namespace

double antenna_weight(const RadarParams& radar, double doppler_hz) {
  const double u = radar.antenna_length_m * (doppler_hz - radar.doppler_centroid_hz) /
                   (2.0 * radar.effective_velocity_m_s);
  if (std::abs(u) >= 1.0) return 0.0;
  const double s = sinc(u);
  return s * s;
}

ComplexImage simulate(const RadarParams& radar, const SceneParams& scene, int threads) {
  validate(radar, "simulate");
  validate(scene, radar, "simulate");
  const std::size_t na = scene.azimuth_lines, nr = scene.range_samples;
  ComplexImage raw(na, nr);
  const int nthreads = core::resolve_threads(threads);
  const double lambda = radar.wavelength_m();
  const double v = radar.effective_velocity_m_s;
  const double fs = radar.range_sampling_rate_hz;
  const double tau0 = 2.0 * radar.near_range_m / kSpeedOfLight;
  const double half_tp = 0.5 * radar.pulse_duration_s;
  const double k_r = radar.chirp_rate_hz_per_s;

  // Each target seen by the beam at the centroid of its own range.
  std::vector<RadarParams> beam(scene.targets.size(), radar);
  for (std::size_t k = 0; k < beam.size(); ++k) {
    beam[k].doppler_centroid_hz = radar.doppler_centroid_at(scene.targets[k].range_m);
    beam[k].doppler_centroid_range_coefficients.clear();
  }
  std::vector<double> row_power(na, 0.0);
  std::vector<std::size_t> row_count(na, 0);
  std::vector<std::complex<double>> acc_all(static_cast<std::size_t>(nthreads) * nr);
  std::vector<std::uint8_t> mask_all(static_cast<std::size_t>(nthreads) * nr);

#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (std::size_t i = 0; i < na; ++i) {
    if (interrupted()) continue;
    const int tid = omp_get_thread_num();
    std::complex<double>* acc = acc_all.data() + static_cast<std::size_t>(tid) * nr;
    std::uint8_t* mask = mask_all.data() + static_cast<std::size_t>(tid) * nr;
    std::fill(acc, acc + nr, std::complex<double>(0));
    std::fill(mask, mask + nr, 0);
    const double eta = (static_cast<double>(i) - 0.5 * static_cast<double>(na)) / radar.prf_hz;
    for (const Target& t : scene.targets) {
      const double dt = eta - t.azimuth_time_s;
      const double r = std::sqrt(t.range_m * t.range_m + v * v * dt * dt);
      double weight;
      if (scene.aperture_s) {
        const double centre = t.azimuth_time_s + beam_centre_offset_s(radar, t.range_m);
        weight = std::abs(eta - centre) <= 0.5 * *scene.aperture_s ? 1.0 : 0.0;
      } else {
        const double doppler = -2.0 * v * v * dt / (lambda * r);  // instantaneous Doppler
        weight = antenna_weight(beam[&t - scene.targets.data()], doppler);
      }
      if (weight == 0.0) continue;
      const double delay = 2.0 * r / kSpeedOfLight;
      // Columns with |tau_j - delay| <= Tp/2.
      const double jc = (delay - tau0) * fs;
      const long j0 = std::max(0L, static_cast<long>(std::ceil(jc - half_tp * fs - 1e-9)));
      const long j1 = std::min(static_cast<long>(nr) - 1, static_cast<long>(std::floor(jc + half_tp * fs + 1e-9)));
      const double carrier_phase = std::fmod(-4.0 * M_PI * r / lambda + t.phase_rad, 2.0 * M_PI);
      const double amp = t.amplitude * weight;
      for (long j = j0; j <= j1; ++j) {
        const double tt = tau0 + static_cast<double>(j) / fs - delay;
        if (std::abs(tt) > half_tp) continue;
        acc[j] += std::polar(amp, carrier_phase + M_PI * k_r * tt * tt);
        mask[j] = 1;
      }
    }
    double power = 0;
    std::size_t count = 0;
    for (std::size_t j = 0; j < nr; ++j) {
      if (mask[j]) {
        power += std::norm(acc[j]);
        ++count;
      }
      raw(i, j) = std::complex<float>(acc[j]);
    }
    row_power[i] = power;
    row_count[i] = count;
  }

  throw_if_interrupted();
  if (scene.clutter_db) add_clutter(radar, scene, raw, nthreads);
  if (scene.snr_db) {
    double power = 0;
    std::size_t count = 0;
    for (std::size_t i = 0; i < na; ++i) {
      power += row_power[i];
      count += row_count[i];
    }
    if (scene.clutter_db) {  // the echoes reach every sample
      power = 0;
      for (std::size_t i = 0; i < na; ++i)
        for (std::size_t j = 0; j < nr; ++j) power += std::norm(std::complex<double>(raw(i, j)));
      count = na * nr;
    }
    // With no echo at all the noise level is relative to unit power.
    const double signal = count ? power / static_cast<double>(count) : 1.0;
    const double sigma = std::sqrt(signal / std::pow(10.0, *scene.snr_db / 10.0));
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (std::size_t i = 0; i < na; ++i) {
      if (interrupted()) continue;
      for (std::size_t j = 0; j < nr; ++j) {
        const std::complex<double> n = gaussian(scene.seed, i * nr + j) * sigma;
        raw(i, j) = std::complex<float>(std::complex<double>(raw(i, j)) + n);
      }
    }
  }
  throw_if_interrupted();
  return raw;
}

}  // namespace sarfuse
