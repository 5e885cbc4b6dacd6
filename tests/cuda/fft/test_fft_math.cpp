// The device FFT's building blocks, run on the CPU: the in-register DFTs and a host emulation of the
// radix-16 Stockham schedule the kernels use, against a float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/fft.hpp"
#include "cuda/fft/fft_math.hpp"
#include "cuda/fft/storage.hpp"
#include "test_util.hpp"

using namespace sarfuse;
using cuda::fft::Cx;

// An in-register DFT of R points (`transform` applied to Cx<double>[R]) against the definition.
template <int R, class F>
static void check_dft(F transform) {
  const auto x = test::random_complex(R, 100 + R);
  Cx<double> v[R];
  for (int i = 0; i < R; ++i) v[i] = {x[i].real(), x[i].imag()};
  transform(v);
  const auto ref = test::direct_dft(x, -1);
  std::vector<std::complex<double>> got(R);
  for (int i = 0; i < R; ++i) got[i] = {v[i].re, v[i].im};
  EXPECT_LT(test::rel_l2(got, ref), 1e-15) << "radix " << R;
}
template <int R>
static void check_dft() {
  check_dft<R>([](Cx<double>* v) { cuda::fft::dft<R>(v); });
}
template <int R>
static void check_odd_dft() {
  check_dft<R>([](Cx<double>* v) { cuda::fft::dft_odd<R>(v); });
}

TEST(FftMath, RegisterDftsMatchTheDefinition) {
  check_dft<2>();
  check_dft<4>();
  check_dft<8>();
  check_dft<16>();
  check_dft<32>();
}

TEST(FftMath, OddRadixDftsMatchTheDefinition) {
  check_odd_dft<3>();
  check_odd_dft<5>();
  check_odd_dft<7>();
  check_dft<15>([](Cx<double>* v) { cuda::fft::dft15(v); });  // prime-factor 3 x 5
}

static std::vector<Cx<float>> emulate_schedule(const std::vector<std::complex<double>>& x, const std::vector<int>& radices);

// Mixed radix (the non-power-of-two sizes): the Stockham index and twiddle math is
// radix-generic, so the same schedule with 3/5/7 passes gives the DFT; emulated in float.
TEST(FftMath, MixedRadixStockhamMatchesFloat64) {
  for (int n : {7680, 1536, 6000, 4704, 10125, 3 * 5 * 7 * 16}) {
    int radices[32];
    const int passes = cuda::fft::mixed_radix_schedule(n, radices);
    ASSERT_GT(passes, 0) << n;
    int product = 1;
    for (int p = 0; p < passes; ++p) product *= radices[p];
    EXPECT_EQ(product, n);
    const auto x = test::random_complex(static_cast<std::size_t>(n), 31 + n);
    const auto a = emulate_schedule(x, std::vector<int>(radices, radices + passes));
    std::vector<std::complex<double>> ref(x.begin(), x.end()), got(n);
    core::FftPlan<double> plan({n, 1, 1, n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
    plan.execute(ref.data(), ref.data());
    for (int i = 0; i < n; ++i) got[i] = {a[i].re, a[i].im};
    const double e = test::rel_l2(got, ref);
    std::printf("mixed radix %5d (%d passes): relative L2 vs float64 %.3e\n", n, passes, e);
    EXPECT_LT(e, 2e-6) << n;
  }
  int r[32];
  EXPECT_EQ(cuda::fft::mixed_radix_schedule(11 * 16, r), 0);  // 11 is not a supported radix
}

// A one-block FFT of a non-power-of-two length with e points a thread: its pass radices (row_pass_*)
// multiply to n with the right spans, the threads fit a block, the last pass ends in registers, and the
// schedule is the DFT (emulated in float). Returns the radices.
static std::vector<int> check_block_schedule(int n, int e, const char* what) {
  EXPECT_GT(e, 0) << n;
  if (e <= 0) return {};
  EXPECT_EQ(n % e, 0) << n;
  EXPECT_LE(n / e, 1024) << n;
  std::vector<int> radices;
  int product = 1;
  for (int p = 0; p < cuda::fft::row_pass_count(n); ++p) {
    radices.push_back(cuda::fft::row_pass_radix(n, p));
    EXPECT_EQ(cuda::fft::row_pass_span(n, p), product) << n << " pass " << p;
    product *= radices.back();
  }
  EXPECT_EQ(product, n);
  EXPECT_EQ(e % radices.back(), 0) << n << ": the last pass ends in registers";
  const auto x = test::random_complex(static_cast<std::size_t>(n), 77 + n);
  const auto a = emulate_schedule(x, radices);
  std::vector<std::complex<double>> ref(x.begin(), x.end()), got(n);
  core::FftPlan<double> plan({n, 1, 1, n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
  plan.execute(ref.data(), ref.data());
  for (int i = 0; i < n; ++i) got[i] = {a[i].re, a[i].im};
  const double err = test::rel_l2(got, ref);
  std::printf("%s %5d (%zu passes, %d points per thread): relative L2 vs float64 %.3e\n", what, n, radices.size(), e, err);
  EXPECT_LT(err, 2e-6) << n;
  return radices;
}

// The lengths in 1..20000 that a device-side predicate accepts (to compare with the host's list).
template <class Predicate>
static std::vector<int> lengths_where(Predicate accepts) {
  std::vector<int> found;
  for (int n = 1; n <= 20000; ++n)
    if (accepts(n)) found.push_back(n);
  return found;
}

// The nice lengths of the one-block row kernels: the list and the device-side test agree, and each
// length's schedule holds (check_block_schedule).
TEST(FftMath, NiceRowLengthSchedulesMatchFloat64) {
  std::vector<int> listed(std::begin(cuda::fft::kNiceRowSizes), std::end(cuda::fft::kNiceRowSizes));
  EXPECT_EQ(lengths_where([](int n) { return cuda::fft::is_nice_row_size(n); }), listed);
  for (int n : listed) check_block_schedule(n, cuda::fft::row_elems(n), "nice length");
  EXPECT_EQ(cuda::fft::row_pass_radix(7680, 0), 16);
  EXPECT_EQ(cuda::fft::row_pass_count(7680), 4);
  EXPECT_EQ(cuda::fft::row_pass_radix(7680, 3), 15);
}

// The odd column lengths (the two-step azimuth FFT's column pass, 30000 = 16 x 1875 lines): the list and
// the device-side test agree, every radix divides the 15 points a thread holds (every pass on the
// registers), and each schedule holds.
TEST(FftMath, OddColumnLengthSchedulesMatchFloat64) {
  std::vector<int> listed(std::begin(cuda::fft::kOddColumnSizes), std::end(cuda::fft::kOddColumnSizes));
  EXPECT_EQ(lengths_where([](int n) { return cuda::fft::is_odd_column_size(n); }), listed);
  for (int n : listed) {
    EXPECT_FALSE(cuda::fft::is_nice_row_size(n)) << n;
    for (int r : check_block_schedule(n, cuda::fft::kOddColumnElems, "odd column length"))
      EXPECT_EQ(cuda::fft::kOddColumnElems % r, 0) << n << ": radix " << r;
  }
  EXPECT_EQ(cuda::fft::row_pass_count(1875), 4);
  EXPECT_EQ(cuda::fft::row_pass_radix(1875, 0), 15);
  EXPECT_EQ(cuda::fft::row_pass_radix(1875, 3), 5);
  EXPECT_EQ(cuda::fft::row_pass_count(3645), 6);  // 15, then five 3s
  EXPECT_EQ(cuda::fft::row_pass_radix(3645, 5), 3);
}

TEST(FftMath, PassSchedule) {
  EXPECT_EQ(cuda::fft::pass_count(4096, 16), 3);
  EXPECT_EQ(cuda::fft::pass_count(8192, 16), 4);
  EXPECT_EQ(cuda::fft::pass_radix(8192, 16, 3), 2);
  EXPECT_EQ(cuda::fft::pass_radix(16384, 16, 3), 4);
  EXPECT_EQ(cuda::fft::pass_radix(512, 16, 2), 2);
  // Padded shared-memory slots stay distinct.
  std::vector<int> seen(cuda::fft::smem_size(4096), 0);
  for (int i = 0; i < 4096; ++i) EXPECT_EQ(seen[cuda::fft::smem_index(i)]++, 0);
}

// A Stockham schedule on the host, float data, twiddles from a float table of exp(-2 pi i k / n):
// the kernels' radix-16 schedule, or any list of radices (mixed radix).
static std::vector<Cx<float>> emulate_schedule(const std::vector<std::complex<double>>& x, const std::vector<int>& radices) {
  const int n = static_cast<int>(x.size());
  std::vector<Cx<float>> a(n), b(n), tw(n);
  for (int i = 0; i < n; ++i) a[i] = {static_cast<float>(x[i].real()), static_cast<float>(x[i].imag())};
  for (int k = 0; k < n; ++k) {
    const std::complex<double> w = std::polar(1.0, -2.0 * M_PI * k / n);
    tw[k] = {static_cast<float>(w.real()), static_cast<float>(w.imag())};
  }
  int ns = 1;
  for (const int radix : radices) {
    for (int j = 0; j < n / radix; ++j) {
      Cx<float> v[32];
      for (int r = 0; r < radix; ++r) {
        v[r] = a[cuda::fft::stockham_input(j, r, n, radix)];
        if (r > 0 && ns > 1) v[r] = v[r] * tw[cuda::fft::stockham_twiddle(j, r, ns, n, radix)];
      }
      switch (radix) {
        case 2: cuda::fft::dft<2>(v); break;
        case 3: cuda::fft::dft_odd<3>(v); break;
        case 4: cuda::fft::dft<4>(v); break;
        case 5: cuda::fft::dft_odd<5>(v); break;
        case 7: cuda::fft::dft_odd<7>(v); break;
        case 8: cuda::fft::dft<8>(v); break;
        case 9: cuda::fft::dft9(v); break;
        case 15: cuda::fft::dft15(v); break;
        case 16: cuda::fft::dft<16>(v); break;
        default: cuda::fft::dft<32>(v); break;
      }
      for (int r = 0; r < radix; ++r) b[cuda::fft::stockham_output(j, r, ns, radix)] = v[r];
    }
    std::swap(a, b);
    ns *= radix;
  }
  return a;
}

static std::vector<Cx<float>> emulate_stockham(const std::vector<std::complex<double>>& x, int max_radix) {
  const int n = static_cast<int>(x.size());
  std::vector<int> radices;
  for (int p = 0; p < cuda::fft::pass_count(n, max_radix); ++p) radices.push_back(cuda::fft::pass_radix(n, max_radix, p));
  return emulate_schedule(x, radices);
}

class StockhamSizes : public ::testing::TestWithParam<int> {};

TEST_P(StockhamSizes, EmulatedScheduleMatchesFloat64) {
  const int n = GetParam();
  const auto x = test::random_complex(n, 7 + n);
  std::vector<std::complex<double>> ref = x;
  core::FftPlan<double> p({n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
  p.execute(ref.data(), ref.data());
  for (int max_radix : {16, 8, 32}) {  // the kernels use 16; 32 the fused range compression at 8192 and 16384
    const auto got = emulate_stockham(x, max_radix);
    std::vector<std::complex<double>> g(n);
    for (int i = 0; i < n; ++i) g[i] = {got[i].re, got[i].im};
    EXPECT_LT(test::rel_l2(g, ref), 2e-6) << "max radix " << max_radix;
  }
}

INSTANTIATE_TEST_SUITE_P(Pow2, StockhamSizes, ::testing::Values(64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384));

// FP16 storage scales (cuda/fft/storage.hpp): a power of two putting the bound in [2^13, 2^14), so a
// line's largest component never overflows FP16 (65504) and keeps its 11 bits; zero / non-finite: 1.
TEST(HalfStorage, ScaleIsAPowerOfTwoThatFitsTheBound) {
  using sarfuse::cuda::fft::half_storage_scale;
  for (float bound : {1e-30f, 3.7e-6f, 0.5f, 1.0f, 8191.9f, 8192.0f, 16384.0f, 16385.0f, 1.0e6f, 3.0e12f}) {
    const float s = half_storage_scale(bound);
    int e = 0;
    EXPECT_EQ(std::frexp(s, &e), 0.5f) << bound;  // a power of two
    EXPECT_LT(bound * s, sarfuse::cuda::fft::kHalfStorageTarget) << bound;
    if (bound > 1e-30f) EXPECT_GE(2.0f * bound * s, sarfuse::cuda::fft::kHalfStorageTarget) << bound;
  }
  EXPECT_EQ(half_storage_scale(0.0f), 1.0f);
  EXPECT_EQ(half_storage_scale(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(half_storage_scale(std::numeric_limits<float>::quiet_NaN()), 1.0f);
  // The column FFT's bound: N points of components <= m give components <= N sqrt(2) m.
  EXPECT_NEAR(sarfuse::cuda::fft::half_column_fft_gain(4096), 4096 * std::sqrt(2.0), 1e-2);
}

// The in-place split-layout Cooley-Tukey DIF schedule (the ct-dif-split kernel's stages and output
// order), emulated in float on the CPU with the kernel's own butterfly and position functions.
TEST_P(StockhamSizes, CooleyTukeyDifScheduleMatchesFloat64) {
  using namespace sarfuse::cuda::fft;
  const int n = GetParam();
  const auto x = test::random_complex(n, 17 + n);
  std::vector<std::complex<double>> ref = x;
  core::FftPlan<double> p({n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
  p.execute(ref.data(), ref.data());
  std::vector<float> re(n), im(n);
  for (int i = 0; i < n; ++i) re[i] = float(x[i].real()), im[i] = float(x[i].imag());
  auto tw = [n](int i) {
    const double a = -2.0 * 3.14159265358979323846 * i / n;
    return Cx<float>{float(std::cos(a)), float(std::sin(a))};
  };
  for (int span = n; span > 1; span /= ct_dif_radix(span)) {
    const int r = ct_dif_radix(span);
    for (int b = 0; b < n / r; ++b) {
      if (r == 8) ct_dif_butterfly<8>(re.data(), im.data(), span, b, n, tw);
      else if (r == 4) ct_dif_butterfly<4>(re.data(), im.data(), span, b, n, tw);
      else ct_dif_butterfly<2>(re.data(), im.data(), span, b, n, tw);
    }
  }
  std::vector<std::complex<double>> got(n);
  for (int k = 0; k < n; ++k) got[k] = {re[ct_dif_position(k, n)], im[ct_dif_position(k, n)]};
  EXPECT_LT(test::rel_l2(got, ref), 2e-6);
}
