// Real data: RADARSAT-1 scene5 (English Bay) from ../shared/data; skipped, saying why, without it.
#include <gtest/gtest.h>

#include <filesystem>

#include "sarfuse/io.hpp"
#include "sarfuse/plan.hpp"
#include "sarfuse/quality.hpp"
#include "test_util.hpp"

using namespace sarfuse;

TEST(Radarsat, Scene5FocusesSharplyWithTheAbsoluteDopplerCentroid) {
  const std::string path = test::shared_data_dir() + "/radarsat1/scene5/CDdata1.mat";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "RADARSAT-1 data not found at " << path << " (../shared absent)";
  const RadarParams radar = load_params(test::source_dir() + "/examples/radarsat1_scene5.json").radar;
  const RawData raw = read_raw(path, "data");
  auto contrast = [&](double fdc) {
    RadarParams r = radar;
    r.doppler_centroid_hz = fdc;
    Plan plan = make_plan(r, raw.lines, raw.samples, {});
    ComplexImage slc;
    plan.focus(raw.view(), slc);
    return intensity_contrast(slc);
  };
  const double good = contrast(-6900), zero = contrast(0), wrong_ambiguity = contrast(-6900 + radar.prf_hz);
  RecordProperty("contrast_focused", std::to_string(good));
  RecordProperty("contrast_doppler_0", std::to_string(zero));
  RecordProperty("contrast_wrong_ambiguity", std::to_string(wrong_ambiguity));
  std::printf("intensity contrast: f_dc -6900 Hz %.3f, f_dc 0 %.3f, f_dc -6900+PRF %.3f\n", good, zero, wrong_ambiguity);
  EXPECT_GE(good, 3.0 * zero);
  EXPECT_GT(good, wrong_ambiguity);
}
