// Simulated test scenes and the theory each is checked against.
#pragma once
#include <cmath>

#include "sarfuse/params.hpp"
#include "sarfuse/simulate.hpp"

namespace sarfuse::test {

// Satellite-like squinted stripmap: C band, V = 7100 m/s, R ~ 850 km, Doppler centroid +2.3 PRF.
// The beam looks 1.9 s ahead of zero Doppler, so each target's echoes lie far from its focused
// row; the three rows (about 1696, 98, 498) exercise the circular wrap.
inline ParamsFile squinted_satellite_scene() {
  ParamsFile p;
  p.radar = RadarParams{5.3e9, 24e6, 1e12, 20e-6, 1700, 7100, 850000.0, 2.3 * 1700, 10.0, 0, {}};
  SceneParams s;
  s.azimuth_lines = 2048;
  s.range_samples = 1024;
  s.snr_db = 20;
  s.seed = 7;
  s.aperture_s = 0.5;
  const double dr = p.radar.range_spacing_m();
  s.targets = {{850000 + 300.3 * dr, 1.6, 1.0, 0.3},
               {850000 + 512.6 * dr, 1.865, 0.9, -1.2},
               {850000 + 720.1 * dr, 2.1, 1.1, 2.6}};
  p.scene = s;
  return p;
}

// The squinted satellite with a centroid that drifts over the swath: +2.3 PRF at mid-swath, -0.15 PRF
// at the near edge, +0.15 PRF at the far edge (as an attitude or Earth-rotation drift does). Uniform
// 0.4 s apertures (about 840 Hz of Doppler) centred on each target's own centroid; three targets
// near the near edge, the middle and the far edge. Focus with kDriftingBandwidth: a band that holds
// one target's spectrum only when it is centred on that target's centroid.
inline constexpr double kDriftingBandwidth = 900.0;
inline ParamsFile drifting_centroid_scene() {
  ParamsFile p = squinted_satellite_scene();
  p.radar.pulse_duration_s = 5e-6;  // 121 samples: targets near the swath edges still fully compressed
  p.radar.chirp_rate_hz_per_s = 4e12;  // 20 MHz: time-bandwidth product 100, sinc-like range response
  const double dr = p.radar.range_spacing_m();
  p.radar.doppler_centroid_reference_range_m = p.radar.range_of_column(512);
  p.radar.doppler_centroid_range_coefficients = {0.3 * 1700 / (1024 * dr)};
  p.scene->aperture_s = 0.4;
  p.scene->targets = {{850000 + 100.3 * dr, 1.45, 1.0, 0.3},
                      {850000 + 512.6 * dr, 1.865, 0.9, -1.2},
                      {850000 + 920.1 * dr, 2.3, 1.1, 2.6}};
  return p;
}

// Three targets in the middle rows, illuminated by the antenna pattern (no aperture_s). Noise-free:
// the pattern's sidelobes sit near -40 dB, where 20 dB input noise would dominate the ISLR.
inline ParamsFile antenna_pattern_scene() {
  ParamsFile p = default_scene();
  p.radar.antenna_length_m = 4.0;
  p.scene->aperture_s.reset();
  p.scene->snr_db.reset();
  p.scene->targets = {{9750.0, -0.15, 1.0, 0.4}, {10000.0, 0.0, 1.0, -0.8}, {10250.0, 0.15, 1.0, 1.9}};
  return p;
}

// Exact Doppler bandwidth swept by a target over a uniform aperture centred on the beam.
inline double aperture_doppler_bandwidth(const RadarParams& r, const Target& t, double aperture_s) {
  auto doppler = [&](double dt) {
    const double R = std::hypot(t.range_m, r.effective_velocity_m_s * dt);
    return -2 * r.effective_velocity_m_s * r.effective_velocity_m_s * dt / (r.wavelength_m() * R);
  };
  const double c = beam_centre_offset_s(r, t.range_m);
  return std::abs(doppler(c - aperture_s / 2) - doppler(c + aperture_s / 2));
}

}  // namespace sarfuse::test
