// A simulated stripmap take with Sentinel-1 S3-like radar fields, encoded by our encoder into a
// measurement file (FDBAQ, PVT records in the sub-commutated words) and focused from it through the
// file-to-product pipeline with the radar parameters taken from the packets: every target where it is
// simulated and as sharp as when the un-encoded raw data are focused.
#include <gtest/gtest.h>

#include <filesystem>

#include "sarfuse/focus_file.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/quality.hpp"
#include "sarfuse/sentinel1.hpp"
#include "sarfuse/simulate.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace sarfuse;
using namespace sarfuse::sentinel1;

namespace {

// S3's radar fields with an 8 us pulse (S3 transmits 44 us; shorter keeps the test small).
PacketHeader s3_like_header() {
  PacketHeader h = s3_echo_header();
  h.tx_pulse_length = 300;
  h.tx_pulse_start_frequency = 2891;  // sign 0: about -B/2
  return h;
}

TEST(Level0Scene, EncodedTakeFocusesLikeItsRawData) {
  const std::string dir = test::temp_dir("level0scene");
  const PacketHeader first = s3_like_header();
  const std::vector<PvtRecord> pvt = polar_orbit(packet_time_s(first), 2.0);
  const std::size_t lines = 2048, samples = 2048;
  // The take's radar parameters as the packets give them (a take of one quad per line suffices).
  const std::string proxy = dir + "/proxy.dat";
  ComplexImage one_quad(lines, 2);
  std::fill(one_quad.data(), one_quad.data() + one_quad.size(), std::complex<float>(1.f, 1.f));
  write_measurement_file(proxy, one_quad, first, pvt, {});
  RadarParams radar = radar_parameters(index_lines(proxy, {}));
  EXPECT_NEAR(radar.prf_hz, 1924.96, 0.01);
  EXPECT_NEAR(radar.range_sampling_rate_hz, 66.7284e6, 1e3);
  EXPECT_NEAR(radar.effective_velocity_m_s, 7500.0 * std::sqrt(6378137.0 / (6378137.0 + 700e3)), 1.0);  // over the equator

  SceneParams s;
  s.azimuth_lines = lines;
  s.range_samples = samples;
  s.snr_db = 25;
  s.seed = 11;
  s.aperture_s = 0.3;
  const double dr = radar.range_spacing_m();
  s.targets = {{radar.near_range_m + 600.3 * dr, -0.2, 1.0, 0.4},
               {radar.near_range_m + 1024.6 * dr, 0.05, 0.8, -1.1},
               {radar.near_range_m + 1400.2 * dr, 0.25, 1.2, 2.0}};
  ComplexImage raw = simulate(radar, s, 0);
  double power = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) power += std::norm(raw.data()[i]);
  const float scale = static_cast<float>(40.0 / std::sqrt(power / static_cast<double>(raw.size())));  // ADC-like levels
  for (std::size_t i = 0; i < raw.size(); ++i) raw.data()[i] *= scale;
  const std::string take = dir + "/s1a-s3-raw-s-vv-sim.dat";
  EncodeOptions eo;
  eo.brc = 4;
  write_measurement_file(take, raw, first, pvt, eo);
  write_npy(dir + "/raw.npy", raw);

  DecodeOptions o;
  const RadarParams from_take = radar_parameters(index_lines(take, o));
  EXPECT_EQ(from_take.prf_hz, radar.prf_hz);
  EXPECT_EQ(from_take.near_range_m, radar.near_range_m);
  EXPECT_EQ(from_take.effective_velocity_m_s, radar.effective_velocity_m_s);

  FocusRequest base;
  base.radar = radar;
  base.circular = true;
  base.keep_image = true;
  base.options.backend = Backend::cpu;
  FocusRequest from_packets = base, from_raw = base;
  from_packets.input = take;
  from_packets.output = dir + "/from_packets.npy";
  from_packets.polarisation = "VV";
  from_raw.input = dir + "/raw.npy";
  from_raw.output = dir + "/from_raw.npy";
  FocusSession session;
  const FocusReport a = session.focus(from_packets), b = session.focus(from_raw);
  const auto qa = analyze_targets(a.image, radar, s.targets), qb = analyze_targets(b.image, radar, s.targets);
  ASSERT_EQ(qa.size(), 3u);
  for (std::size_t k = 0; k < qa.size(); ++k) {
    std::printf("target %zu: from packets row/col error %+.3f/%+.3f px, PSLR %.2f/%.2f dB (raw data %.2f/%.2f)\n", k,
                qa[k].row_error, qa[k].col_error, qa[k].range.pslr_db, qa[k].azimuth.pslr_db, qb[k].range.pslr_db,
                qb[k].azimuth.pslr_db);
    EXPECT_LE(std::fabs(qa[k].row_error), 0.05) << k;
    EXPECT_LE(std::fabs(qa[k].col_error), 0.05) << k;
    EXPECT_NEAR(qa[k].range.pslr_db, qb[k].range.pslr_db, 0.3) << k;
    EXPECT_NEAR(qa[k].azimuth.pslr_db, qb[k].azimuth.pslr_db, 0.3) << k;
  }
  fs::remove_all(dir);
}

}  // namespace
