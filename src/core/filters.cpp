#include "core/filters.hpp"


#include <algorithm>
#include <cmath>

#include "core/fft.hpp"
#include "core/geometry.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::core {

std::complex<double> replica_sample(const RadarParams& radar, int n) {
  const double t = n / radar.range_sampling_rate_hz;
  return std::polar(1.0, M_PI * radar.chirp_rate_hz_per_s * t * t);
}

std::vector<std::complex<double>> range_matched_filter(const RadarParams& radar, std::size_t nfft,
                                                       const Window& window) {
  const int h = radar.replica_half_length();
  if (static_cast<std::size_t>(2 * h + 1) > nfft) throw Error("range FFT size smaller than the replica");
  std::vector<std::complex<double>> spec(nfft, 0.0);
  for (int n = -h; n <= h; ++n) {
    const std::size_t idx = n >= 0 ? static_cast<std::size_t>(n) : nfft - static_cast<std::size_t>(-n);
    spec[idx] = replica_sample(radar, n);
  }
  FftPlan<double> fft({static_cast<int>(nfft)}, FftDirection::forward, spec.data(), spec.data(),
                      FftPlanning::estimate);
  fft.execute(spec.data(), spec.data());
  const double bandwidth = radar.chirp_bandwidth_hz();
  const double scale = 1.0 / static_cast<double>(nfft);
  for (std::size_t m = 0; m < nfft; ++m) {
    double w = 1.0;
    if (window.kind != Window::Kind::none) {
      const double f = fft_bin_frequency(static_cast<long>(m), static_cast<long>(nfft), radar.range_sampling_rate_hz);
      w = window.weight(f / bandwidth);
    }
    spec[m] = std::conj(spec[m]) * (w * scale);
  }
  return spec;
}

AzimuthFilter azimuth_filter(const RadarParams& radar, std::size_t lines, std::size_t samples, bool src_on,
                             const Window& azimuth_window, double azimuth_bandwidth_hz) {
  const double lambda = radar.wavelength_m();
  const double v = radar.effective_velocity_m_s;
  const double dr = radar.range_spacing_m();
  const double prf = radar.prf_hz;
  const double r_ref = radar.range_of_column(0.5 * static_cast<double>(samples));
  AzimuthFilter az;
  double lo = radar.doppler_centroid_at(radar.range_of_column(0)), hi = lo;
  std::vector<double> centroid;
  if (!radar.doppler_centroid_range_coefficients.empty()) {
    centroid.resize(samples);
    for (std::size_t j = 0; j < samples; ++j) {
      centroid[j] = radar.doppler_centroid_at(radar.range_of_column(static_cast<double>(j)));
      lo = std::min(lo, centroid[j]);
      hi = std::max(hi, centroid[j]);
    }
  }
  az.centre_hz = 0.5 * (lo + hi);
  az.centroid_spread_hz = hi - lo;
  const double widest = prf - az.centroid_spread_hz;
  if (!(widest > 0.05 * prf))
    throw Error("radar.doppler_centroid_range_coefficients: the centroid varies by " + std::to_string(hi - lo) +
                " Hz over the swath; expected less than 95 % of the PRF (" + std::to_string(prf) + " Hz)");
  az.bandwidth_hz = azimuth_bandwidth_hz > 0 ? azimuth_bandwidth_hz : prf;
  if (az.bandwidth_hz > widest) {
    if (azimuth_bandwidth_hz > 0)
      az.note = "processed azimuth bandwidth reduced from " + std::to_string(azimuth_bandwidth_hz) + " to " +
                std::to_string(widest) + " Hz: PRF minus the centroid's variation over the swath\n";
    az.bandwidth_hz = widest;
  }
  const double band = az.bandwidth_hz;
  const bool per_column = !centroid.empty();
  const bool band_limited = per_column || azimuth_window.kind != Window::Kind::none || band < prf;
  if (per_column) {
    az.column_shift.resize(samples);
    for (std::size_t j = 0; j < samples; ++j) az.column_shift[j] = (centroid[j] - az.centre_hz) / band;
    az.window.resize(AzimuthFilter::kWindowIntervals + 1);
    for (int i = 0; i <= AzimuthFilter::kWindowIntervals; ++i) {
      const double x = -0.5 + static_cast<double>(i) / AzimuthFilter::kWindowIntervals;
      az.window[i] = azimuth_window.kind == Window::Kind::none ? 1.0 : azimuth_window.weight(x);
    }
  }
  const double shift_lo = (lo - az.centre_hz) / band, shift_hi = (hi - az.centre_hz) / band;
  az.rows.resize(lines);
  for (std::size_t k = 0; k < lines; ++k) {
    DopplerRow& row = az.rows[k];
    row.f_eta = absolute_doppler(static_cast<long>(k), static_cast<long>(lines), prf, az.centre_hz);
    const double dm1 = migration_d_minus_one(row.f_eta, lambda, v);  // D - 1
    const double inv_d_minus_one = -dm1 / (1.0 + dm1);                 // 1/D - 1
    row.rcmc_slope = 1.0 + inv_d_minus_one;
    row.rcmc_offset = radar.near_range_m / dr * inv_d_minus_one;
    row.src_inverse_rate =
        src_on ? src_inverse_rate(row.f_eta, r_ref, radar.carrier_frequency_hz, v, kSpeedOfLight) : 0.0;
    // + pi/4: the stationary-phase spectrum of the azimuth chirp exp(-j 4 pi R(eta) / lambda) (a
    // down-chirp whatever the squint) carries exp(-j pi/4); restoring it makes a target's focused
    // peak phase equal to its own phase.
    row.az_phase0 = azimuth_phase_mod_2pi(radar.near_range_m, dm1, lambda) + 0.25 * M_PI;
    row.az_phase_step = azimuth_phase_mod_2pi(dr, dm1, lambda);
    row.band_x = (row.f_eta - az.centre_hz) / band;
    double weight = 1.0;
    if (per_column) {
      // Inside the band of some column: |x - shift| <= 1/2 for a shift in [shift_lo, shift_hi].
      const double x = row.band_x;
      weight = (x - shift_hi <= 0.5 && x - shift_lo >= -0.5) ? 1.0 : 0.0;
    } else if (band_limited) {
      const double x = row.band_x;
      weight = std::abs(x) <= 0.5 ? (azimuth_window.kind == Window::Kind::none ? 1.0 : azimuth_window.weight(x)) : 0.0;
    }
    row.weight = weight / static_cast<double>(lines);
  }
  return az;
}

double azimuth_phase_mod_2pi(double r, double d_minus_one, double wavelength) {
  // 4 pi r / lambda is split off and reduced alone; the (D - 1) part is small and exact.
  const double two_pi = 2.0 * M_PI;
  const double big = std::fmod(4.0 * M_PI * r / wavelength, two_pi);
  return std::fmod(big + 4.0 * M_PI * r * d_minus_one / wavelength, two_pi);
}

SincTable make_sinc_table(int taps, int fractions, double kaiser_beta) {
  if (taps < 2 || taps > 64 || taps % 2 != 0) throw Error("RCMC taps must be even and in [2, 64]");
  SincTable t;
  t.taps = taps;
  t.fractions = fractions;
  t.weights.resize(static_cast<std::size_t>(fractions + 1) * taps);
  const double half = taps / 2.0;
  const double i0b = std::cyl_bessel_i(0.0, kaiser_beta);
  for (int r = 0; r <= fractions; ++r) {
    const double frac = static_cast<double>(r) / fractions;
    double* w = t.weights.data() + static_cast<std::size_t>(r) * taps;
    double sum = 0;
    for (int i = 0; i < taps; ++i) {
      const int offset = i - taps / 2 + 1;
      const double x = frac - offset;  // distance from the tap to the wanted position
      const double sinc = x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
      const double u = x / half;
      const double win = std::abs(u) < 1 ? std::cyl_bessel_i(0.0, kaiser_beta * std::sqrt(1 - u * u)) / i0b : 0.0;
      w[i] = sinc * win;
      sum += w[i];
    }
    for (int i = 0; i < taps; ++i) w[i] /= sum;
  }
  return t;
}

std::vector<float> sinc_table_fp32(const SincTable& table) {
  const std::size_t rows = static_cast<std::size_t>(table.fractions) + 1, taps = table.taps;
  std::vector<float> quad((taps + 3) / 4 * rows * 4, 0.0f);  // planes of four taps, the last padded
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t t = 0; t < taps; ++t)
      quad[(t / 4) * rows * 4 + r * 4 + t % 4] = static_cast<float>(table.weights[r * taps + t]);
  return quad;
}

}  // namespace sarfuse::core
