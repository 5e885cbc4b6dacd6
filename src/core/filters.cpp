#include "core/filters.hpp"


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

std::vector<DopplerRow> doppler_rows(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                     bool src_on, const Window& azimuth_window, double azimuth_bandwidth_hz) {
  const double lambda = radar.wavelength_m();
  const double v = radar.effective_velocity_m_s;
  const double dr = radar.range_spacing_m();
  const double r_ref = radar.range_of_column(0.5 * static_cast<double>(samples));
  const double band = azimuth_bandwidth_hz > 0 ? azimuth_bandwidth_hz : radar.prf_hz;
  const bool band_limited = azimuth_window.kind != Window::Kind::none || band < radar.prf_hz;
  std::vector<DopplerRow> rows(lines);
  for (std::size_t k = 0; k < lines; ++k) {
    DopplerRow& row = rows[k];
    row.f_eta = absolute_doppler(static_cast<long>(k), static_cast<long>(lines), radar.prf_hz,
                                 radar.doppler_centroid_hz);
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
    Window rect;  // kind none
    const Window& w = azimuth_window.kind == Window::Kind::none ? rect : azimuth_window;
    double weight = 1.0;
    if (band_limited) {
      const double x = (row.f_eta - radar.doppler_centroid_hz) / band;
      weight = std::abs(x) <= 0.5 ? w.weight(x) : 0.0;
    }
    row.weight = weight / static_cast<double>(lines);
  }
  return rows;
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

}  // namespace sarfuse::core
