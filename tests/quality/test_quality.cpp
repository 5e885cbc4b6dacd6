#include <gtest/gtest.h>

#include <cmath>

#include "sarfuse/error.hpp"
#include "sarfuse/quality.hpp"
#include "test_util.hpp"

using namespace sarfuse;

// Band-limited kernel: M tones centred on `centre` cycles/sample, peak 1 at x = 0.
static std::complex<double> kernel(double x, int m, int n, double centre) {
  std::complex<double> s = 0;
  for (int k = 0; k < m; ++k) s += std::polar(1.0, 2 * M_PI * ((k - (m - 1) / 2.0) / n + centre) * x);
  return s / static_cast<double>(m);
}

struct Synthetic {
  ComplexImage img;
  Target target;
};

// An ideal separable point response in the SLC convention (columns carry exp(j 4 pi R0_j / lambda)).
static Synthetic make_image(const RadarParams& r, double row, double col, double phase, int ma, int mr,
                            double az_centre, double noise_sigma) {
  const int n = 256;
  Synthetic s{ComplexImage(n, n), {}};
  s.target.range_m = r.range_of_column(col);
  s.target.azimuth_time_s = (row - n / 2.0) / r.prf_hz;
  s.target.phase_rad = phase;
  std::vector<std::complex<double>> ka(n), kr(n);
  for (int i = 0; i < n; ++i) ka[i] = kernel(i - row, ma, n, az_centre);
  for (int j = 0; j < n; ++j) kr[j] = kernel(j - col, mr, n, 0.0);
  const double k4 = 4 * M_PI / r.wavelength_m();
  const auto noise = test::random_complex(n * n, 77);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double ph = phase + std::fmod(k4 * r.range_of_column(j), 2 * M_PI) - std::fmod(k4 * s.target.range_m, 2 * M_PI);
      s.img(i, j) = std::complex<float>(3.0 * ka[i] * kr[j] * std::polar(1.0, ph) + noise_sigma / std::sqrt(2.0) * noise[i * n + j]);
    }
  return s;
}

TEST(Quality, TheoreticalSincIslr) {
  // Lower than the -9.68 dB of the untruncated sinc, and near the quoted -10.1 dB.
  EXPECT_LT(test::sinc_islr_db(), -10.1);
  EXPECT_GT(test::sinc_islr_db(), -10.2);
  EXPECT_GT(test::sinc_islr_db(1000), -9.72);
}

TEST(Quality, IdealSincResponseMeasuresAsTheory) {
  const RadarParams r = default_scene().radar;
  const int ma = 51, mr = 201;  // bandwidths 51/256 and 201/256 of the sampling rates
  const Synthetic s = make_image(r, 100.3, 130.7, 0.7, ma, mr, 0.0, 0.0);
  const auto q = analyze_targets(s.img, r, {s.target});
  ASSERT_EQ(q.size(), 1u);
  EXPECT_NEAR(q[0].row_error, 0.0, 0.01);
  EXPECT_NEAR(q[0].col_error, 0.0, 0.01);
  EXPECT_NEAR(q[0].peak_amplitude, 3.0, 0.01);
  EXPECT_NEAR(q[0].peak_phase_rad, 0.7, 1e-3);
  EXPECT_NEAR(q[0].range.width_bins, 0.886 * 256 / mr, 0.01 * 0.886 * 256 / mr);
  EXPECT_NEAR(q[0].azimuth.width_bins, 0.886 * 256 / ma, 0.01 * 0.886 * 256 / ma);
  EXPECT_NEAR(q[0].range.pslr_db, -13.26, 0.1);
  EXPECT_NEAR(q[0].azimuth.pslr_db, -13.26, 0.1);
  EXPECT_NEAR(q[0].range.islr_db, test::sinc_islr_db(), 0.15);
  EXPECT_NEAR(q[0].azimuth.islr_db, test::sinc_islr_db(), 0.15);
  EXPECT_NEAR(q[0].range.width_m, q[0].range.width_bins * r.range_spacing_m(), 1e-12);
}

TEST(Quality, SquintedSpectrumAcrossTheFoldingFrequency) {
  const RadarParams r = default_scene().radar;
  // Azimuth band 0.3 cycles/sample wide centred on 0.45: it straddles +-0.5.
  const Synthetic s = make_image(r, 60.6, 200.2, -2.0, 77, 201, 0.45, 0.0);
  const auto q = analyze_targets(s.img, r, {s.target});
  EXPECT_NEAR(q[0].row_error, 0.0, 0.01);
  EXPECT_NEAR(q[0].peak_phase_rad, -2.0, 0.01);  // 64-sample interpolation window: ~0.15 degree
  EXPECT_NEAR(q[0].azimuth.pslr_db, -13.26, 0.1);
  EXPECT_NEAR(q[0].azimuth.width_bins, 0.886 * 256 / 77, 0.01 * 0.886 * 256 / 77);
}

TEST(Quality, SnrAgainstKnownNoise) {
  const RadarParams r = default_scene().radar;
  const double sigma = 0.03;  // peak 3: SNR = 20 log10(3 / 0.03) = 40 dB
  const Synthetic s = make_image(r, 128.0, 128.4, 0.0, 101, 201, 0.0, sigma);
  const auto q = analyze_targets(s.img, r, {s.target});
  EXPECT_NEAR(q[0].snr_db, 40.0, 0.3);
  const auto peaks = analyze_peaks(s.img, r, 1);
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_NEAR(peaks[0].row, 128.0, 0.05);  // noise moves it by a few hundredths at 40 dB
  EXPECT_NEAR(peaks[0].col, 128.4, 0.05);
  EXPECT_NEAR(peaks[0].row, q[0].row, 1e-9);
}

TEST(Quality, CompareAndContrast) {
  ComplexImage a(4, 4), b(4, 4);
  for (std::size_t k = 0; k < 16; ++k) {
    b.data()[k] = {1.0f, 0.0f};
    a.data()[k] = {1.0f, k == 3 ? 4.0f : 0.0f};
  }
  EXPECT_NEAR(relative_l2(a, b), 1.0, 1e-12);  // ||a-b|| = 4, ||b|| = 4
  EXPECT_NEAR(intensity_contrast(b), 0.0, 1e-12);
  EXPECT_GT(intensity_contrast(a), 1.0);
  EXPECT_THROW(relative_l2(a, ComplexImage(2, 2)), Error);
}
