// The GPU FFT family: every variant and size against float64, FP16 rows, tensor cores, the planner
// and its wisdom, the column kernel with FP16 storage.
#include <dlfcn.h>

#include <string>

#include "cuda/cufft_library.hpp"
#include "cuda/gpu_test_util.hpp"

// cuFFT is opened on first use, not linked (cuda/cufft_library.hpp): no device needed for that, so this
// runs wherever the GPU binary is built.
TEST(CufftLibrary, OpensOnFirstUseWithEveryEntryPoint) {
  const cuda::CufftLibrary& c = cuda::cufft();
  EXPECT_EQ(&c, &cuda::cufft());  // loaded once
  const void* entries[] = {reinterpret_cast<const void*>(c.Create),         reinterpret_cast<const void*>(c.Destroy),
                           reinterpret_cast<const void*>(c.SetStream),      reinterpret_cast<const void*>(c.PlanMany),
                           reinterpret_cast<const void*>(c.MakePlanMany),   reinterpret_cast<const void*>(c.EstimateMany),
                           reinterpret_cast<const void*>(c.ExecC2C),        reinterpret_cast<const void*>(c.XtMakePlanMany),
                           reinterpret_cast<const void*>(c.XtExec),         reinterpret_cast<const void*>(c.XtSetJITCallback)};
  for (const void* e : entries) EXPECT_NE(e, nullptr);
  Dl_info where{};  // the entry points are cuFFT's own
  ASSERT_NE(::dladdr(entries[3], &where), 0);
  EXPECT_NE(std::string(where.dli_fname).find("libcufft.so"), std::string::npos) << where.dli_fname;
}

// Every FFT variant x size x direction, contiguous and strided lines, against float64 on fresh random
// data, with the output poisoned first.
class CudaFftSizes : public ::testing::TestWithParam<int> {};

TEST_P(CudaFftSizes, EveryVariantMatchesFloat64) {
  REQUIRE_GPU();
  const int n = GetParam(), lines = 8;
  for (int stride : {1, 3}) {  // stride 3: lines interleaved (dist 1), as columns of a 3-column array
    gpu::FftDesc d;
    d.n = n;
    d.batch = stride == 1 ? lines : 3;
    d.stride = stride;
    const std::size_t total = static_cast<std::size_t>(n) * d.batch;
    const auto x = test::random_complex(total, 1000 + n + stride);
    auto d_in = to_device(to_f2(x));
    DeviceBuffer<float2> d_out(total);
    for (bool inverse : {false, true}) {
      d.inverse = inverse;
      std::vector<std::complex<double>> ref = x;
      core::FftPlan<double> p({n, d.batch, stride, stride == 1 ? n : 1},
                              inverse ? core::FftDirection::inverse : core::FftDirection::forward, ref.data(),
                              ref.data(), FftPlanning::estimate);
      p.execute(ref.data(), ref.data());
      for (gpu::FftVariant v : gpu::fft_variants_for(d)) {
        gpu::FftPlanOptions o;
        o.variant = v;
        const gpu::FftPlan plan(d, o);
        poison(d_out);
        plan.execute(reinterpret_cast<const std::complex<float>*>(d_in.get()),
                     reinterpret_cast<std::complex<float>*>(d_out.get()));
        SARFUSE_CUDA(cudaDeviceSynchronize());
        const auto got = to_host(d_out);
        expect_all_finite(got, "fft");
        std::vector<std::complex<double>> g(got.size());
        for (std::size_t i = 0; i < g.size(); ++i) g[i] = {got[i].x, got[i].y};
        const double e = test::rel_l2(g, ref);
        std::printf("FFT %5d %-10s %s stride %d: relative L2 vs float64 %.3e\n", n, gpu::to_string(v),
                    inverse ? "inverse" : "forward", stride, e);
        EXPECT_LT(e, 2e-6) << "n " << n << " " << gpu::to_string(v) << (inverse ? " inverse" : " forward");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Pow2, CudaFftSizes, ::testing::Values(64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384));

// The block FFT on FP16 rows with FP32 butterflies (the fp16-storage passes' FFT, `sarfuse bench fft`'s
// stockham16-fp16), both directions, output poisoned: against float64 of the FP16-rounded input, so the
// error is the output's one FP16 rounding (~1.5e-4) on top of FP32 arithmetic.
TEST(CudaFftFp16Rows, MatchFloat64OfTheRoundedInput) {
  REQUIRE_GPU();
  for (int n = 64; n <= 16384; n *= 2) {
    const int lines = 4;
    const std::size_t total = static_cast<std::size_t>(n) * lines;
    const auto x = test::random_complex(total, 77 + n);
    std::vector<__half2> hx(total);
    std::vector<std::complex<double>> rounded(total);
    for (std::size_t k = 0; k < total; ++k) {
      hx[k] = __floats2half2_rn(static_cast<float>(x[k].real()), static_cast<float>(x[k].imag()));
      const float2 f = __half22float2(hx[k]);
      rounded[k] = {f.x, f.y};
    }
    auto d_in = to_device(hx);
    DeviceBuffer<__half2> d_out(total);
    auto d_tw = to_device(cuda::fft_twiddle_table(n));
    for (bool inverse : {false, true}) {
      std::vector<std::complex<double>> ref = rounded;
      core::FftPlan<double> p({n, lines, 1, n}, inverse ? core::FftDirection::inverse : core::FftDirection::forward,
                              ref.data(), ref.data(), FftPlanning::estimate);
      p.execute(ref.data(), ref.data());
      SARFUSE_CUDA(cudaMemset(d_out.get(), 0xFF, d_out.bytes()));  // FP16 NaN
      cuda::launch_row_fft_fp16_storage(n, d_in.get(), d_out.get(), lines, inverse, d_tw.get(), nullptr);
      SARFUSE_CUDA(cudaDeviceSynchronize());
      const auto got = to_host(d_out);
      std::vector<std::complex<double>> g(total);
      for (std::size_t k = 0; k < total; ++k) {
        const float2 f = __half22float2(got[k]);
        g[k] = {f.x, f.y};
      }
      const double e = test::rel_l2(g, ref);  // NaN (fails) where an element was left unwritten
      std::printf("FP16-row FFT %5d %s: relative L2 vs float64 %.3e\n", n, inverse ? "inverse" : "forward", e);
      EXPECT_LT(e, 4e-4) << "n " << n << (inverse ? " inverse" : " forward");
    }
  }
}
// The nice lengths of each kind (E = 10, 12, 15, 9 points per thread, up to 1024 threads) and two that
// take the generic mixed-radix kernel.
INSTANTIATE_TEST_SUITE_P(NonPow2, CudaFftSizes,
                         ::testing::Values(1280, 1536, 1920, 2304, 6000, 7680, 9216, 10125, 10240, 12288, 15360));
// Beyond one block: the four-step path (2^15..2^22).
INSTANTIATE_TEST_SUITE_P(Long, CudaFftSizes, ::testing::Values(32768, 65536, 131072, 1048576, 4194304));

// The tensor-core 256-point FFT in each operand precision, against float64, with documented bounds:
// FP16 and TF32 operands (10-bit mantissas) about 1e-3, split TF32 FP32-class, FP64 (DMMA) below
// every FP32 kernel (only the complex64 input and output are rounded).
TEST(CudaTensorFft, EachPrecisionWithinItsBound) {
  REQUIRE_GPU();
  gpu::FftDesc d;
  d.n = 256;
  d.batch = 1000;  // not a multiple of the 4 lines per block
  const auto x = test::random_complex(256 * 1000, 77);
  auto d_in = to_device(to_f2(x));
  DeviceBuffer<float2> d_out(x.size());
  for (bool inverse : {false, true}) {
    d.inverse = inverse;
    std::vector<std::complex<double>> ref = x;
    core::FftPlan<double> p({256, 1000, 1, 256}, inverse ? core::FftDirection::inverse : core::FftDirection::forward,
                            ref.data(), ref.data(), FftPlanning::estimate);
    p.execute(ref.data(), ref.data());
    // BF16: 3 mantissa bits fewer than FP16 and TF32, so about 8x their error.
    for (auto [v, bound] : {std::pair{gpu::FftVariant::tensor_fp16, 3e-3}, std::pair{gpu::FftVariant::tensor_bf16, 2.5e-2},
                            std::pair{gpu::FftVariant::tensor_tf32, 3e-3},
                            std::pair{gpu::FftVariant::tensor_tf32x3, 2e-6},
                            std::pair{gpu::FftVariant::tensor_fp64, 7e-8}}) {  // FP64: the float in/out rounding only
      gpu::FftPlanOptions o;
      o.variant = v;
      const gpu::FftPlan plan(d, o);
      poison(d_out);
      plan.execute(reinterpret_cast<const std::complex<float>*>(d_in.get()), reinterpret_cast<std::complex<float>*>(d_out.get()));
      SARFUSE_CUDA(cudaDeviceSynchronize());
      const auto got = to_host(d_out);
      expect_all_finite(got, "tensor fft");
      std::vector<std::complex<double>> g(got.size());
      for (std::size_t i = 0; i < g.size(); ++i) g[i] = {got[i].x, got[i].y};
      const double e = test::rel_l2(g, ref);
      std::printf("tensor FFT 256 %-13s %s: relative L2 vs float64 %.3e (bound %.0e)\n", gpu::to_string(v),
                  inverse ? "inverse" : "forward", e, bound);
      EXPECT_LT(e, bound) << gpu::to_string(v);
      EXPECT_GT(e, 1e-9) << "reduced precision should show";  // the check can fail
    }
  }
}

// The measuring planner picks one of the candidates, remembers it in the wisdom file, and the next plan
// takes it from there without timing.
TEST(CudaFftPlanner, MeasuresOnceThenReadsTheWisdom) {
  REQUIRE_GPU();
  const std::string path = ::testing::TempDir() + "/sarfuse_wisdom_test.json";
  std::filesystem::remove(path);
  gpu::FftDesc d;
  d.n = 4096;
  d.batch = 512;
  gpu::FftPlanOptions o;
  o.planning = FftPlanning::measure;
  o.wisdom_path = path;
  const gpu::FftPlan first(d, o);
  EXPECT_EQ(first.how_chosen().rfind("measured", 0), 0u) << first.how_chosen();
  ASSERT_TRUE(std::filesystem::exists(path));
  const gpu::FftPlan second(d, o);
  EXPECT_EQ(second.variant(), first.variant());
  EXPECT_EQ(second.how_chosen().rfind("wisdom", 0), 0u) << second.how_chosen();
  std::printf("planner, 4096 x 512: %s; then %s\n", first.how_chosen().c_str(), second.how_chosen().c_str());
  std::filesystem::remove(path);
}

// The column kernel with FP16 storage on both sides and the scaling of the RDA: rows stored with their
// own factors in, the output scaled from a recorded bound; against float64 of the true values.
// FP16 columns with per-row factors (pass 2 of --precision fp16-storage) against float64, to FP16 and to
// complex64; `pitch` > `cols` leaves columns the kernel must not touch (checked still poisoned).
static void check_fp16_columns(int n, int cols, int pitch) {
  const auto x = test::random_complex(static_cast<std::size_t>(n) * pitch, 77 + n + cols);
  // Row i stored times 2^(i % 7 - 3) * 1000 (its "line scale"), the factor to undo it in row_factor.
  std::vector<__half2> h(x.size());
  std::vector<float> row_factor(n);
  float maxc = 0;
  std::vector<std::complex<double>> truth(x.size());
  for (int i = 0; i < n; ++i) {
    const float sc = std::ldexp(1000.0f, i % 7 - 3);
    row_factor[i] = 1.0f / sc;
    for (int c = 0; c < pitch; ++c) {
      const std::size_t k = static_cast<std::size_t>(i) * pitch + c;
      h[k] = __floats2half2_rn(float(x[k].real()) * sc, float(x[k].imag()) * sc);
      const float2 back = __half22float2(h[k]);
      truth[k] = {back.x / sc, back.y / sc};  // what was stored, in true units
      if (c < cols) maxc = std::max({maxc, std::abs(float(truth[k].real())), std::abs(float(truth[k].imag()))});
    }
  }
  std::vector<std::complex<double>> ref(static_cast<std::size_t>(n) * cols);
  for (int c = 0; c < cols; ++c) {
    std::vector<std::complex<double>> col(n);
    for (int i = 0; i < n; ++i) col[i] = truth[static_cast<std::size_t>(i) * pitch + c];
    core::FftPlan<double> f({n, 1, 1, n}, core::FftDirection::forward, col.data(), col.data(), FftPlanning::estimate);
    f.execute(col.data(), col.data());
    for (int i = 0; i < n; ++i) ref[static_cast<std::size_t>(i) * cols + c] = col[i];
  }
  auto d_in = to_device(h);
  auto d_rf = to_device(row_factor);
  unsigned bits = 0;
  std::memcpy(&bits, &maxc, 4);
  auto d_max = to_device(std::vector<unsigned>{bits});
  auto d_tw = to_device(cuda::fft_twiddle_table(n));
  DeviceBuffer<__half2> d_out(x.size());
  DeviceBuffer<float2> d_out32(x.size());
  const float gain = cuda::fft::half_column_fft_gain(n);
  const float so = cuda::fft::half_storage_scale(gain * maxc);
  for (int threads : {512, 1024}) {
    SARFUSE_CUDA(cudaMemset(d_out.get(), 0xFF, d_out.bytes()));
    cuda::launch_column_fft(n, threads, d_in.get(), pitch, d_out.get(), pitch, cols, false,
                            cuda::ColumnScaling{d_rf.get(), d_max.get(), gain}, d_tw.get(), nullptr);
    poison(d_out32);
    cuda::launch_column_fft(n, threads, d_in.get(), pitch, d_out32.get(), pitch, cols, false,
                            cuda::ColumnScaling{d_rf.get(), nullptr, 1.0f}, d_tw.get(), nullptr);
    SARFUSE_CUDA(cudaDeviceSynchronize());
    const auto got = to_host(d_out);
    const auto got32 = to_host(d_out32);
    std::vector<std::complex<double>> g(ref.size()), g32(ref.size());
    std::size_t touched = 0;
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < pitch; ++c) {
        const std::size_t k = static_cast<std::size_t>(i) * pitch + c;
        if (c >= cols) {  // outside the transformed columns: still the poison
          std::uint32_t w16 = 0, w32[2] = {};
          std::memcpy(&w16, &got[k], 4);
          std::memcpy(w32, &got32[k], 8);
          touched += w16 != 0xFFFFFFFFu || w32[0] != 0xFFFFFFFFu || w32[1] != 0xFFFFFFFFu;
          continue;
        }
        const float2 f = __half22float2(got[k]);
        g[static_cast<std::size_t>(i) * cols + c] = {f.x / so, f.y / so};
        g32[static_cast<std::size_t>(i) * cols + c] = {got32[k].x, got32[k].y};
      }
    EXPECT_EQ(std::count_if(g32.begin(), g32.end(), [](auto z) { return !std::isfinite(z.real()) || !std::isfinite(z.imag()); }), 0)
        << "column FFT fp16 -> fp32: unwritten (poisoned) or non-finite outputs";
    const double e16 = test::rel_l2(g, ref), e32 = test::rel_l2(g32, ref);
    std::printf("column FFT %5d lines, %4d cols (pitch %4d), %4d threads: FP16 out %.2e, FP32 out %.2e relative L2\n",
                n, cols, pitch, threads, e16, e32);
    EXPECT_LT(e16, 1e-3) << n;  // one FP16 rounding of the output (2^-12 relative per component)
    EXPECT_LT(e32, 2e-6) << n;  // FP32 arithmetic on exact inputs
    EXPECT_EQ(touched, 0u) << "elements outside the " << cols << " columns were written";
  }
}

TEST(CudaColumnFft, Fp16StorageWithRowFactorsMatchesFloat64) {
  REQUIRE_GPU();
  for (int n : {256, 1024, 4096, 16384}) check_fp16_columns(n, 37, 37);  // unaligned rows: one group per block
}

// A wide array (more column groups than the GPU runs at once, a partial last group) whose pitch
// exceeds the columns transformed: the columns past them stay untouched.
TEST(CudaColumnFft, Fp16ColumnsOfAWideArrayLeaveTheRestUntouched) {
  REQUIRE_GPU();
  for (int n : {256, 1024, 4096}) check_fp16_columns(n, 1197, 1200);
}
