// Doppler centroid estimation on simulated distributed scenes: clutter in every cell, a few bright
// points, noise; C and X band; fractional centroids over the whole interval, +-0.45..0.5 PRF
// included, and ambiguities from -7 to +7. Every case: the right ambiguity and a fraction within 2 %
// of the PRF (a warning on a right answer is allowed: it errs on the safe side). Pure clutter
// (speckle, whose intensity contrast is 1 whatever the focus): the ambiguity right or the estimate
// flagged as unsure, with the warning telling how to force one.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sarfuse/doppler.hpp"
#include "sarfuse/simulate.hpp"

using namespace sarfuse;

namespace {

struct Case {
  char band;        // 'C' or 'X'
  double fraction;  // x PRF
  int ambiguity;
  bool points = true;
};

std::string name_of(const Case& c) {
  std::string s = std::string(1, c.band) + (c.fraction < 0 ? "_minus" : "_plus") +
                  std::to_string(static_cast<int>(std::lround(std::abs(c.fraction) * 100))) + "_k" +
                  (c.ambiguity < 0 ? "minus" : "") + std::to_string(std::abs(c.ambiguity));
  return c.points ? s : s + "_clutter_only";
}

ParamsFile scene_for(const Case& c) {
  ParamsFile p;
  SceneParams s;
  if (c.band == 'C') {  // RADARSAT-like: 5.3 GHz, 10 m antenna, PRF 1700 Hz, 850 km
    p.radar = RadarParams{5.3e9, 24e6, -1.0e12, 15e-6, 1700, 7100, 850000.0, 0, 10.0, 0, {}};
    s.azimuth_lines = 2048;
    s.range_samples = 1024;
  } else {  // TerraSAR-X-like: 9.6 GHz, 4.8 m antenna, PRF 3500 Hz, 600 km, 75 MHz
    p.radar = RadarParams{9.6e9, 90e6, 1.875e13, 4e-6, 3500, 7500, 600000.0, 0, 4.8, 0, {}};
    s.azimuth_lines = 3072;
    s.range_samples = 1024;
  }
  p.radar.doppler_centroid_hz = (c.ambiguity + c.fraction) * p.radar.prf_hz;
  s.snr_db = 5;
  s.clutter_db = 0;  // each cell's reflectivity as strong as a unit target
  s.seed = static_cast<std::uint64_t>(1000 + 37 * c.ambiguity + std::lround(100 * c.fraction) + (c.band == 'X' ? 7 : 0));
  if (c.points) {
    // Four bright points, each fully illuminated in the record.
    const double crossings[] = {-0.12, -0.03, 0.05, 0.11};
    const double columns[] = {380.2, 520.7, 610.4, 700.9};
    const double scale = c.band == 'C' ? 1.0 : 0.7;
    for (int t = 0; t < 4; ++t) {
      const double r = p.radar.range_of_column(columns[t]);
      s.targets.push_back({r, scale * crossings[t] - beam_centre_offset_s(p.radar, r), 30.0, 0.7 * t});
    }
  }
  p.scene = s;
  return p;
}

class DopplerClutter : public ::testing::TestWithParam<Case> {};

TEST_P(DopplerClutter, RightAmbiguityOrSaysItIsUnsure) {
  const Case c = GetParam();
  const ParamsFile p = scene_for(c);
  const ComplexImage raw = simulate(p.radar, *p.scene);
  const DopplerEstimate e = estimate_doppler(p.radar, view_of(raw));
  const double prf = p.radar.prf_hz, truth = p.radar.doppler_centroid_hz;
  const double error = e.centroid_hz - truth;
  const int k = static_cast<int>(std::lround((truth - e.fractional_hz) / prf));
  std::printf("%-24s truth %9.1f Hz: estimated %9.1f Hz (fraction error %+6.2f %% PRF), ambiguity %d (true %d) by %s, "
              "confidence %.2f; MLCC %.0f +- %.0f, MLBF %.0f +- %.0f Hz, %zu candidates, %d patch focuses %.2f s\n",
              name_of(c).c_str(), truth, e.centroid_hz, 100 * std::remainder(error, prf) / prf, e.ambiguity, k,
              e.ambiguity_source.c_str(), e.confidence, e.mlcc_centroid_hz, e.mlcc_sigma_hz, e.mlbf_centroid_hz,
              e.mlbf_sigma_hz, e.candidates.size(), e.patch.focuses, e.patch.seconds);
  const bool right = std::abs(error) < 0.5 * prf;
  if (c.points) {
    EXPECT_TRUE(right) << "ambiguity " << e.ambiguity << ", centroid " << e.centroid_hz << " Hz vs " << truth;
    EXPECT_LT(std::abs(error), 0.02 * prf);
  } else {
    EXPECT_TRUE(right || e.low_confidence()) << "wrong and sure: " << e.centroid_hz << " Hz vs " << truth;
    EXPECT_LT(std::abs(std::remainder(error, prf)), 0.02 * prf);
    if (e.low_confidence()) EXPECT_NE(e.warning().find("--doppler-ambiguity"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, DopplerClutter,
    ::testing::Values(Case{'C', -0.49, -6}, Case{'C', -0.45, 3}, Case{'C', -0.30, -7}, Case{'C', 0.0, 0},
                      Case{'C', 0.20, 5}, Case{'C', 0.45, -2}, Case{'C', 0.49, 7}, Case{'X', -0.49, 4},
                      Case{'X', -0.45, -5}, Case{'X', 0.10, -1}, Case{'X', 0.30, 2}, Case{'X', 0.45, 6},
                      Case{'X', 0.49, -7}, Case{'C', 0.47, -5, false}, Case{'X', -0.47, 3, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return name_of(info.param); });

}  // namespace
