// sarfuse: radar and scene parameters (JSON <-> structs), validated with field-named errors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sarfuse {

inline constexpr double kSpeedOfLight = 299792458.0;  // m/s

// Everything `focus` needs. SI units; the JSON field names carry the unit.
struct RadarParams {
  double carrier_frequency_hz = 0;
  double range_sampling_rate_hz = 0;
  double chirp_rate_hz_per_s = 0;  // signed: negative = down-chirp
  double pulse_duration_s = 0;
  double prf_hz = 0;
  double effective_velocity_m_s = 0;
  double near_range_m = 0;         // range whose echo CENTRE falls on column 0
  double doppler_centroid_hz = 0;  // absolute, may be several PRFs from 0; at the reference range below
  double antenna_length_m = 0;
  // Range dependence of the centroid (optional): f_dc(R) = doppler_centroid_hz +
  // sum_i doppler_centroid_range_coefficients[i] (R - doppler_centroid_reference_range_m)^(i+1),
  // coefficients in Hz/m, Hz/m^2, ... Empty: the same centroid at every range.
  double doppler_centroid_reference_range_m = 0;
  std::vector<double> doppler_centroid_range_coefficients;

  double wavelength_m() const { return kSpeedOfLight / carrier_frequency_hz; }
  double range_spacing_m() const { return kSpeedOfLight / (2.0 * range_sampling_rate_hz); }
  double chirp_bandwidth_hz() const;
  // Half-length of the sampled replica: samples n/fs with |n/fs| <= Tp/2, n in [-h, h].
  int replica_half_length() const;
  int replica_length() const { return 2 * replica_half_length() + 1; }
  // Slant range (m) of column j.
  double range_of_column(double j) const { return near_range_m + j * range_spacing_m(); }
  // Absolute Doppler centroid at slant range r (Hz).
  double doppler_centroid_at(double r) const;
};

// Zero-Doppler-relative time at which the beam centre crosses a target at range r0 (the centroid's
// squint: negative for a positive centroid).
double beam_centre_offset_s(const RadarParams& radar, double r0);

struct Target {
  double range_m = 0;           // closest-approach slant range R0
  double azimuth_time_s = 0;    // zero-Doppler time eta0
  double amplitude = 1.0;
  double phase_rad = 0.0;
};

struct SceneParams {
  std::size_t azimuth_lines = 0;
  std::size_t range_samples = 0;
  std::optional<double> snr_db;      // absent: no noise
  std::uint64_t seed = 1;
  std::optional<double> aperture_s;  // uniform illumination of this length instead of the antenna pattern
  // Distributed clutter: a complex Gaussian reflectivity in every cell of the line x sample grid, of
  // this mean intensity (dB) relative to a unit-amplitude target. Absent: none.
  std::optional<double> clutter_db;
  std::vector<Target> targets;
};

struct ParamsFile {
  RadarParams radar;
  std::optional<SceneParams> scene;
};

// Reads and validates a parameters file; errors name `path` and the field.
ParamsFile load_params(const std::string& path);
// Parses JSON text; `source` names it in error messages.
ParamsFile parse_params(const std::string& json_text, const std::string& source);
// Field checks (positive rates, |K| Tp <= fs, ...); `source` names the file in messages.
void validate(const RadarParams& radar, const std::string& source);
void validate(const SceneParams& scene, const RadarParams& radar, const std::string& source);
// Checks that a record of `lines` x `samples` can be focused with these parameters.
void validate_shape(const RadarParams& radar, std::size_t lines, std::size_t samples,
                    const std::string& source);

std::string to_json_text(const ParamsFile& params, int indent = 2);

// The default demonstration scene: 1024 x 1024, 5 targets, 20 dB SNR, uniform 0.8 s aperture.
ParamsFile default_scene();

}  // namespace sarfuse
