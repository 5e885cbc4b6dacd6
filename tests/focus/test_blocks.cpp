// Long takes in azimuth blocks: a take 4x longer than a block, focused block by block, against the same
// take focused as one block (same processed band, same layout), on every product row; and targets on
// block joins keep their quality. Measured: airborne 2.1e-6; squinted 5.3e-6 (16 taps), 1.2e-5 (8).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "scenes.hpp"
#include "sarfuse/blocks.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/plan.hpp"
#include "sarfuse/quality.hpp"
#include "sarfuse/simulate.hpp"

using namespace sarfuse;

namespace {

ComplexImage focus_take(const RadarParams& radar, const ComplexImage& raw, const FocusOptions& o, const BlockLayout& b) {
  const std::size_t nr = raw.samples();
  ComplexImage product(b.rows, nr);
  std::size_t at = 0;
  Plan plan = make_block_plan(radar, nr, o, b);
  focus_in_blocks(
      plan, b,
      [&](std::size_t first, std::size_t count, std::complex<float>* dst) {
        ASSERT_LE(first + count, raw.lines());
        std::memcpy(dst, raw.row(first), count * nr * sizeof(std::complex<float>));
      },
      [&](const std::complex<float>* rows, std::size_t count) {
        ASSERT_LE(at + count, b.rows);
        std::memcpy(product.row(at), rows, count * nr * sizeof(std::complex<float>));
        at += count;
      });
  EXPECT_EQ(at, b.rows);
  return product;
}

void check_blocks(const ParamsFile& p, std::size_t block_lines, const char* name, double tolerance,
                  int rcmc_taps = 8, Backend backend = Backend::cpu) {
  const ComplexImage raw = simulate(p.radar, *p.scene);
  const std::size_t na = raw.lines(), nr = raw.samples();
  FocusOptions o;
  o.backend = backend;
  o.rcmc_taps = rcmc_taps;
  const BlockLayout whole = plan_azimuth_blocks(p.radar, na, nr, o);
  const BlockLayout blocks = plan_azimuth_blocks(p.radar, na, nr, o, block_lines);
  ASSERT_EQ(whole.blocks, 1u);
  EXPECT_GE(blocks.blocks, 4u);
  ASSERT_EQ(whole.rows, blocks.rows);
  EXPECT_EQ(whole.eta_first_s, blocks.eta_first_s);
  const ComplexImage one = focus_take(p.radar, raw, o, whole);
  const ComplexImage many = focus_take(p.radar, raw, o, blocks);
  double err = 0, norm = 0;
  for (std::size_t k = 0; k < one.size(); ++k) {
    err += std::norm(std::complex<double>(many.data()[k]) - std::complex<double>(one.data()[k]));
    norm += std::norm(std::complex<double>(one.data()[k]));
  }
  const double e = std::sqrt(err / norm);
  EXPECT_LT(e, tolerance);
  // Targets (several on joins) analysed on the product's own zero-Doppler grid.
  AnalysisOptions ao;
  ao.eta_first_s = blocks.eta_first_s;
  std::vector<Target> inside;
  int on_joins = 0;
  for (const Target& t : p.scene->targets) {
    const double row = (t.azimuth_time_s - blocks.eta_first_s) * p.radar.prf_hz;
    if (row < 20 || row > static_cast<double>(blocks.rows) - 20) continue;
    inside.push_back(t);
    const double to_join = std::fmod(row, static_cast<double>(blocks.step));
    if (std::min(to_join, static_cast<double>(blocks.step) - to_join) < 40) ++on_joins;
  }
  ASSERT_GE(inside.size(), 8u);
  EXPECT_GE(on_joins, 2);
  const auto q_many = analyze_targets(many, p.radar, inside, ao), q_one = analyze_targets(one, p.radar, inside, ao);
  for (std::size_t i = 0; i < inside.size(); ++i) {
    EXPECT_LT(std::abs(q_many[i].row_error), 0.05) << i;
    EXPECT_LT(std::abs(q_many[i].col_error), 0.05) << i;
    EXPECT_NEAR(q_many[i].azimuth.pslr_db, q_one[i].azimuth.pslr_db, 0.01) << i;
    EXPECT_NEAR(q_many[i].azimuth.width_bins, q_one[i].azimuth.width_bins, 1e-3 * q_one[i].azimuth.width_bins) << i;
    EXPECT_NEAR(q_many[i].azimuth.islr_db, q_one[i].azimuth.islr_db, 0.01) << i;
  }
}

}  // namespace

TEST(AzimuthBlocks, LongAirborneTakeEqualsOnePiece) {
  ParamsFile p = default_scene();  // airborne X band, 600 Hz PRF, 2 m antenna: 133 Hz processed
  p.scene->azimuth_lines = 8192;
  p.scene->snr_db.reset();
  p.scene->aperture_s.reset();  // the antenna pattern
  p.scene->targets.clear();
  // Targets every 0.37 s: several fall on or near the block joins.
  for (int k = -16; k <= 16; ++k) p.scene->targets.push_back({9800.0 + 25.0 * (k % 5), k * 0.37, 1.0, 0.1 * k});
  check_blocks(p, 2048, "airborne", 1e-5);
}

TEST(AzimuthBlocks, SquintedSatelliteTakeEqualsOnePiece) {
  ParamsFile p = test::squinted_satellite_scene();  // 2.3 PRF squint: the support sits far from zero Doppler
  p.scene->azimuth_lines = 8192;
  p.scene->snr_db.reset();
  p.scene->aperture_s.reset();
  p.scene->targets.clear();
  const double dr = p.radar.range_spacing_m();
  for (int k = -7; k <= 7; ++k)
    p.scene->targets.push_back(
        {850000 + (300.3 + 37 * (k + 7)) * dr, k * 0.29 - beam_centre_offset_s(p.radar, 850000.0), 1.0, 0.2 * k});
  // 16 taps: the 8-tap kernel's own error (about -30 dB, a function of the fractional shift, so a
  // sawtooth along Doppler under this squint's large migration) leaves 1.2e-5 between the two grids.
  check_blocks(p, 2048, "squinted satellite", 1e-5, 16);
  check_blocks(p, 2048, "squinted satellite, 8 taps", 2e-5, 8);
}

TEST(AzimuthBlocks, LayoutCoversTheFullyIlluminatedTargetsOnce) {
  const ParamsFile p = test::squinted_satellite_scene();
  FocusOptions o;
  const BlockLayout b = plan_azimuth_blocks(p.radar, 10000, 1024, o, 3000);
  EXPECT_EQ(b.rows, 10000 - b.aperture_lines + 1);
  EXPECT_EQ(2 * b.pad_lines, b.support_lines - b.aperture_lines);
  EXPECT_LT(b.aperture_lines, b.support_lines);
  EXPECT_EQ(b.step, 3000 - b.support_lines + 1);
  EXPECT_EQ(b.blocks, (b.rows + b.step - 1) / b.step);
  // The flat part of the default taper is the 3-dB Doppler bandwidth, within the PRF.
  EXPECT_NEAR(b.bandwidth_hz,
              std::min(p.radar.prf_hz, 0.886 * 2 * p.radar.effective_velocity_m_s / p.radar.antenna_length_m / 0.7), 1e-9);
  const ParamsFile air = default_scene();
  EXPECT_NEAR(plan_azimuth_blocks(air.radar, 4096, 1024, o).bandwidth_hz, 0.886 * 2 * 150.0 / 2.0 / 0.7, 1e-9);
  // Product row 0 is the first zero-Doppler line whose aperture starts at the take's first line.
  EXPECT_NEAR(b.eta_first_s, (b.first_valid - static_cast<double>(b.pad_lines) - 5000.0) / p.radar.prf_hz, 1e-12);
  EXPECT_GT(b.first_valid, 0);
}

TEST(AzimuthBlocks, TooShortBlocksAndTakesAreRefused) {
  const ParamsFile p = default_scene();
  FocusOptions o;
  EXPECT_THROW(plan_azimuth_blocks(p.radar, 4096, 1024, o, 64), Error);
  EXPECT_THROW(plan_azimuth_blocks(p.radar, 300, 1024, o), Error);
  try {
    plan_azimuth_blocks(p.radar, 4096, 1024, o, 64);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("block_lines 64: expected at least"), std::string::npos) << e.what();
  }
}

TEST(AzimuthBlocks, BlockLengthFollowsTheMemoryBudget) {
  const ParamsFile p = test::squinted_satellite_scene();
  FocusOptions o;
  o.backend = Backend::cpu;
  o.threads = 2;
  const std::size_t all = block_lines_for_memory(p.radar, 20000, 1024, o, 0, 0);
  const BlockLayout whole = plan_azimuth_blocks(p.radar, 20000, 1024, o);
  EXPECT_EQ(all, fft_friendly_size(20000 + 2 * whole.pad_lines));
  const std::size_t budget = 200u << 20;
  const std::size_t n = block_lines_for_memory(p.radar, 20000, 1024, o, budget, 0);
  EXPECT_LT(n, all);
  EXPECT_EQ(n, fft_friendly_size(n));
  FocusOptions po = o;
  po.azimuth_bandwidth_hz = plan_azimuth_blocks(p.radar, 20000, 1024, o).bandwidth_hz;
  // The plan (with one SLC block) and the pipeline's other three block buffers.
  EXPECT_LE(plan_memory(p.radar, n, 1024, po).host_bytes + 3 * n * 1024 * 8, budget);
  EXPECT_GT(plan_memory(p.radar, fft_friendly_size(n + 1), 1024, po).host_bytes + 3 * fft_friendly_size(n + 1) * 1024 * 8,
            budget);
  EXPECT_THROW(block_lines_for_memory(p.radar, 20000, 1024, o, 1u << 20, 0), Error);
}
