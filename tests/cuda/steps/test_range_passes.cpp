// Range compression on the GPU: fused kernels at every length against float64, tensor-core spectra,
// integer inputs, the range FFT length policy (nice lengths).
#include "cuda/gpu_test_util.hpp"

// Fused range compression (one kernel up to 16384 points, four-step above) against float64 on random
// data: zero-pad, FFT, x H, IFFT, keep the first nr columns.
struct RangeCase {
  int lines, nr, nfft;
};
class CudaRange : public ::testing::TestWithParam<RangeCase> {};

TEST_P(CudaRange, FusedRangeCompressionMatchesFloat64) {
  REQUIRE_GPU();
  const auto [lines, nr, nfft] = GetParam();
  const RadarParams r = default_scene().radar;  // replica 601: the linear convolution fits in nfft
  const auto h = core::range_matched_filter(r, nfft, Window{});
  const auto x = test::random_complex(static_cast<std::size_t>(lines) * nr, 5);
  std::vector<std::complex<double>> ref(static_cast<std::size_t>(lines) * nfft, 0.0);
  for (int l = 0; l < lines; ++l)
    for (int j = 0; j < nr; ++j)
      ref[static_cast<std::size_t>(l) * nfft + j] = std::complex<double>(std::complex<float>(x[static_cast<std::size_t>(l) * nr + j]));
  core::FftPlan<double> f({nfft, lines, 1, nfft}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
  core::FftPlan<double> b({nfft, lines, 1, nfft}, core::FftDirection::inverse, ref.data(), ref.data(), FftPlanning::estimate);
  f.execute(ref.data(), ref.data());
  for (int l = 0; l < lines; ++l)
    for (int m = 0; m < nfft; ++m) ref[static_cast<std::size_t>(l) * nfft + m] *= h[m];
  b.execute(ref.data(), ref.data());

  auto d_raw = to_device(to_f2(x));
  const cuda::RangeCompressor rc(nfft, lines, h);
  EXPECT_EQ(rc.four_step(), nfft > cuda::RangeCompressor::kMaxOneBlock);
  DeviceBuffer<float2> d_out(static_cast<std::size_t>(lines) * nr);
  poison(d_out);
  rc.run(SampleType::complex64, d_raw.get(), lines, nr, d_out.get(), nr, nr, nullptr);
  SARFUSE_CUDA(cudaDeviceSynchronize());
  const auto got = to_host(d_out);
  expect_all_finite(got, "fused range compression");
  std::vector<std::complex<double>> g(got.size()), rf(got.size());
  for (int l = 0; l < lines; ++l)
    for (int j = 0; j < nr; ++j) {
      const std::size_t k = static_cast<std::size_t>(l) * nr + j;
      g[k] = {got[k].x, got[k].y};
      rf[k] = ref[static_cast<std::size_t>(l) * nfft + j];
    }
  const double e = test::rel_l2(g, rf);
  std::printf("fused range compression (%d-point%s): relative L2 vs float64 %.3e\n", nfft,
              rc.four_step() ? ", four-step" : "", e);
  EXPECT_LT(e, 2e-6);
}

// One-block lengths with whole lines (nr = nfft, every block full: the unpredicated instantiation) and
// with padding or a short last block (predicated), across the fused shapes: 2048 (two lines a block),
// 4096 (two exchange buffers), 8192 (32 points a thread, two buffers), 16384 (32 points, one buffer).
INSTANTIATE_TEST_SUITE_P(Lengths, CudaRange,
                         ::testing::Values(RangeCase{10, 2048, 2048}, RangeCase{7, 1500, 2048},
                                           RangeCase{48, 3000, 4096}, RangeCase{9, 4096, 4096},
                                           RangeCase{12, 5000, 8192}, RangeCase{16, 8192, 8192},
                                           RangeCase{8, 15000, 16384}, RangeCase{4, 16384, 16384},
                                           RangeCase{6, 30000, 32768}, RangeCase{4, 64000, 65536},
                                           RangeCase{2, 200000, 262144}),
                         [](const auto& info) {
                           return "fft" + std::to_string(info.param.nfft) + "_nr" + std::to_string(info.param.nr);
                         });

// Pass 1 with the radix-16 DFTs on the tensor cores (--precision tf32x3) against float64: the range
// spectrum of random lines x the filter, every power of two the mode takes.
TEST(CudaTensorRange, SpectrumMatchesFloat64) {
  REQUIRE_GPU();
  const int lines = 8;
  for (int n : {512, 1024, 2048, 4096, 8192, 16384}) {
    const int nr = n - n / 8;
    const auto x = test::random_complex(static_cast<std::size_t>(lines) * nr, 500 + n);
    const auto h = test::random_complex(static_cast<std::size_t>(n), 600 + n);
    auto d_x = to_device(to_f2(x));
    auto d_h = to_device(to_f2(h));
    auto d_tw = to_device(cuda::fft_twiddle_table(n));
    DeviceBuffer<float2> d_out(static_cast<std::size_t>(lines) * n);
    std::vector<std::complex<double>> ref(static_cast<std::size_t>(lines) * n);
    for (int l = 0; l < lines; ++l)
      for (int i = 0; i < nr; ++i) ref[static_cast<std::size_t>(l) * n + i] = x[static_cast<std::size_t>(l) * nr + i];
    core::FftPlan<double> p({n, lines, 1, n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
    p.execute(ref.data(), ref.data());
    for (int l = 0; l < lines; ++l)
      for (int i = 0; i < n; ++i) ref[static_cast<std::size_t>(l) * n + i] *= h[i];
    for (bool tensor : {false, true}) {
      poison(d_out);
      cuda::launch_range_spectrum(n, SampleType::complex64, d_x.get(), lines, nr, d_h.get(), d_tw.get(), d_out.get(),
                                  nullptr, tensor);
      SARFUSE_CUDA(cudaDeviceSynchronize());
      const auto got = to_host(d_out);
      expect_all_finite(got, tensor ? "tensor" : "scalar");
      std::vector<std::complex<double>> g(got.size());
      for (std::size_t i = 0; i < g.size(); ++i) g[i] = {got[i].x, got[i].y};
      const double e = test::rel_l2(g, ref);
      std::printf("range spectrum %5d %s: relative L2 vs float64 %.3e\n", n, tensor ? "tf32x3 tensor" : "fp32 scalar", e);
      EXPECT_LT(e, 2e-6) << n << (tensor ? " tensor" : " scalar");
    }
  }
}

TEST(CudaRangeInput, IntegerSamplesConvertInTheLoad) {
  REQUIRE_GPU();
  const RadarParams r = default_scene().radar;
  for (const auto& [lines, nr, nfft] : {RangeCase{16, 1000, 2048}, RangeCase{3, 20000, 32768}}) {
    std::vector<std::int8_t> i8(2 * static_cast<std::size_t>(lines) * nr);
    std::vector<float2> c(static_cast<std::size_t>(lines) * nr);
    for (std::size_t k = 0; k < c.size(); ++k) {
      i8[2 * k] = static_cast<std::int8_t>((k * 37) % 31 - 15);
      i8[2 * k + 1] = static_cast<std::int8_t>((k * 11) % 29 - 14);
      c[k] = make_float2(i8[2 * k], i8[2 * k + 1]);
    }
    auto d_i8 = to_device(i8);
    auto d_c = to_device(c);
    const cuda::RangeCompressor rc(nfft, lines, core::range_matched_filter(r, nfft, Window{}));
    DeviceBuffer<float2> a(c.size()), b(c.size());
    poison(a);
    poison(b);
    rc.run(SampleType::int8_iq, d_i8.get(), lines, nr, a.get(), nr, nr, nullptr);
    rc.run(SampleType::complex64, d_c.get(), lines, nr, b.get(), nr, nr, nullptr);
    SARFUSE_CUDA(cudaDeviceSynchronize());
    const auto ha = to_host(a), hb = to_host(b);
    expect_all_finite(ha, "int8");
    EXPECT_EQ(std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(float2)), 0) << "nfft " << nfft;
  }
}

// The range FFT at a nice length (2^a x 3, 5, 9 or 15) instead of the next power of two: the plan picks
// one where it pays (<= 0.8 of the power of two: 3072 for 2048 + 601 - 1 = 2648 samples, not 4096; not 1920
// for the 5-target scene's 1624), and every nice length the row kernels are compiled for, on the fused
// and cuFFT pipelines, matches the CPU's float64 chain at the same length; so does 8192, whose pass 3
// shares the 32-points-a-thread shape of 9216 and 10240.
TEST(CudaNiceRange, ChainMatchesCpuFp64AtEachNiceLength) {
  REQUIRE_GPU();
  const ParamsFile p = default_scene();
  const ComplexImage raw = simulate(p.radar, *p.scene);
  {
    EXPECT_EQ(make_plan(p.radar, raw.lines(), raw.samples(), cuda_options()).range_fft_size(), 2048u);
    EXPECT_EQ(make_plan(p.radar, 256, 2048, cuda_options()).range_fft_size(), 3072u);
    FocusOptions o16 = cuda_options();
    o16.precision = Precision::fp16_storage;  // FP32 butterflies on FP16 rows: the nice lengths too
    EXPECT_EQ(make_plan(p.radar, 256, 2048, o16).range_fft_size(), 3072u);
    o16.precision = Precision::fp16;  // FP16 butterflies: powers of two only
    EXPECT_EQ(make_plan(p.radar, 256, 2048, o16).range_fft_size(), 4096u);
  }
  for (const Pipeline pipeline : {Pipeline::fused, Pipeline::cufft_unfused})
    for (const std::size_t nfft : {1920, 2304, 2560, 3072, 3840, 4608, 5120, 6144, 7680, 8192, 9216, 10240, 12288, 15360}) {
      if (pipeline != Pipeline::fused && nfft != 1920 && nfft != 7680) continue;
      SCOPED_TRACE(std::string(to_string(pipeline)) + " nfft " + std::to_string(nfft));
      FocusOptions og = cuda_options(pipeline);
      og.range_fft_size = nfft;
      FocusOptions oc;
      oc.backend = Backend::cpu;
      oc.precision = Precision::fp64;
      oc.range_fft_size = nfft;
      const ComplexImage ref = focus_with(p.radar, view_of(raw), oc);
      const ComplexImage slc = focus_with(p.radar, view_of(raw), og);
      for (std::size_t k = 0; k < slc.size(); ++k)
        ASSERT_TRUE(std::isfinite(slc.data()[k].real()) && std::isfinite(slc.data()[k].imag())) << "element " << k;
      const double e = relative_l2(slc, ref);
      std::printf("5-target scene, %s, range FFT %zu: relative L2 vs CPU fp64 %.3e\n", to_string(pipeline), nfft, e);
      EXPECT_LT(e, 1e-5);
      if (nfft == 1920) expect_targets_match(slc, ref, p, 0.01, 0.01, 0.01);
    }
}

// The built-in rule for the range FFT length (host code, no device needed: runs in CI too): a nice
// length only at <= 0.8 of the power of two, and only where the options run one.
TEST(CudaRangeLength, BuiltInTableTakesANiceLengthWhereItPays) {
  FocusOptions o = cuda_options();
  EXPECT_EQ(cuda::range_fft_length(4696, o), 5120u);   // 4096 + 601 - 1: 5/8 of 8192
  EXPECT_EQ(cuda::range_fft_length(3000, o), 3072u);   // 3/4 of 4096
  EXPECT_EQ(cuda::range_fft_length(8792, o), 9216u);   // 8192 + 601 - 1: 9/16 of 16384 (odd part 9)
  EXPECT_EQ(cuda::range_fft_length(2200, o), 2304u);   // 9/16 of 4096
  EXPECT_EQ(cuda::range_fft_length(6850, o), 8192u);   // 7680 is 15/16: measured no faster
  EXPECT_EQ(cuda::range_fft_length(1624, o), 2048u);   // 1920 likewise
  EXPECT_EQ(cuda::range_fft_length(100, o), 256u);     // the smallest row kernel
  EXPECT_EQ(cuda::smallest_nice_length(6850, o), 7680u);
  EXPECT_EQ(cuda::smallest_nice_length(16000, o), 0u);  // nothing between 15360 and 16384
  EXPECT_TRUE(cuda::range_length_runs(7680, o));
  EXPECT_FALSE(cuda::range_length_runs(7000, o));
  for (Precision p : {Precision::fp16, Precision::tf32x3}) {
    FocusOptions q = o;
    q.precision = p;  // powers of two only
    EXPECT_EQ(cuda::range_fft_length(4696, q), 8192u) << to_string(p);
    EXPECT_FALSE(cuda::range_length_runs(5120, q)) << to_string(p);
  }
  FocusOptions h = o;
  h.precision = Precision::fp16_storage;  // FP32 butterflies on FP16 rows: the fused chain's nice lengths
  EXPECT_EQ(cuda::range_fft_length(4696, h), 5120u);
  EXPECT_TRUE(cuda::range_length_runs(7680, h));
  h.pipeline = Pipeline::cufft_unfused;
  EXPECT_FALSE(cuda::range_length_runs(5120, h));
  FocusOptions vk = cuda_options(Pipeline::vkfft_conv);
  EXPECT_EQ(cuda::range_fft_length(4696, vk), 8192u);
  EXPECT_TRUE(cuda::range_length_runs(5120, cuda_options(Pipeline::cufft_unfused)));
}

// --plan measure times the chain at the nice length and at the power of two (6250 + 601 - 1 = 6850:
// 7680 or 8192), keeps the faster, remembers it; the next plan takes it from the wisdom file.
TEST(CudaNiceRange, PlanMeasureTimesTheLengthsAndRemembers) {
  REQUIRE_GPU();
  const std::string path = ::testing::TempDir() + "/sarfuse_wisdom_length.json";
  std::filesystem::remove(path);
  const RadarParams r = default_scene().radar;
  FocusOptions o = cuda_options();
  o.fft_planning = FftPlanning::measure;
  o.wisdom_path = path;
  const Plan first = make_plan(r, 512, 6250, o);
  EXPECT_TRUE(first.range_fft_size() == 7680u || first.range_fft_size() == 8192u) << first.range_fft_size();
  EXPECT_NE(first.notes().find("range FFT length " + std::to_string(first.range_fft_size()) + " (fft_planning measure"),
            std::string::npos)
      << first.notes();
  const Plan second = make_plan(r, 512, 6250, o);
  EXPECT_EQ(second.range_fft_size(), first.range_fft_size());
  EXPECT_NE(second.notes().find("(wisdom " + path), std::string::npos) << second.notes();
  std::printf("plan measure, 512 x 6250: %s", first.notes().substr(0, first.notes().find('\n') + 1).c_str());
  std::filesystem::remove(path);
}
