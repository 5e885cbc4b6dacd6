// Focusing simulated scenes on the CPU backend and checking the point responses against theory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include <cmath>
#include <cstdint>
#include <limits>

#include "scenes.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/plan.hpp"
#include "sarfuse/quality.hpp"
#include "sarfuse/simulate.hpp"
#include "test_util.hpp"

using namespace sarfuse;

namespace {

ComplexImage focus(const RadarParams& radar, const ComplexImage& raw, FocusOptions opt = {}) {
  opt.backend = Backend::cpu;
  Plan plan = make_plan(radar, raw.lines(), raw.samples(), opt);
  ComplexImage slc;
  plan.focus(view_of(raw), slc);
  return slc;
}

double wrapped_deg(double a) { return std::remainder(a, 2 * M_PI) * 180 / M_PI; }

// The uniform-aperture checks: position 0.05 px, phase 1 degree, PSLR 0.3 dB of -13.26,
// ISLR 0.5 dB of the sinc's, 3 dB widths 5 % of 0.886 / bandwidth, peak gain as derived in docs.
void expect_textbook_responses(const ParamsFile& p, const ComplexImage& slc, const Window& range_window = {}) {
  const auto q = analyze_targets(slc, p.radar, p.scene->targets);
  const double islr = test::sinc_islr_db();
  const double range_width = 0.886 * p.radar.range_sampling_rate_hz / p.radar.chirp_bandwidth_hz();
  ASSERT_EQ(q.size(), p.scene->targets.size());
  for (std::size_t t = 0; t < q.size(); ++t) {
    SCOPED_TRACE("target " + std::to_string(t));
    const Target& tg = p.scene->targets[t];
    const double ba = test::aperture_doppler_bandwidth(p.radar, tg, *p.scene->aperture_s);
    EXPECT_LT(std::abs(q[t].row_error), 0.05);
    EXPECT_LT(std::abs(q[t].col_error), 0.05);
    EXPECT_LT(std::abs(wrapped_deg(q[t].peak_phase_rad - tg.phase_rad)), 1.0);
    EXPECT_NEAR(q[t].azimuth.pslr_db, -13.26, 0.3);
    EXPECT_NEAR(q[t].azimuth.islr_db, islr, 0.5);
    EXPECT_NEAR(q[t].azimuth.width_bins, 0.886 * p.radar.prf_hz / ba, 0.05 * 0.886 * p.radar.prf_hz / ba);
    if (range_window.kind == Window::Kind::none) {
      EXPECT_NEAR(q[t].range.pslr_db, -13.26, 0.3);
      EXPECT_NEAR(q[t].range.islr_db, islr, 0.5);
      EXPECT_NEAR(q[t].range.width_bins, range_width, 0.05 * range_width);
      // Gain: replica samples in range; sqrt(aperture samples x B_a / PRF) in azimuth, where the
      // unit-magnitude azimuth filter collects the aperture's energy (docs/design.md).
      const double gain = p.radar.replica_length() * std::sqrt(*p.scene->aperture_s * ba);
      EXPECT_NEAR(q[t].peak_amplitude / (tg.amplitude * gain), 1.0, 0.03);
    }
    EXPECT_GT(q[t].snr_db, 50.0);
  }
}

class SimScene : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scene = new ParamsFile(default_scene());
    raw = new ComplexImage(simulate(scene->radar, *scene->scene));
    slc = new ComplexImage(focus(scene->radar, *raw));
  }
  static void TearDownTestSuite() {
    delete scene;
    delete raw;
    delete slc;
  }
  static ParamsFile* scene;
  static ComplexImage* raw;
  static ComplexImage* slc;
};
ParamsFile* SimScene::scene = nullptr;
ComplexImage* SimScene::raw = nullptr;
ComplexImage* SimScene::slc = nullptr;

}  // namespace

TEST_F(SimScene, FiveTargetsMeetTheTextbookResponse) { expect_textbook_responses(*scene, *slc); }

TEST_F(SimScene, Fp32MatchesFp64Reference) {
  FocusOptions o;
  o.precision = Precision::fp64;
  const ComplexImage ref = focus(scene->radar, *raw, o);
  const double e = relative_l2(*slc, ref);
  EXPECT_LT(e, 1e-5);
  EXPECT_GT(e, 0.0) << "fp32 and fp64 paths are expected to differ by rounding";
}

// The RCMC interpolation's vector loop with a tail (2, 6 taps: not whole 32-byte vectors in fp32) and
// with several vectors (16 taps): fp32 against fp64 at the same tap count.
TEST_F(SimScene, OtherRcmcTapCountsMatchFp64) {
  for (const int taps : {2, 6, 16}) {
    FocusOptions o32, o64;
    o32.rcmc_taps = o64.rcmc_taps = taps;
    o64.precision = Precision::fp64;
    const double e = relative_l2(focus(scene->radar, *raw, o32), focus(scene->radar, *raw, o64));
    EXPECT_LT(e, 1e-5) << taps << " taps";
    EXPECT_GT(e, 0.0) << taps << " taps";
  }
}

TEST_F(SimScene, KaiserRangeWindowLowersTheSidelobes) {
  FocusOptions o;
  o.range_window = Window::parse("kaiser:2.5");
  const ComplexImage img = focus(scene->radar, *raw, o);
  expect_textbook_responses(*scene, img, o.range_window);
  for (const auto& q : analyze_targets(img, scene->radar, scene->scene->targets)) {
    EXPECT_NEAR(q.range.pslr_db, -20.9, 0.7);
    EXPECT_GT(q.range.width_bins, 1.1 * 0.886 * 1.2);  // broadened by the window
  }
}

TEST_F(SimScene, PlanIsReusableDeterministicAndWritesEveryPixel) {
  FocusOptions o1, o2;
  o1.backend = o2.backend = Backend::cpu;  // the CPU's thread-count determinism
  o1.threads = 1;
  o2.threads = 2;
  Plan p1 = make_plan(scene->radar, raw->lines(), raw->samples(), o1);
  Plan p2 = make_plan(scene->radar, raw->lines(), raw->samples(), o2);
  ComplexImage a(raw->lines(), raw->samples()), b(raw->lines(), raw->samples());
  for (std::size_t k = 0; k < a.size(); ++k) a.data()[k] = b.data()[k] = {NAN, NAN};  // poison
  p1.focus(view_of(*raw), a);
  p2.focus(view_of(*raw), b);
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_TRUE(std::isfinite(a.data()[k].real())) << k;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 8), 0) << "1 and 2 threads differ";
  EXPECT_EQ(std::memcmp(a.data(), slc->data(), a.size() * 8), 0) << "differs from the shared focus";
  p2.focus(view_of(*raw), b);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 8), 0) << "second run of a plan differs";
  EXPECT_GT(p2.last_times().total, 0.0);
  EXPECT_THROW(p2.focus(RawView{SampleType::complex64, raw->data(), 10, 10}, b), Error);
}

// Plan::focus_rows on the CPU: a span that wraps past the last row comes back packed in order, the very
// bits of focus()'s rows (poisoned output; fp32 and fp64); complex32 is the product writer's, refused.
TEST_F(SimScene, KeptRowsAreFocusRowsPackedInOrder) {
  for (const Precision precision : {Precision::fp32, Precision::fp64}) {
    FocusOptions o;
    o.backend = Backend::cpu;
    o.precision = precision;
    Plan plan = make_plan(scene->radar, raw->lines(), raw->samples(), o);
    ComplexImage whole;
    plan.focus(view_of(*raw), whole);
    const std::size_t samples = raw->samples();
    const RowSpan span{raw->lines() - 100, 300};  // the last 100 rows, then rows 0..199
    std::vector<std::complex<float>> rows(span.count * samples, std::complex<float>(NAN, NAN));
    plan.focus_rows(view_of(*raw), span, SampleFormat::complex64, rows.data());
    for (std::size_t k = 0; k < span.count; ++k)
      ASSERT_EQ(std::memcmp(rows.data() + k * samples, whole.row((span.first + k) % raw->lines()), samples * 8), 0)
          << "row " << k << " of the span, " << to_string(precision);
    EXPECT_GT(plan.last_times().azimuth_ifft, 0);
    EXPECT_THROW(plan.focus_rows(view_of(*raw), span, SampleFormat::complex32, rows.data()), Error);
  }
}

// Held rows (fp32): the rows focus_rows copies, where the plan's scene holds them, on 512-byte
// boundaries; spans that wrap and fp64 plans are refused.
TEST_F(SimScene, HeldRowsAreTheFocusRowsInThePlansMemory) {
  FocusOptions o;
  o.backend = Backend::cpu;
  Plan plan = make_plan(scene->radar, raw->lines(), raw->samples(), o);
  ComplexImage whole;
  plan.focus(view_of(*raw), whole);
  const RowSpan span{37, raw->lines() - 100};
  ASSERT_TRUE(plan.holds_rows(span));
  const HeldRows held = plan.focus_held_rows(view_of(*raw), span);
  ASSERT_EQ(held.count, span.count);
  EXPECT_GE(held.pitch, raw->samples());
  EXPECT_EQ(held.pitch % 64, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(held.data) % 512, 0u);
  for (std::size_t k = 0; k < span.count; ++k)
    ASSERT_EQ(std::memcmp(held.data + k * held.pitch, whole.row(span.first + k), raw->samples() * 8), 0) << "row " << k;
  const RowSpan wraps{raw->lines() - 10, 20};
  EXPECT_FALSE(plan.holds_rows(wraps));
  EXPECT_THROW(plan.focus_held_rows(view_of(*raw), wraps), Error);
  o.precision = Precision::fp64;
  Plan fp64 = make_plan(scene->radar, raw->lines(), raw->samples(), o);
  EXPECT_FALSE(fp64.holds_rows(span));
  EXPECT_THROW(fp64.focus_held_rows(view_of(*raw), span), Error);
}

// A CPU plan checks each raw line as it converts it: the first line with a NaN or infinite sample is
// thrown (NonFiniteSample: line, sample, which), whatever the thread that met it.
TEST_F(SimScene, NonFiniteRawSamplesAreRefusedNamingTheFirst) {
  FocusOptions o;
  o.backend = Backend::cpu;
  o.threads = 3;
  Plan plan = make_plan(scene->radar, raw->lines(), raw->samples(), o);
  ComplexImage bad(raw->lines(), raw->samples()), slc;
  std::memcpy(bad.data(), raw->data(), raw->size() * 8);
  bad(raw->lines() - 2, 5) = {1.0f, std::numeric_limits<float>::infinity()};
  bad(700, 31) = {std::nanf(""), 0.0f};
  bad(700, 40) = {std::numeric_limits<float>::infinity(), 0.0f};
  try {
    plan.focus(view_of(bad), slc);
    ADD_FAILURE() << "no error";
  } catch (const NonFiniteSample& e) {
    EXPECT_EQ(e.line, 700u);
    EXPECT_EQ(e.sample, 31u);
    EXPECT_TRUE(e.nan);
    EXPECT_NE(std::string(e.what()).find("sample (700, 31) is NaN"), std::string::npos) << e.what();
  }
  bad(700, 31) = {};
  bad(700, 40) = {};
  try {
    plan.focus(view_of(bad), slc);
    ADD_FAILURE() << "no error";
  } catch (const NonFiniteSample& e) {
    EXPECT_EQ(e.line, raw->lines() - 2);
    EXPECT_EQ(e.sample, 5u);
    EXPECT_FALSE(e.nan);
  }
  plan.focus(view_of(*raw), slc);  // the plan is still good
  EXPECT_EQ(std::memcmp(slc.data(), SimScene::slc->data(), slc.size() * 8), 0);
}

// Determinism (docs/reliability.md): fresh plans, any thread count (3 splits the rows unevenly), give
// the same bits with the default (estimate) planning, in fp32 and fp64; FFTW's measuring planner picks
// algorithms by timing, so its output may differ in the last bits: within 1e-5 relative L2.
TEST_F(SimScene, OutputIsBitIdenticalAcrossPlansAndThreadCounts) {
  for (Precision prec : {Precision::fp32, Precision::fp64}) {
    SCOPED_TRACE(to_string(prec));
    ComplexImage first;
    for (int threads : {1, 3, 2, 1}) {
      FocusOptions o;
      o.backend = Backend::cpu;
      o.precision = prec;
      o.threads = threads;
      Plan plan = make_plan(scene->radar, raw->lines(), raw->samples(), o);
      ComplexImage img;
      plan.focus(view_of(*raw), img);
      if (first.size() == 0) first = std::move(img);
      else EXPECT_EQ(std::memcmp(first.data(), img.data(), img.size() * 8), 0) << threads << " threads";
    }
  }
  FocusOptions m;
  m.backend = Backend::cpu;
  m.fft_planning = FftPlanning::measure;
  ComplexImage measured;
  make_plan(scene->radar, raw->lines(), raw->samples(), m).focus(view_of(*raw), measured);
  EXPECT_LT(relative_l2(measured, *slc), 1e-5);
}

TEST_F(SimScene, IntegerSamplesFocusLikeTheirComplexValues) {
  // Quantise to int16 I/Q (as a sensor would) and focus the same numbers both ways.
  const std::size_t n = raw->size();
  std::vector<std::int16_t> iq(2 * n);
  ComplexImage as_complex(raw->lines(), raw->samples());
  for (std::size_t k = 0; k < n; ++k) {
    iq[2 * k] = static_cast<std::int16_t>(std::lround(raw->data()[k].real() * 1000));
    iq[2 * k + 1] = static_cast<std::int16_t>(std::lround(raw->data()[k].imag() * 1000));
    as_complex.data()[k] = {static_cast<float>(iq[2 * k]), static_cast<float>(iq[2 * k + 1])};
  }
  FocusOptions cpu;
  cpu.backend = Backend::cpu;
  Plan plan = make_plan(scene->radar, raw->lines(), raw->samples(), cpu);
  ComplexImage a, b;
  plan.focus(RawView{SampleType::int16_iq, iq.data(), raw->lines(), raw->samples()}, a);
  plan.focus(view_of(as_complex), b);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 8), 0);
}

TEST(SimScenes, DownChirp) {
  ParamsFile p = default_scene();
  p.radar.chirp_rate_hz_per_s = -p.radar.chirp_rate_hz_per_s;
  const ComplexImage raw = simulate(p.radar, *p.scene);
  expect_textbook_responses(p, focus(p.radar, raw));
  // Focusing a down-chirp as an up-chirp must fail to compress: the check can fail.
  RadarParams wrong = p.radar;
  wrong.chirp_rate_hz_per_s = -wrong.chirp_rate_hz_per_s;
  const auto q = analyze_targets(focus(wrong, raw), p.radar, p.scene->targets);
  EXPECT_GT(q[0].range.width_bins, 3.0);
}

TEST(SimScenes, SquintedSatellite) {
  const ParamsFile p = test::squinted_satellite_scene();
  const ComplexImage raw = simulate(p.radar, *p.scene);
  const ComplexImage slc = focus(p.radar, raw);
  expect_textbook_responses(p, slc);
  // With the ambiguity wrong by one PRF the image defocuses.
  RadarParams wrong = p.radar;
  wrong.doppler_centroid_hz -= wrong.prf_hz;
  EXPECT_LT(intensity_contrast(focus(wrong, raw)), 0.5 * intensity_contrast(slc));
}

// A centroid that drifts over the swath: with the processed band centred on each column's own
// centroid every target focuses as the textbook says; centred on the mid-swath value, the band clips
// the edge targets' spectra (wider, asymmetric responses).
TEST(SimScenes, RangeDependentCentroidFocusesEveryTarget) {
  const ParamsFile p = test::drifting_centroid_scene();
  const ComplexImage raw = simulate(p.radar, *p.scene);
  FocusOptions o;
  o.backend = Backend::cpu;
  o.azimuth_bandwidth_hz = test::kDriftingBandwidth;
  ComplexImage slc;
  make_plan(p.radar, raw.lines(), raw.samples(), o).focus(view_of(raw), slc);
  expect_textbook_responses(p, slc);
  RadarParams constant = p.radar;
  constant.doppler_centroid_range_coefficients.clear();
  ComplexImage mid;
  make_plan(constant, raw.lines(), raw.samples(), o).focus(view_of(raw), mid);
  const auto q = analyze_targets(slc, p.radar, p.scene->targets), qm = analyze_targets(mid, p.radar, p.scene->targets);
  for (std::size_t t : {std::size_t{0}, std::size_t{2}}) {
    SCOPED_TRACE("edge target " + std::to_string(t));
    std::printf("target %zu: azimuth width %.3f (range-dependent centroid) vs %.3f (mid-swath), PSLR %.2f vs %.2f dB\n",
                t, q[t].azimuth.width_bins, qm[t].azimuth.width_bins, q[t].azimuth.pslr_db, qm[t].azimuth.pslr_db);
    EXPECT_GT(qm[t].azimuth.width_bins, 1.15 * q[t].azimuth.width_bins);
  }
  EXPECT_NEAR(qm[1].azimuth.width_bins, q[1].azimuth.width_bins, 0.02 * q[1].azimuth.width_bins);
}

TEST(SimScenes, AntennaPatternWeightsTheAzimuthResponse) {
  const ParamsFile p = test::antenna_pattern_scene();
  const ComplexImage slc = focus(p.radar, simulate(p.radar, *p.scene));
  // Expected azimuth response: the azimuth spectrum is the two-way pattern mapped to Doppler,
  // w(f) = sinc^2(L f / 2V) on |f| < 2V/L, so h(tau) = int w(f) cos(2 pi f tau / PRF) df, tau in lines.
  const double F = 2 * p.radar.effective_velocity_m_s / p.radar.antenna_length_m;
  auto h = [&](double tau) {
    const int n = 1000;
    double s = 0;
    for (int i = 0; i <= n; ++i) {
      const double u = -1.0 + 2.0 * i / n, f = u * F;
      const double sc = u == 0 ? 1.0 : std::sin(M_PI * u) / (M_PI * u);
      s += (i == 0 || i == n ? 0.5 : 1.0) * sc * sc * std::cos(2 * M_PI * f * tau / p.radar.prf_hz);
    }
    return s;
  };
  const double step = 0.02;
  std::vector<double> pw;
  for (double t = 0; t < 120; t += step) pw.push_back(h(t) * h(t));
  std::size_t k = 0;
  while (pw[k + 1] > 0.5 * pw[0]) ++k;
  const double width = 2 * step * (k + (pw[k] - 0.5 * pw[0]) / (pw[k] - pw[k + 1]));
  std::size_t null = 0;
  while (pw[null + 1] < pw[null]) ++null;
  double side = 0, main = 0, side_peak = 0;
  for (std::size_t i = 0; i < pw.size() && i <= 10 * null; ++i) {
    const double w = i == 0 ? 1.0 : 2.0;  // both sides
    if (i <= null) main += w * pw[i];
    else {
      side += w * pw[i];
      side_peak = std::max(side_peak, pw[i]);
    }
  }
  const double pslr = 10 * std::log10(side_peak / pw[0]), islr = 10 * std::log10(side / main);
  RecordProperty("expected_azimuth_width_px", std::to_string(width));
  RecordProperty("expected_azimuth_pslr_db", std::to_string(pslr));
  RecordProperty("expected_azimuth_islr_db", std::to_string(islr));
  const auto q = analyze_targets(slc, p.radar, p.scene->targets);
  for (std::size_t t = 0; t < q.size(); ++t) {
    SCOPED_TRACE("target " + std::to_string(t) + ": expected width " + std::to_string(width) + " px, PSLR " +
                 std::to_string(pslr) + " dB, ISLR " + std::to_string(islr) + " dB");
    EXPECT_LT(std::abs(q[t].row_error), 0.05);
    EXPECT_LT(std::abs(q[t].col_error), 0.05);
    EXPECT_LT(std::abs(wrapped_deg(q[t].peak_phase_rad - p.scene->targets[t].phase_rad)), 1.0);
    EXPECT_NEAR(q[t].azimuth.width_bins, width, 0.05 * width);
    EXPECT_NEAR(q[t].azimuth.pslr_db, pslr, 1.0);
    EXPECT_NEAR(q[t].azimuth.islr_db, islr, 1.0);
    EXPECT_NEAR(q[t].range.pslr_db, -13.26, 0.3);
  }
}
