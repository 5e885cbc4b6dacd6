#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/filters.hpp"
#include "core/geometry.hpp"
#include "sarfuse/error.hpp"
#include "test_util.hpp"

using namespace sarfuse;

static RadarParams x_band() { return default_scene().radar; }

TEST(Geometry, AbsoluteDopplerIsTheAliasNearestTheCentroid) {
  const double prf = 1256.98;
  for (double fdc : {-6900.0, -3.7 * prf, 0.0, 0.49 * prf, 2.3 * prf}) {
    for (long k = 0; k < 1536; k += 17) {
      const double f = core::absolute_doppler(k, 1536, prf, fdc);
      EXPECT_GE(f, fdc - prf / 2 - 1e-9);
      EXPECT_LT(f, fdc + prf / 2 + 1e-9);
      const double cycles = (f - k * prf / 1536) / prf;  // differs from the bin by whole PRFs
      EXPECT_NEAR(cycles, std::round(cycles), 1e-9);
    }
  }
}

TEST(Geometry, MigrationFactorKeepsPrecisionForSmallSquint) {
  const double lambda = 0.0566, v = 7062;
  for (double f : {1e-3, 1.0, 100.0, 6900.0, 40000.0}) {
    const long double x = lambda * f / (2.0L * v), x2 = x * x;
    // Reference: the series of sqrt(1 - x^2) - 1 where it converges fast, long double sqrt elsewhere.
    const long double exact = x < 1e-3L ? -x2 / 2 - x2 * x2 / 8 - x2 * x2 * x2 / 16
                                        : std::sqrt(1.0L - x2) - 1.0L;
    EXPECT_NEAR(core::migration_d_minus_one(f, lambda, v) / static_cast<double>(exact), 1.0, 1e-12) << f;
    EXPECT_NEAR(core::migration_d(f, lambda, v), static_cast<double>(1.0L + exact), 1e-15);
  }
}

TEST(Filters, RangeMatchedFilterCompressesTheReplicaToItsLength) {
  const RadarParams r = x_band();
  const std::size_t n = 2048;
  const auto h = core::range_matched_filter(r, n, Window{});
  // Replica at delay 100 samples: spectrum x filter, inverse DFT (1/n folded into the filter).
  std::vector<std::complex<double>> s(n, 0.0);
  const int half = r.replica_half_length();
  for (int k = -half; k <= half; ++k) s[100 + k + half] = core::replica_sample(r, k);
  auto spec = test::direct_dft(s, -1);
  for (std::size_t m = 0; m < n; ++m) spec[m] *= h[m];
  const auto y = test::direct_dft(spec, +1);
  std::size_t best = 0;
  for (std::size_t j = 0; j < n; ++j)
    if (std::abs(y[j]) > std::abs(y[best])) best = j;
  EXPECT_EQ(best, static_cast<std::size_t>(100 + half));
  EXPECT_NEAR(std::abs(y[best]), r.replica_length(), 1e-6);
  EXPECT_NEAR(std::arg(y[best]), 0.0, 1e-9);
}

TEST(Filters, WindowedFilterIsBandLimitedToTheChirp) {
  const RadarParams r = x_band();
  const std::size_t n = 1200;
  const auto h = core::range_matched_filter(r, n, Window::parse("kaiser:2.5"));
  for (std::size_t m = 0; m < n; ++m) {
    const double f = core::fft_bin_frequency(static_cast<long>(m), static_cast<long>(n), r.range_sampling_rate_hz);
    if (std::abs(f) > r.chirp_bandwidth_hz() / 2) EXPECT_EQ(std::abs(h[m]), 0.0) << f;
  }
}

TEST(Filters, Windows) {
  EXPECT_DOUBLE_EQ(Window::parse("kaiser:2.5").weight(0), 1.0);
  EXPECT_NEAR(Window::parse("kaiser:2.5").weight(0.5), 1.0 / std::cyl_bessel_i(0.0, 2.5), 1e-12);
  EXPECT_NEAR(Window::parse("hamming").weight(0.5), 0.08, 1e-12);
  EXPECT_EQ(Window::parse("none").weight(0.3), 1.0);
  EXPECT_EQ(Window::parse("kaiser").weight(0.51), 0.0);
  EXPECT_THROW(Window::parse("blackman"), Error);
  EXPECT_THROW(Window::parse("kaiser:x"), Error);
}

TEST(Filters, SincTableRowsSumToOneAndInterpolateBandLimitedSignals) {
  const auto t = core::make_sinc_table(8);
  for (int r = 0; r <= t.fractions; r += 7) {
    double s = 0;
    for (int i = 0; i < t.taps; ++i) s += t.weights[r * t.taps + i];
    EXPECT_NEAR(s, 1.0, 1e-12);
  }
  // A sum of tones within +-0.35 cycles/sample. An 8-tap Kaiser(2.5) sinc is accurate to a few
  // percent there (about -30 dB, as Cumming & Wong tabulate for this kernel) and better inside.
  const double freqs[] = {-0.35, -0.2, 0.05, 0.3};
  auto signal = [&](double x) {
    std::complex<double> s = 0;
    for (double f : freqs) s += std::polar(1.0, 2 * M_PI * f * x);
    return s;
  };
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(20, 80);
  double worst = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const double p = u(g);
    const double fl = std::floor(p);
    double blend = 0;
    const double* w = t.weights.data() + core::sinc_row_blend(p - fl, t.fractions, blend) * t.taps;
    std::complex<double> acc = 0;
    for (int i = 0; i < t.taps; ++i)
      acc += signal(fl - t.taps / 2 + 1 + i) * (w[i] + blend * (w[i + t.taps] - w[i]));
    worst = std::max(worst, std::abs(acc - signal(p)) / 4.0);
  }
  EXPECT_LT(worst, 4e-2);
  EXPECT_GT(worst, 1e-6);  // an interpolator, not an identity: the check can fail
}

TEST(Filters, DopplerRowsDescribeTheHyperbolicMigration) {
  RadarParams r = x_band();
  r.doppler_centroid_hz = 2.3 * r.prf_hz;
  const std::size_t na = 256, nr = 512;
  const auto rows = core::azimuth_filter(r, na, nr, true, Window{}, 0).rows;
  const double lambda = r.wavelength_m(), dr = r.range_spacing_m();
  for (std::size_t k = 0; k < na; k += 13) {
    const auto& row = rows[k];
    const double d = core::migration_d(row.f_eta, lambda, r.effective_velocity_m_s);
    for (double j : {0.0, 100.0, 511.0}) {
      const double r0 = r.range_of_column(j);
      EXPECT_NEAR(row.rcmc_offset + row.rcmc_slope * j, (r0 / d - r.near_range_m) / dr, 1e-7);
      // Filter phase 4 pi R0 D / lambda + pi/4 modulo 2 pi, against long double.
      const long double exact = std::fmod(4.0L * M_PI * r0 * d / lambda + M_PI / 4, 2.0L * M_PI);
      const double got = std::fmod(row.az_phase0 + row.az_phase_step * j, 2.0 * M_PI);
      EXPECT_NEAR(std::remainder(got - static_cast<double>(exact), 2 * M_PI), 0.0, 1e-6);
    }
    EXPECT_NEAR(row.weight, 1.0 / na, 1e-15);
    EXPECT_GT(row.src_inverse_rate, 0.0);
  }
}

TEST(Filters, AzimuthBandLimitAndWindowAreCentredOnTheCentroid) {
  RadarParams r = x_band();
  r.doppler_centroid_hz = -1.7 * r.prf_hz;
  const auto rows = core::azimuth_filter(r, 600, 64, false, Window::parse("hamming"), 300.0).rows;
  for (const auto& row : rows) {
    const double x = (row.f_eta - r.doppler_centroid_hz) / 300.0;
    if (std::abs(x) > 0.5) EXPECT_EQ(row.weight, 0.0);
    else EXPECT_NEAR(row.weight * 600, 0.54 + 0.46 * std::cos(2 * M_PI * x), 1e-12);
    EXPECT_EQ(row.src_inverse_rate, 0.0);
  }
}

// A centroid that drifts over the swath: each column's band is centred on its own f_dc(R), every bin
// keeps one alias (the bandwidth shrinks to PRF - drift when more was asked for), and the weights the
// backends form from the table equal the window at the column's own offset.
TEST(Filters, RangeDependentCentroidMovesTheBandPerColumn) {
  RadarParams r = x_band();
  const std::size_t na = 512, nr = 2000;
  r.doppler_centroid_hz = 3.4 * r.prf_hz;
  r.doppler_centroid_reference_range_m = r.range_of_column(1000);
  r.doppler_centroid_range_coefficients = {0.08 * r.prf_hz / (1000 * r.range_spacing_m()), 1e-9};
  const Window hamming = Window::parse("hamming");
  const core::AzimuthFilter az = core::azimuth_filter(r, na, nr, false, hamming, 0);
  double lo = 1e300, hi = -1e300;
  for (std::size_t j = 0; j < nr; ++j) {
    lo = std::min(lo, r.doppler_centroid_at(r.range_of_column(j)));
    hi = std::max(hi, r.doppler_centroid_at(r.range_of_column(j)));
  }
  EXPECT_NEAR(az.centroid_spread_hz, hi - lo, 1e-9);
  EXPECT_GT(az.centroid_spread_hz, 0.15 * r.prf_hz);
  EXPECT_NEAR(az.bandwidth_hz, r.prf_hz - (hi - lo), 1e-9);
  ASSERT_EQ(az.column_shift.size(), nr);
  int inside = 0, outside = 0;
  for (std::size_t k = 0; k < na; ++k) {
    const auto& row = az.rows[k];
    for (std::size_t j : {std::size_t{0}, std::size_t{700}, nr - 1}) {
      const double fdc = r.doppler_centroid_at(r.range_of_column(static_cast<double>(j)));
      const double x = (row.f_eta - fdc) / az.bandwidth_hz;
      // The bin's one alias is the nearest to this column's centroid whenever the column uses it.
      const double w = core::window_lerp(az.window.data(), core::AzimuthFilter::kWindowIntervals,
                                         row.band_x - az.column_shift[j]);
      if (std::abs(x) <= 0.5) {
        ++inside;
        EXPECT_LT(std::abs(row.f_eta - fdc), 0.5 * r.prf_hz);
        EXPECT_NEAR(w, hamming.weight(x), 2e-7);
        EXPECT_GT(row.weight, 0.0);
      } else {
        ++outside;
        EXPECT_EQ(w, 0.0);
      }
    }
  }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 50);
  // A requested bandwidth wider than PRF - drift is reduced, and the plan says so.
  const core::AzimuthFilter wide = core::azimuth_filter(r, na, nr, false, Window{}, 0.99 * r.prf_hz);
  EXPECT_NEAR(wide.bandwidth_hz, r.prf_hz - (hi - lo), 1e-9);
  EXPECT_NE(wide.note.find("reduced"), std::string::npos);
}

// Blending the two table rows around a fraction is within 1e-6 of the windowed sinc itself (4.2e-7 at
// the 1024 fractions of the default table), far closer than the nearest row (1/2048 of a sample away).
TEST(Filters, SincRowsBlendToTheExactKernel) {
  const core::SincTable t = core::make_sinc_table(8);
  const core::SincTable exact_rows = core::make_sinc_table(8, 997);  // row i: the kernel at fraction i / 997
  double worst_blend = 0, worst_nearest = 0;
  for (int i = 0; i < 997; ++i) {
    const double frac = i / 997.0;
    double blend = 0;
    const int r = core::sinc_row_blend(frac, t.fractions, blend);
    const int rn = static_cast<int>(frac * t.fractions + 0.5);
    for (int q = 0; q < 8; ++q) {
      const double a = t.weights[r * 8 + q], b = t.weights[(r + 1) * 8 + q];
      const double exact = exact_rows.weights[static_cast<std::size_t>(i) * 8 + q];
      worst_blend = std::max(worst_blend, std::abs(a + blend * (b - a) - exact));
      worst_nearest = std::max(worst_nearest, std::abs(t.weights[rn * 8 + q] - exact));
    }
  }
  EXPECT_LT(worst_blend, 1e-6);
  EXPECT_GT(worst_nearest, 1e-4);
}

// The GPU's RCMC positions in 32.32 fixed point: the floor and the table row / blend of a position
// agree with the float64 path (sinc_row_blend of p - floor(p)) at random positions of both signs and
// up to 2e4 samples; a walk of fixed-point steps stays within 2^-28 samples of each position formed
// directly; the GPU's FP32 table holds every row's weights rounded to FP32.
TEST(Filters, FixedPointRcmcPositionsMatchFloat64) {
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> pos(-3000.0, 20000.0), slope(0.97, 1.05);
  const int fractions = core::SincTable{}.fractions;
  int rows_off = 0;
  for (int k = 0; k < 200000; ++k) {
    const double p = pos(g);
    const std::int64_t f = core::fixed_position(p);
    ASSERT_EQ(core::fixed_floor(f), static_cast<int>(std::floor(p))) << p;
    double t64 = 0;
    const int r64 = core::sinc_row_blend(p - std::floor(p), fractions, t64);
    float t = 0;
    const int r = core::fixed_row_blend(f, fractions, t);
    ASSERT_GE(r, 0);
    ASSERT_LT(r, fractions);
    // Same row, or the neighbour when p sits within rounding of a row boundary (the blend then ~0 / ~1).
    const double pos64 = r64 + t64, posf = r + static_cast<double>(t);
    EXPECT_NEAR(posf, pos64, 2e-6) << p;
    rows_off += r != r64;
  }
  EXPECT_LT(rows_off, 10);
  for (int k = 0; k < 1000; ++k) {
    const double offset = pos(g), s = slope(g);
    const int tid = static_cast<int>(g() % 1024), threads = 512;
    std::int64_t walk = core::fixed_position(offset + s * tid);
    const std::int64_t step = core::fixed_position(s * threads);
    for (int i = 0; i < 16; ++i, walk += step) {
      const std::int64_t direct = core::fixed_position(offset + s * (tid + i * threads));
      EXPECT_LE(std::abs(static_cast<double>(walk - direct)), 16.0) << "output " << i;  // 16 x 2^-32 samples
    }
  }
  EXPECT_EQ(core::unit_fraction(0u), 0.0f);
  EXPECT_NEAR(core::unit_fraction(0x80000000u), 0.5f, 0.0f);
  EXPECT_LT(core::unit_fraction(0xffffffffu), 1.0f);
  for (int taps : {8, 6, 2}) {  // quad-major: taps 4q..4q+3 of row r at 4 (q rows + r), padding zero
    const core::SincTable t = core::make_sinc_table(taps);
    const std::vector<float> fp32 = core::sinc_table_fp32(t);
    const std::size_t rows = t.fractions + 1, planes = (taps + 3) / 4;
    ASSERT_EQ(fp32.size(), planes * rows * 4) << taps << " taps";
    for (std::size_t r : {std::size_t{0}, std::size_t{1}, rows / 2, rows - 2, rows - 1})
      for (std::size_t q = 0; q < planes * 4; ++q)
        EXPECT_EQ(fp32[(q / 4) * rows * 4 + r * 4 + q % 4],
                  q < static_cast<std::size_t>(taps) ? static_cast<float>(t.weights[r * taps + q]) : 0.0f)
            << taps << " taps, row " << r << ", tap " << q;
  }
}
