#include <gtest/gtest.h>

#include "sarfuse/error.hpp"
#include "sarfuse/params.hpp"

using namespace sarfuse;

static const char* kValid = R"({ "radar": { "carrier_frequency_hz": 9.6e9, "range_sampling_rate_hz": 120e6,
  "chirp_rate_hz_per_s": 2e13, "pulse_duration_s": 5e-6, "prf_hz": 600, "effective_velocity_m_s": 150,
  "near_range_m": 9360.0, "doppler_centroid_hz": 0, "antenna_length_m": 2.0 },
  "scene": { "azimuth_lines": 1024, "range_samples": 1024, "snr_db": 20, "seed": 1, "aperture_s": 0.8,
  "targets": [ { "range_m": 10000, "azimuth_time_s": 0.0, "amplitude": 1.0, "phase_rad": 0 } ] } })";

static std::string error_of(const std::string& text) {
  try {
    parse_params(text, "P.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

static std::string replace(std::string s, const std::string& a, const std::string& b) {
  const auto p = s.find(a);
  EXPECT_NE(p, std::string::npos) << a;
  return s.replace(p, a.size(), b);
}

TEST(Params, ParsesTheDocumentedFormat) {
  const ParamsFile p = parse_params(kValid, "P.json");
  EXPECT_DOUBLE_EQ(p.radar.prf_hz, 600);
  EXPECT_DOUBLE_EQ(p.radar.chirp_rate_hz_per_s, 2e13);
  ASSERT_TRUE(p.scene);
  EXPECT_EQ(p.scene->azimuth_lines, 1024u);
  EXPECT_EQ(p.scene->targets.size(), 1u);
  EXPECT_DOUBLE_EQ(*p.scene->aperture_s, 0.8);
  EXPECT_EQ(p.radar.replica_length(), 601);
  EXPECT_NEAR(p.radar.range_spacing_m(), 1.249135, 1e-6);
}

TEST(Params, RoundTripsThroughJson) {
  const ParamsFile a = default_scene();
  const ParamsFile b = parse_params(to_json_text(a), "x");
  EXPECT_EQ(to_json_text(a), to_json_text(b));
}

TEST(Params, ErrorsNameTheFileAndField) {
  EXPECT_NE(error_of(replace(kValid, R"("prf_hz": 600,)", "")).find("P.json: radar.prf_hz: missing"), std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"prf_hz\": 600", "\"prf_hz\": -600")).find("radar.prf_hz: must be > 0 (got -600)"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"prf_hz\": 600", "\"prf_hz\": \"fast\"")).find("radar.prf_hz: expected a number"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"range_samples\": 1024", "\"range_samples\": 512"))
                .find("longer than the record (512 range samples)"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"azimuth_lines\": 1024", "\"azimuth_lines\": 1")).find("scene.azimuth_lines: must be >= 2"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "2e13", "3e13")).find("exceeds range_sampling_rate_hz"), std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"range_m\": 10000", "\"range_m\": -1")).find("scene.targets[0].range_m"),
            std::string::npos);
  EXPECT_NE(error_of("{ \"radar\": 3 }").find("P.json: radar: missing"), std::string::npos);
  EXPECT_NE(error_of("{ not json").find("P.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"doppler_centroid_hz\": 0", "\"doppler_centroid_hz\": 1e9"))
                .find("radar.doppler_centroid_hz"),
            std::string::npos);
}

TEST(Params, SceneWithoutApertureNeedsAnAntenna) {
  std::string s = replace(kValid, "\"aperture_s\": 0.8,", "");
  s = replace(s, "\"antenna_length_m\": 2.0", "\"antenna_length_m\": 0");
  EXPECT_NE(error_of(s).find("radar.antenna_length_m"), std::string::npos);
}

// scene.clutter_db: a finite level in range, only with the antenna pattern; kept through the JSON.
TEST(Params, SceneClutterIsCheckedAndKept) {
  const std::string with = replace(kValid, "\"aperture_s\": 0.8,", "\"clutter_db\": -10,");
  const ParamsFile p = parse_params(with, "P.json");
  ASSERT_TRUE(p.scene->clutter_db.has_value());
  EXPECT_DOUBLE_EQ(*p.scene->clutter_db, -10);
  EXPECT_DOUBLE_EQ(*parse_params(to_json_text(p), "again").scene->clutter_db, -10);
  EXPECT_NE(error_of(replace(kValid, "\"aperture_s\": 0.8,", "\"clutter_db\": 500,")).find("scene.clutter_db: must be in [-200, 100]"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"aperture_s\": 0.8,", "\"clutter_db\": \"loud\",")).find("scene.clutter_db"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "\"aperture_s\": 0.8,", "\"aperture_s\": 0.8, \"clutter_db\": 0,"))
                .find("scene.clutter_db: needs the antenna pattern"),
            std::string::npos);
}
