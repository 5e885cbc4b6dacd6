#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/params.hpp"

namespace sarfuse {

using nlohmann::json;

double RadarParams::chirp_bandwidth_hz() const { return std::abs(chirp_rate_hz_per_s) * pulse_duration_s; }

int RadarParams::replica_half_length() const {
  return static_cast<int>(std::floor(0.5 * pulse_duration_s * range_sampling_rate_hz + 1e-9));
}

namespace {

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& what) {
  throw Error(source + ": " + field + ": " + what);
}

double get_number(const json& obj, const char* section, const char* key, const std::string& source,
                  std::optional<double> fallback = std::nullopt) {
  const std::string field = std::string(section) + "." + key;
  if (!obj.contains(key)) {
    if (fallback) return *fallback;
    fail(source, field, "missing (expected a number)");
  }
  const json& v = obj.at(key);
  if (!v.is_number()) fail(source, field, "expected a number, got " + v.dump());
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(source, field, "must be finite");
  return d;
}

void require(bool ok, const std::string& source, const std::string& field, const std::string& expected, double got) {
  if (!ok) fail(source, field, "must be " + expected + " (got " + fmt(got) + ")");
}

}  // namespace

double beam_centre_offset_s(const RadarParams& radar, double r0) {
  const double s = radar.wavelength_m() * radar.doppler_centroid_at(r0) / (2.0 * radar.effective_velocity_m_s);
  return -r0 * s / (std::sqrt(1.0 - s * s) * radar.effective_velocity_m_s);
}

double RadarParams::doppler_centroid_at(double r) const {
  double f = 0, dr = r - doppler_centroid_reference_range_m, power = dr;
  for (double c : doppler_centroid_range_coefficients) {
    f += c * power;
    power *= dr;
  }
  return doppler_centroid_hz + f;
}

void validate(const RadarParams& r, const std::string& src) {
  require(r.carrier_frequency_hz > 0, src, "radar.carrier_frequency_hz", "> 0", r.carrier_frequency_hz);
  require(r.range_sampling_rate_hz > 0, src, "radar.range_sampling_rate_hz", "> 0", r.range_sampling_rate_hz);
  require(r.chirp_rate_hz_per_s != 0, src, "radar.chirp_rate_hz_per_s", "non-zero", r.chirp_rate_hz_per_s);
  require(r.pulse_duration_s > 0, src, "radar.pulse_duration_s", "> 0", r.pulse_duration_s);
  require(r.prf_hz > 0, src, "radar.prf_hz", "> 0", r.prf_hz);
  require(r.effective_velocity_m_s > 0, src, "radar.effective_velocity_m_s", "> 0", r.effective_velocity_m_s);
  require(r.near_range_m > 0, src, "radar.near_range_m", "> 0", r.near_range_m);
  require(r.antenna_length_m >= 0, src, "radar.antenna_length_m", ">= 0", r.antenna_length_m);
  const double b = r.chirp_bandwidth_hz();
  if (b > r.range_sampling_rate_hz)
    fail(src, "radar.chirp_rate_hz_per_s",
         "chirp bandwidth |K| x pulse_duration_s = " + fmt(b) + " Hz exceeds range_sampling_rate_hz = " +
             fmt(r.range_sampling_rate_hz) + " Hz (the chirp would alias)");
  if (r.replica_half_length() < 1)
    fail(src, "radar.pulse_duration_s", "pulse shorter than 3 range samples (" + fmt(r.pulse_duration_s) + " s)");
  for (std::size_t i = 0; i < r.doppler_centroid_range_coefficients.size(); ++i)
    if (!std::isfinite(r.doppler_centroid_range_coefficients[i]))
      fail(src, "radar.doppler_centroid_range_coefficients[" + std::to_string(i) + "]", "must be finite");
  if (!r.doppler_centroid_range_coefficients.empty())
    require(r.doppler_centroid_reference_range_m > 0, src, "radar.doppler_centroid_reference_range_m",
            "> 0 when doppler_centroid_range_coefficients are given", r.doppler_centroid_reference_range_m);
  const double edge = std::abs(r.doppler_centroid_hz) + 0.5 * r.prf_hz;
  if (r.wavelength_m() * edge / (2 * r.effective_velocity_m_s) >= 0.5)
    fail(src, "radar.doppler_centroid_hz",
         "Doppler " + fmt(edge) + " Hz implies a squint beyond 30 degrees; expected |f_dc| + PRF/2 < V/lambda");
}

void validate(const SceneParams& s, const RadarParams& r, const std::string& src) {
  require(s.azimuth_lines >= 2, src, "scene.azimuth_lines", ">= 2", static_cast<double>(s.azimuth_lines));
  require(s.range_samples >= 2, src, "scene.range_samples", ">= 2", static_cast<double>(s.range_samples));
  if (s.aperture_s) require(*s.aperture_s > 0, src, "scene.aperture_s", "> 0", *s.aperture_s);
  else if (!(r.antenna_length_m > 0))
    fail(src, "radar.antenna_length_m", "must be > 0 to simulate the antenna pattern (or give scene.aperture_s)");
  validate_shape(r, s.azimuth_lines, s.range_samples, src);
  if (s.clutter_db) {
    require(*s.clutter_db >= -200 && *s.clutter_db <= 100, src, "scene.clutter_db", "in [-200, 100]", *s.clutter_db);
    if (s.aperture_s) fail(src, "scene.clutter_db", "needs the antenna pattern (not scene.aperture_s)");
  }
  for (std::size_t i = 0; i < s.targets.size(); ++i) {
    const std::string t = "scene.targets[" + std::to_string(i) + "]";
    require(s.targets[i].range_m > 0, src, t + ".range_m", "> 0", s.targets[i].range_m);
    require(s.targets[i].amplitude >= 0, src, t + ".amplitude", ">= 0", s.targets[i].amplitude);
  }
}

void validate_shape(const RadarParams& r, std::size_t lines, std::size_t samples, const std::string& src) {
  if (lines < 2 || samples < 2)
    throw Error(src + ": shape " + std::to_string(lines) + " x " + std::to_string(samples) +
                ": expected at least 2 azimuth lines and 2 range samples");
  if (static_cast<std::size_t>(r.replica_length()) > samples)
    throw Error(src + ": radar.pulse_duration_s: the pulse (" + std::to_string(r.replica_length()) +
                " samples = pulse_duration_s x range_sampling_rate_hz) is longer than the record (" +
                std::to_string(samples) + " range samples)");
}

ParamsFile parse_params(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse errors, and numbers out of range (4e1256: found by fuzzing)
    throw Error(source + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw Error(source + ": expected a JSON object with a \"radar\" section");
  if (!j.contains("radar") || !j.at("radar").is_object())
    throw Error(source + ": radar: missing (expected an object with the radar parameters)");
  const json& jr = j.at("radar");
  ParamsFile p;
  RadarParams& r = p.radar;
  r.carrier_frequency_hz = get_number(jr, "radar", "carrier_frequency_hz", source);
  r.range_sampling_rate_hz = get_number(jr, "radar", "range_sampling_rate_hz", source);
  r.chirp_rate_hz_per_s = get_number(jr, "radar", "chirp_rate_hz_per_s", source);
  r.pulse_duration_s = get_number(jr, "radar", "pulse_duration_s", source);
  r.prf_hz = get_number(jr, "radar", "prf_hz", source);
  r.effective_velocity_m_s = get_number(jr, "radar", "effective_velocity_m_s", source);
  r.near_range_m = get_number(jr, "radar", "near_range_m", source);
  r.doppler_centroid_hz = get_number(jr, "radar", "doppler_centroid_hz", source, 0.0);
  r.antenna_length_m = get_number(jr, "radar", "antenna_length_m", source, 0.0);
  r.doppler_centroid_reference_range_m = get_number(jr, "radar", "doppler_centroid_reference_range_m", source, 0.0);
  if (jr.contains("doppler_centroid_range_coefficients")) {
    const json& c = jr.at("doppler_centroid_range_coefficients");
    const std::string field = "radar.doppler_centroid_range_coefficients";
    if (!c.is_array() || c.size() > 4)
      fail(source, field, "expected an array of at most 4 numbers (Hz/m, Hz/m^2, ...), got " + c.dump());
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (!c[i].is_number() || !std::isfinite(c[i].get<double>()))
        fail(source, field + "[" + std::to_string(i) + "]", "expected a finite number, got " + c[i].dump());
      r.doppler_centroid_range_coefficients.push_back(c[i].get<double>());
    }
  }
  validate(r, source);

  if (j.contains("scene")) {
    const json& js = j.at("scene");
    if (!js.is_object()) throw Error(source + ": scene: expected an object");
    SceneParams s;
    auto count = [&](const char* key) {
      const double v = get_number(js, "scene", key, source);
      if (v != std::floor(v) || v < 0 || v > 1e9)
        fail(source, std::string("scene.") + key, "must be a whole number in [2, 1e9] (got " + fmt(v) + ")");
      return static_cast<std::size_t>(v);
    };
    s.azimuth_lines = count("azimuth_lines");
    s.range_samples = count("range_samples");
    if (js.contains("snr_db") && !js.at("snr_db").is_null()) s.snr_db = get_number(js, "scene", "snr_db", source);
    const double seed = get_number(js, "scene", "seed", source, 1.0);
    if (seed < 0 || seed != std::floor(seed)) fail(source, "scene.seed", "must be a whole number >= 0");
    s.seed = static_cast<std::uint64_t>(seed);
    if (js.contains("aperture_s") && !js.at("aperture_s").is_null())
      s.aperture_s = get_number(js, "scene", "aperture_s", source);
    if (js.contains("clutter_db") && !js.at("clutter_db").is_null())
      s.clutter_db = get_number(js, "scene", "clutter_db", source);
    if (js.contains("targets")) {
      if (!js.at("targets").is_array()) fail(source, "scene.targets", "expected an array of targets");
      for (std::size_t i = 0; i < js.at("targets").size(); ++i) {
        const json& jt = js.at("targets")[i];
        const std::string sec = "scene.targets[" + std::to_string(i) + "]";
        if (!jt.is_object()) fail(source, sec, "expected an object");
        Target t;
        t.range_m = get_number(jt, sec.c_str(), "range_m", source);
        t.azimuth_time_s = get_number(jt, sec.c_str(), "azimuth_time_s", source, 0.0);
        t.amplitude = get_number(jt, sec.c_str(), "amplitude", source, 1.0);
        t.phase_rad = get_number(jt, sec.c_str(), "phase_rad", source, 0.0);
        s.targets.push_back(t);
      }
    }
    validate(s, r, source);
    p.scene = s;
  }
  return p;
}

ParamsFile load_params(const std::string& path) { return parse_params(read_text_file(path), path); }

std::string to_json_text(const ParamsFile& p, int indent) {
  json j;
  const RadarParams& r = p.radar;
  j["radar"] = {{"carrier_frequency_hz", r.carrier_frequency_hz},
                {"range_sampling_rate_hz", r.range_sampling_rate_hz},
                {"chirp_rate_hz_per_s", r.chirp_rate_hz_per_s},
                {"pulse_duration_s", r.pulse_duration_s},
                {"prf_hz", r.prf_hz},
                {"effective_velocity_m_s", r.effective_velocity_m_s},
                {"near_range_m", r.near_range_m},
                {"doppler_centroid_hz", r.doppler_centroid_hz},
                {"antenna_length_m", r.antenna_length_m}};
  if (!r.doppler_centroid_range_coefficients.empty()) {
    j["radar"]["doppler_centroid_reference_range_m"] = r.doppler_centroid_reference_range_m;
    j["radar"]["doppler_centroid_range_coefficients"] = r.doppler_centroid_range_coefficients;
  }
  if (p.scene) {
    const SceneParams& s = *p.scene;
    json js = {{"azimuth_lines", s.azimuth_lines}, {"range_samples", s.range_samples}, {"seed", s.seed}};
    if (s.snr_db) js["snr_db"] = *s.snr_db;
    if (s.aperture_s) js["aperture_s"] = *s.aperture_s;
    if (s.clutter_db) js["clutter_db"] = *s.clutter_db;
    js["targets"] = json::array();
    for (const Target& t : s.targets)
      js["targets"].push_back({{"range_m", t.range_m}, {"azimuth_time_s", t.azimuth_time_s},
                               {"amplitude", t.amplitude}, {"phase_rad", t.phase_rad}});
    j["scene"] = js;
  }
  return j.dump(indent) + "\n";
}

ParamsFile default_scene() {
  ParamsFile p;
  p.radar = RadarParams{9.6e9, 120e6, 2e13, 5e-6, 600, 150, 9360.0, 0, 2.0, 0, {}};
  SceneParams s;
  s.azimuth_lines = 1024;
  s.range_samples = 1024;
  s.snr_db = 20;
  s.seed = 1;
  s.aperture_s = 0.8;
  // A centre target and four around it, 200 lines / ~400 cells apart: far enough that one
  // target's sidelobes do not disturb another's ISLR.
  s.targets = {{10000.0, 0.0, 1.0, 0.0},
               {9750.0, -1.0 / 3.0, 0.8, 0.5},
               {10250.0, -1.0 / 3.0, 1.2, -1.0},
               {9750.0, 1.0 / 3.0, 0.6, 2.0},
               {10250.0, 1.0 / 3.0, 1.0, -2.5}};
  p.scene = s;
  return p;
}

}  // namespace sarfuse
