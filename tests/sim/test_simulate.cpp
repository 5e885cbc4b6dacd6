#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "sarfuse/simulate.hpp"
#include "test_util.hpp"

using namespace sarfuse;

static SceneParams one_target(std::optional<double> aperture, std::optional<double> snr) {
  SceneParams s;
  s.azimuth_lines = 256;
  s.range_samples = 1024;
  s.aperture_s = aperture;
  s.snr_db = snr;
  s.targets = {{10000.3, 0.013, 0.7, 1.1}};
  return s;
}

TEST(Simulate, MatchesTheAnalyticEchoAtASample) {
  const RadarParams r = default_scene().radar;
  const SceneParams s = one_target(0.3, std::nullopt);
  const ComplexImage raw = simulate(r, s, 2);
  const Target& t = s.targets[0];
  int checked = 0;
  for (std::size_t i : {100u, 128u, 140u}) {
    const double eta = (static_cast<double>(i) - 128.0) / r.prf_hz;
    const long double R = std::sqrt(static_cast<long double>(t.range_m) * t.range_m +
                                    std::pow(static_cast<long double>(r.effective_velocity_m_s) * (eta - t.azimuth_time_s), 2));
    for (std::size_t j : {300u, 512u, 700u}) {
      const long double tau = 2.0L * r.near_range_m / kSpeedOfLight + static_cast<long double>(j) / r.range_sampling_rate_hz;
      const long double tt = tau - 2.0L * R / kSpeedOfLight;
      const long double ph = t.phase_rad - 4.0L * M_PI * R * r.carrier_frequency_hz / kSpeedOfLight +
                             M_PI * r.chirp_rate_hz_per_s * tt * tt;
      const std::complex<double> expect = std::abs(tt) <= r.pulse_duration_s / 2
                                              ? std::polar(t.amplitude, static_cast<double>(std::fmod(ph, 2.0L * M_PI)))
                                              : 0.0;
      EXPECT_NEAR(std::abs(std::complex<double>(raw(i, j)) - expect), 0.0, 1e-6) << i << "," << j;
      checked += std::abs(expect) > 0;
    }
  }
  EXPECT_GE(checked, 6);
  EXPECT_EQ(raw(10, 512), std::complex<float>(0, 0));  // outside the 0.3 s aperture
  EXPECT_EQ(raw(128, 5), std::complex<float>(0, 0));   // outside the pulse
}

TEST(Simulate, AntennaPatternWeightsTheEchoByInstantaneousDoppler) {
  RadarParams r = default_scene().radar;
  r.antenna_length_m = 4.0;
  const SceneParams s = one_target(std::nullopt, std::nullopt);
  const ComplexImage raw = simulate(r, s, 1);
  const Target& t = s.targets[0];
  for (std::size_t i : {60u, 100u, 128u, 200u}) {
    const double eta = (static_cast<double>(i) - 128.0) / r.prf_hz, dt = eta - t.azimuth_time_s;
    const double R = std::hypot(t.range_m, r.effective_velocity_m_s * dt);
    const double f = -2 * r.effective_velocity_m_s * r.effective_velocity_m_s * dt / (r.wavelength_m() * R);
    const double u = r.antenna_length_m * f / (2 * r.effective_velocity_m_s);
    const double w = std::abs(u) < 1 ? std::pow(std::sin(M_PI * u) / (M_PI * u), 2) : 0.0;
    const std::size_t j = static_cast<std::size_t>(std::lround((R - r.near_range_m) / r.range_spacing_m()));
    EXPECT_NEAR(std::abs(raw(i, j)), t.amplitude * w, 1e-6) << i;
  }
}

TEST(Simulate, SquintSteersTheBeam) {
  RadarParams r = default_scene().radar;
  r.doppler_centroid_hz = 100;
  const double off = beam_centre_offset_s(r, 10000);
  // At the beam centre the instantaneous Doppler is the centroid.
  const double R = std::hypot(10000.0, r.effective_velocity_m_s * off);
  const double f = -2 * r.effective_velocity_m_s * r.effective_velocity_m_s * off / (r.wavelength_m() * R);
  EXPECT_NEAR(f, 100.0, 1e-9);
  EXPECT_DOUBLE_EQ(antenna_weight(r, 100.0), 1.0);
}

TEST(Simulate, NoiseIsDeterministicAndAtTheRequestedSnr) {
  const RadarParams r = default_scene().radar;
  SceneParams s = one_target(0.3, 10.0);
  const ComplexImage a = simulate(r, s, 1), b = simulate(r, s, 2);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 8), 0) << "thread count changed the output";
  s.seed = 2;
  const ComplexImage c = simulate(r, s, 2);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * 8), 0) << "the seed did nothing";
  // Echo power is amplitude^2 = 0.49 where the single target's echo is present: noise 10 dB below.
  double p = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < 30; ++i)  // rows outside the aperture hold noise only
    for (std::size_t j = 0; j < a.samples(); ++j, ++n) p += std::norm(std::complex<double>(a(i, j)));
  EXPECT_NEAR(p / n, 0.049, 0.049 * 0.03);
}
