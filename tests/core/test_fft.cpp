#include <gtest/gtest.h>

#include "core/fft.hpp"
#include "sarfuse/image.hpp"
#include "sarfuse/plan.hpp"
#include "test_util.hpp"

using namespace sarfuse;

template <class T>
double fft_error(int n, core::FftDirection dir, std::uint64_t seed) {
  const auto x = test::random_complex(n, seed);
  AlignedBuffer<std::complex<T>> buf(n);
  for (int i = 0; i < n; ++i) buf[i] = std::complex<T>(x[i]);
  core::FftPlan<T> p({n}, dir, buf.data(), buf.data(), FftPlanning::estimate);
  for (int i = 0; i < n; ++i) buf[i] = std::complex<T>(x[i]);  // planning may touch the data
  p.execute(buf.data(), buf.data());
  const auto ref = test::direct_dft(x, dir == core::FftDirection::forward ? -1 : 1);
  std::vector<std::complex<T>> y(buf.data(), buf.data() + n);
  return test::rel_l2(y, ref);
}

class FftSizes : public ::testing::TestWithParam<int> {};

TEST_P(FftSizes, FloatMatchesFloat64Dft) {
  const int n = GetParam();
  EXPECT_LT(fft_error<float>(n, core::FftDirection::forward, 1 + n), 2e-6);
  EXPECT_LT(fft_error<float>(n, core::FftDirection::inverse, 2 + n), 2e-6);
}

TEST_P(FftSizes, DoubleMatchesFloat64Dft) {
  const int n = GetParam();
  EXPECT_LT(fft_error<double>(n, core::FftDirection::forward, 3 + n), 1e-13);
  EXPECT_LT(fft_error<double>(n, core::FftDirection::inverse, 4 + n), 1e-13);
}

INSTANTIATE_TEST_SUITE_P(Sizes, FftSizes, ::testing::Values(64, 1000, 1536, 4096, 4704));

TEST(Fft, StridedBatchTransformsColumns) {
  // 5 columns of a 48 x 7 row-major array, as the azimuth transforms address them.
  const int rows = 48, cols = 7, used = 5;
  const auto x = test::random_complex(rows * cols, 9);
  AlignedBuffer<std::complex<double>> buf(rows * cols);
  for (int i = 0; i < rows * cols; ++i) buf[i] = x[i];
  core::FftPlan<double> p({rows, used, cols, 1}, core::FftDirection::forward, buf.data(), buf.data(),
                          FftPlanning::estimate);
  for (int i = 0; i < rows * cols; ++i) buf[i] = x[i];
  p.execute(buf.data(), buf.data());
  for (int c = 0; c < cols; ++c) {
    std::vector<std::complex<double>> col(rows), got(rows);
    for (int r = 0; r < rows; ++r) {
      col[r] = x[r * cols + c];
      got[r] = buf[r * cols + c];
    }
    if (c < used) EXPECT_LT(test::rel_l2(got, test::direct_dft(col, -1)), 1e-13) << "column " << c;
    else EXPECT_EQ(test::rel_l2(got, col), 0.0) << "column " << c << " must be untouched";
  }
}

TEST(Fft, FriendlySizes) {
  EXPECT_EQ(fft_friendly_size(1), 1u);
  EXPECT_EQ(fft_friendly_size(1623), 1680u);  // 2^4 3 5 7
  EXPECT_EQ(fft_friendly_size(4096), 4096u);
  EXPECT_EQ(fft_friendly_size(4097), 4116u);  // 2^2 3 7^3
  EXPECT_EQ(fft_friendly_size(7599), 7680u);  // 2^9 3 5: the 6250 + 1349 - 1 example
  for (std::size_t n = 2; n < 3000; n += 37) {
    const std::size_t m = fft_friendly_size(n);
    EXPECT_GE(m, n);
    std::size_t r = m;
    for (std::size_t p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    EXPECT_EQ(r, 1u);
  }
}
