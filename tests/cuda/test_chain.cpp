// The whole CUDA chain against the CPU in fp64: every pipeline, squint, range-dependent centroid,
// RCMC taps, non-power-of-two takes, blocks, long lines, memory limits, RADARSAT-1, the planner,
// device pointers in and out, kept rows packed and encoded on the device.
#include "core/filters.hpp"
#include "cuda/cufft_library.hpp"
#include "cuda/gpu_test_util.hpp"
#include "io/sample_encoding.hpp"

class CudaChain : public ::testing::TestWithParam<Pipeline> {
 protected:
  // The cufft-callback pipeline needs cuFFT to JIT-link its LTO callback; where the toolkit cannot
  // (CUDA 13.0: cuFFT wants nvJitLink 13.1), the test says so and skips. Likewise vkfft-conv without
  // its module.
  void SetUp() override {
    if (cuda_device_count() == 0) return;
    if (GetParam() == Pipeline::vkfft_conv) {
      // The VkFFT module is built where libvkfft-dev is installed; without it the test says why.
      const std::string why = cuda::VkfftConv::unavailable_reason();
      if (!why.empty()) GTEST_SKIP() << why;
      return;
    }
    if (GetParam() != Pipeline::cufft_callback) return;
    try {
      cuda::DeviceBuffer<float2> f(256);
      cuda::DeviceBuffer<unsigned long long> info(2);
      cuda::cufft().Destroy(cuda::make_filter_callback_plan(256, 1, f.get(), info.get(), nullptr));
    } catch (const Error& e) {
      GTEST_SKIP() << e.what();
    }
  }
};

TEST_P(CudaChain, FiveTargetSceneMatchesCpuFp64) {
  REQUIRE_GPU();
  const ParamsFile p = default_scene();
  const ComplexImage raw = simulate(p.radar, *p.scene);
  // The plan class itself, so the test can poison its device output: every element must be written.
  FocusOptions og = cuda_options(GetParam());
  og.src = SrcMode::off;  // as make_plan resolves it for a zero centroid
  const std::size_t nfft = 2048;  // the power of two >= 1024 + 601 - 1
  cuda::CudaRda gpu(p.radar, raw.lines(), raw.samples(), og, nfft);
  FocusOptions oc;
  oc.backend = Backend::cpu;
  oc.precision = Precision::fp64;
  oc.range_fft_size = nfft;
  const ComplexImage ref = focus_with(p.radar, view_of(raw), oc);
  SARFUSE_CUDA(cudaMemset(gpu.device_output(), 0xFF, raw.size() * sizeof(float2)));
  ComplexImage slc(raw.lines(), raw.samples());
  for (std::size_t k = 0; k < slc.size(); ++k) slc.data()[k] = {NAN, NAN};
  gpu.focus(view_of(raw), slc);
  for (std::size_t k = 0; k < slc.size(); ++k)
    ASSERT_TRUE(std::isfinite(slc.data()[k].real()) && std::isfinite(slc.data()[k].imag())) << "element " << k;
  const double e = relative_l2(slc, ref);
  RecordProperty("relative_l2_vs_cpu_fp64", std::to_string(e));
  std::printf("5-target scene, %s: relative L2 vs CPU fp64 %.3e\n", to_string(GetParam()), e);
  EXPECT_LT(e, 1e-5);
  expect_targets_match(slc, ref, p, 0.01, 0.01, 0.01);
  // Run again: plans are reusable and deterministic on the GPU.
  ComplexImage again;
  gpu.focus(view_of(raw), again);
  EXPECT_EQ(std::memcmp(again.data(), slc.data(), slc.size() * 8), 0);
}

// Focuses `raw` (simulated from `p`) on the GPU with `og` and on the CPU in fp64 with the same band, RCMC
// taps and range FFT; returns the relative L2 difference, printed with `name`. notes: the GPU plan's.
static double focus_vs_cpu_fp64(const ParamsFile& p, const ComplexImage& raw, const FocusOptions& og, const char* name,
                                std::string* notes = nullptr) {
  Plan gpu = make_plan(p.radar, raw.lines(), raw.samples(), og);
  if (notes) *notes = gpu.notes();
  FocusOptions oc;
  oc.azimuth_bandwidth_hz = og.azimuth_bandwidth_hz;
  oc.rcmc_taps = og.rcmc_taps;
  oc.backend = Backend::cpu;
  oc.precision = Precision::fp64;
  oc.range_fft_size = gpu.range_fft_size();
  const ComplexImage ref = focus_with(p.radar, view_of(raw), oc);
  ComplexImage slc(raw.lines(), raw.samples());
  for (std::size_t k = 0; k < slc.size(); ++k) slc.data()[k] = {NAN, NAN};
  gpu.focus(view_of(raw), slc);
  const double e = relative_l2(slc, ref);
  std::printf("%s, %s: relative L2 vs CPU fp64 %.3e\n", name, to_string(og.pipeline), e);
  return e;
}

// Focuses `p`'s simulated raw data on the GPU (pipeline `pipeline`) and on the CPU in fp64.
static double gpu_vs_cpu_fp64(const ParamsFile& p, Pipeline pipeline, const char* name, double azimuth_bandwidth = 0,
                              int rcmc_taps = 8) {
  FocusOptions og = cuda_options(pipeline);
  og.azimuth_bandwidth_hz = azimuth_bandwidth;
  og.rcmc_taps = rcmc_taps;
  return focus_vs_cpu_fp64(p, simulate(p.radar, *p.scene), og, name);
}

TEST_P(CudaChain, SquintedSatelliteMatchesCpuFp64) {
  REQUIRE_GPU();
  EXPECT_LT(gpu_vs_cpu_fp64(test::squinted_satellite_scene(), GetParam(), "squinted satellite scene"), 1e-5);
}

// The per-column azimuth band of a drifting centroid (core::AzimuthFilter) on every pipeline.
TEST_P(CudaChain, RangeDependentCentroidMatchesCpuFp64) {
  REQUIRE_GPU();
  EXPECT_LT(gpu_vs_cpu_fp64(test::drifting_centroid_scene(), GetParam(), "drifting-centroid scene",
                            test::kDriftingBandwidth),
            1e-5);
}

// A processed band of 40 % of the PRF: pass 3 stores zeros for the other Doppler rows without computing
// them (blocks of two rows at the 5-target scene's range FFT of 2048, one row at the satellite's).
TEST_P(CudaChain, NarrowProcessedBandMatchesCpuFp64) {
  REQUIRE_GPU();
  const ParamsFile five = default_scene(), satellite = test::squinted_satellite_scene();
  for (const ParamsFile* p : {&five, &satellite}) {  // most rows are outside the band
    const auto az = core::azimuth_filter(p->radar, p->scene->azimuth_lines, p->scene->range_samples, true, Window{},
                                         0.4 * p->radar.prf_hz);
    const auto outside = std::count_if(az.rows.begin(), az.rows.end(), [](const auto& r) { return r.weight == 0.0; });
    EXPECT_GT(outside, static_cast<long>(az.rows.size() / 2));
  }
  EXPECT_LT(gpu_vs_cpu_fp64(five, GetParam(), "5-target scene, 40 % band", 0.4 * five.radar.prf_hz), 1e-5);
  EXPECT_LT(gpu_vs_cpu_fp64(satellite, GetParam(), "squinted satellite scene, 40 % band", 0.4 * satellite.radar.prf_hz),
            1e-5);
}

// RCMC kernels other than the default 8 taps (the row kernels' generic path, every index wrapped) on
// the squinted satellite scene (SRC on, large migration).
TEST_P(CudaChain, OtherRcmcTapCountsMatchCpuFp64) {
  REQUIRE_GPU();
  for (int taps : {4, 16}) {
    SCOPED_TRACE(std::to_string(taps) + " taps");
    const std::string name = "squinted satellite scene, " + std::to_string(taps) + "-tap RCMC";
    EXPECT_LT(gpu_vs_cpu_fp64(test::squinted_satellite_scene(), GetParam(), name.c_str(), 0, taps), 1e-5);
  }
}

TEST_P(CudaChain, NonPowerOfTwoAzimuthMatchesCpuFp64) {
  REQUIRE_GPU();
  ParamsFile p = default_scene();
  p.scene->azimuth_lines = 1000;  // not a power of two: the plan times both azimuth strategies
  EXPECT_LT(gpu_vs_cpu_fp64(p, GetParam(), "1000-line scene"), 1e-5);
}

// Long takes in azimuth blocks on the GPU: a take 4x a block, focused block by block through one CUDA
// plan, equals the same take as one CUDA block and the CPU's blocks; every block's output poisoned.
TEST(CudaBlocks, LongTakeEqualsOnePieceAndTheCpu) {
  REQUIRE_GPU();
  ParamsFile p = default_scene();
  p.scene->azimuth_lines = 8192;
  p.scene->snr_db.reset();
  p.scene->aperture_s.reset();
  p.scene->targets.clear();
  for (int k = -16; k <= 16; ++k) p.scene->targets.push_back({9800.0 + 25.0 * (k % 5), k * 0.37, 1.0, 0.1 * k});
  const ComplexImage raw = simulate(p.radar, *p.scene);
  const std::size_t nr = raw.samples();
  auto run = [&](Backend backend, std::size_t block_lines) {
    FocusOptions o;
    o.backend = backend;
    o.range_fft_size = 2048;  // the CUDA plan's power of two, for both
    const BlockLayout b = plan_azimuth_blocks(p.radar, raw.lines(), nr, o, block_lines);
    Plan plan = make_block_plan(p.radar, nr, o, b);
    ComplexImage out(b.rows, nr);
    for (std::size_t k = 0; k < out.size(); ++k) out.data()[k] = {NAN, NAN};
    std::size_t at = 0;
    focus_in_blocks(
        plan, b,
        [&](std::size_t first, std::size_t count, std::complex<float>* dst) {
          std::memcpy(dst, raw.row(first), count * nr * sizeof(std::complex<float>));
        },
        [&](const std::complex<float>* rows, std::size_t count) {
          std::memcpy(out.row(at), rows, count * nr * sizeof(std::complex<float>));
          at += count;
        });
    EXPECT_EQ(at, b.rows);
    std::printf("%s: %s\n", to_string(backend), b.to_string().c_str());
    return out;
  };
  const ComplexImage gpu_blocks = run(Backend::cuda, 2048), gpu_one = run(Backend::cuda, 0),
                     cpu_blocks = run(Backend::cpu, 2048);
  for (std::size_t k = 0; k < gpu_blocks.size(); ++k)
    ASSERT_TRUE(std::isfinite(gpu_blocks.data()[k].real()) && std::isfinite(gpu_blocks.data()[k].imag())) << k;
  const double e_one = relative_l2(gpu_blocks, gpu_one), e_cpu = relative_l2(gpu_blocks, cpu_blocks);
  std::printf("GPU blocks vs GPU one block %.2e, vs CPU blocks %.2e\n", e_one, e_cpu);
  EXPECT_LT(e_one, 1e-5);
  EXPECT_LT(e_cpu, 1e-5);
}

// Range lines longer than the row kernel holds: the plan runs the range steps through cuFFT, says so,
// and still matches the CPU.
TEST(CudaLongLines, RangeFftAbove16384MatchesCpuFp64) {
  REQUIRE_GPU();
  ParamsFile p = default_scene();
  p.scene->range_samples = 16000;  // + 600: a 32768-point range FFT
  p.scene->azimuth_lines = 256;
  for (auto& t : p.scene->targets) t.range_m = p.radar.near_range_m + 8000 * p.radar.range_spacing_m();
  Plan gpu = make_plan(p.radar, 256, 16000, cuda_options());
  EXPECT_EQ(gpu.range_fft_size(), 32768u);
  EXPECT_NE(gpu.notes().find("cuFFT"), std::string::npos) << gpu.notes();
  EXPECT_LT(gpu_vs_cpu_fp64(p, Pipeline::fused, "16000-sample lines"), 1e-5);
}

// The plan computes its device memory before allocating: a budget too small, or a scene larger than
// the device, is refused with both figures; a failed allocation is an error, not a crash.
TEST(CudaMemory, PlansRefuseWhatDoesNotFit) {
  REQUIRE_GPU();
  const ParamsFile p = default_scene();
  FocusOptions o = cuda_options();
  o.max_gpu_memory_bytes = std::size_t{16} << 20;
  try {
    make_plan(p.radar, 1024, 1024, o);
    ADD_FAILURE() << "a 16 MiB budget was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("needs"), std::string::npos) << m;
    EXPECT_NE(m.find("max_gpu_memory_bytes allows 16.0 MiB"), std::string::npos) << m;
    EXPECT_EQ(m.find("fp16-storage"), std::string::npos) << m;  // it would not fit either
  }
  o.max_gpu_memory_bytes = std::size_t{1} << 30;
  const std::size_t nfft = make_plan(p.radar, 1024, 1024, o).range_fft_size();
  const std::size_t need = cuda::CudaRda::required_device_bytes(1024, 1024, nfft, o);
  EXPECT_GT(need, std::size_t{1024} * 1024 * 32);  // raw + work + output at least
  // A budget that fp16-storage fits and fp32 does not: the message says so, and it is true.
  FocusOptions half = o;
  half.precision = Precision::fp16_storage;
  const std::size_t half_need = cuda::CudaRda::required_device_bytes(1024, 1024, nfft, half);
  ASSERT_LT(half_need, need);
  o.max_gpu_memory_bytes = (half_need + need) / 2;
  try {
    make_plan(p.radar, 1024, 1024, o);
    ADD_FAILURE() << "a budget below the fp32 plan's need was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("precision fp16-storage needs"), std::string::npos) << e.what();
  }
  half.max_gpu_memory_bytes = o.max_gpu_memory_bytes;
  EXPECT_NO_THROW(make_plan(p.radar, 1024, 1024, half));
  o.max_gpu_memory_bytes = 0;
  try {
    make_plan(p.radar, 200000, 60000, o);  // ~0.6 TB
    ADD_FAILURE() << "a scene larger than the device was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the device has"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DeviceBuffer<float2>(std::size_t{1} << 45), Error);  // 256 TiB: cudaMalloc fails, reported
}

INSTANTIATE_TEST_SUITE_P(Pipelines, CudaChain,
                         ::testing::Values(Pipeline::fused, Pipeline::cufft_unfused, Pipeline::cufft_callback,
                                           Pipeline::vkfft_conv),
                         [](const auto& info) {
                           std::string n = to_string(info.param);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(CudaRadarsat, Scene5FocusesSharplyOnTheGpu) {
  REQUIRE_GPU();
  const std::string path = test::shared_data_dir() + "/radarsat1/scene5/CDdata1.mat";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "RADARSAT-1 data not found at " << path;
  const RadarParams radar = load_params(test::source_dir() + "/examples/radarsat1_scene5.json").radar;
  const RawData raw = read_raw(path, "data");
  auto contrast = [&](double fdc) {
    RadarParams r = radar;
    r.doppler_centroid_hz = fdc;
    return intensity_contrast(focus_with(r, raw.view(), cuda_options()));
  };
  const double good = contrast(-6900), zero = contrast(0);
  std::printf("GPU intensity contrast: f_dc -6900 Hz %.3f, f_dc 0 %.3f\n", good, zero);
  EXPECT_GE(good, 3.0 * zero);
}

// A wisdom file at `path` holding one choice: `v` for the forward azimuth FFT of a plan of `lines` lines
// and range FFT `nfft` on this device (what the plan looks up before measuring).
static void write_azimuth_wisdom(const std::string& path, int lines, int nfft, gpu::FftVariant v) {
  gpu::FftDesc key;
  key.n = lines;
  key.batch = key.stride = nfft;
  key.dist = 1;
  std::filesystem::remove(path);
  gpu::FftWisdom w(path);
  w.remember(cuda::devices().at(0).name, key, v, 1.0);
  w.save();
}

// --plan measure on a focusing plan: the azimuth FFTs are timed (cuFFT strided vs the column kernel),
// the choice written to the wisdom file and read back by the next plan; each choice, forced through the
// wisdom file, focuses like the CPU in fp64.
TEST(CudaPlanner, FocusPlanMeasureAndWisdomChooseTheAzimuthFft) {
  REQUIRE_GPU();
  const ParamsFile p = default_scene();
  const ComplexImage raw = simulate(p.radar, *p.scene);
  const std::string dir = test::temp_dir("focus_wisdom");
  FocusOptions o = cuda_options();
  o.fft_planning = FftPlanning::measure;
  o.wisdom_path = dir + "/wisdom.json";
  const Plan first = make_plan(p.radar, raw.lines(), raw.samples(), o);
  EXPECT_NE(first.notes().find("fft_planning measure"), std::string::npos) << first.notes();
  ASSERT_TRUE(std::filesystem::exists(o.wisdom_path));
  const Plan second = make_plan(p.radar, raw.lines(), raw.samples(), o);
  EXPECT_NE(second.notes().find("wisdom " + o.wisdom_path), std::string::npos) << second.notes();

  FocusOptions oc;
  oc.backend = Backend::cpu;
  oc.precision = Precision::fp64;
  oc.range_fft_size = first.range_fft_size();
  const ComplexImage ref = focus_with(p.radar, view_of(raw), oc);
  // The range FFT length pinned: with the wisdom file rewritten below, a re-measured length (1920 and
  // 2048 time within noise of each other here) would key the azimuth FFTs differently.
  o.range_fft_size = first.range_fft_size();
  for (gpu::FftVariant v : {gpu::FftVariant::stockham16, gpu::FftVariant::cufft}) {
    write_azimuth_wisdom(o.wisdom_path, static_cast<int>(raw.lines()), static_cast<int>(first.range_fft_size()), v);
    const ComplexImage slc = focus_with(p.radar, view_of(raw), o);
    Plan plan = make_plan(p.radar, raw.lines(), raw.samples(), o);
    const char* name = v == gpu::FftVariant::stockham16 ? "own column kernel" : "cuFFT (strided)";
    EXPECT_NE(plan.notes().find(name), std::string::npos) << plan.notes();
    const double e = relative_l2(slc, ref);
    std::printf("azimuth FFTs by %s: relative L2 vs CPU fp64 %.3e\n", name, e);
    EXPECT_LT(e, 1e-5) << name;
  }
  std::filesystem::remove_all(dir);
}

namespace {
// A squinted satellite take of 1024 lines x `samples`, its CUDA plan and the SLC that focus() gives.
struct FocusedOnHost {
  ParamsFile p;
  ComplexImage raw;
  Plan plan;
  ComplexImage host;
};
FocusedOnHost focused_on_host(std::size_t samples) {
  ParamsFile p = test::squinted_satellite_scene();
  p.scene->azimuth_lines = 1024;
  p.scene->range_samples = samples;
  ComplexImage raw = simulate(p.radar, *p.scene, 0);
  FocusOptions o;
  o.backend = Backend::cuda;
  Plan plan = make_plan(p.radar, raw.lines(), raw.samples(), o);
  ComplexImage host;
  plan.focus(view_of(raw), host);
  return {std::move(p), std::move(raw), std::move(plan), std::move(host)};
}
}  // namespace

// Plan::focus_on_device: raw data and SLC in device memory (a poisoned output), the same SLC bit for
// bit as focus() on the host copy of the same samples, int8 I/Q too; host pointers, a misaligned
// pointer, another shape and a CPU plan refused with their reasons.
TEST(CudaDevicePointers, FocusOnDeviceEqualsTheHostPath) {
  REQUIRE_GPU();
  FocusedOnHost f = focused_on_host(512);
  const ParamsFile& p = f.p;
  const ComplexImage& raw = f.raw;
  Plan& plan = f.plan;
  ComplexImage& host = f.host;
  FocusOptions o;
  DeviceBuffer<float2> d_raw(raw.size());
  SARFUSE_CUDA(cudaMemcpy(d_raw.get(), raw.data(), raw.size() * 8, cudaMemcpyHostToDevice));
  DeviceImage slc(raw.lines(), raw.samples());
  SARFUSE_CUDA(cudaMemset(slc.data(), 0xFF, raw.size() * 8));  // NaN everywhere until written
  plan.focus_on_device(RawView{SampleType::complex64, d_raw.get(), raw.lines(), raw.samples()}, slc.data());
  std::vector<std::complex<float>> back(raw.size());
  SARFUSE_CUDA(cudaMemcpy(back.data(), slc.data(), raw.size() * 8, cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(back.data(), host.data(), raw.size() * 8), 0);
  EXPECT_EQ(plan.last_times().upload, 0);
  EXPECT_GT(plan.last_times().total, 0);

  std::vector<std::int8_t> iq(raw.size() * 2);
  for (std::size_t k = 0; k < raw.size(); ++k) {
    iq[2 * k] = static_cast<std::int8_t>(std::clamp(std::round(raw.data()[k].real() * 40.f), -127.f, 127.f));
    iq[2 * k + 1] = static_cast<std::int8_t>(std::clamp(std::round(raw.data()[k].imag() * 40.f), -127.f, 127.f));
  }
  plan.focus(RawView{SampleType::int8_iq, iq.data(), raw.lines(), raw.samples()}, host);
  DeviceBuffer<std::int8_t> d_iq(iq.size());
  SARFUSE_CUDA(cudaMemcpy(d_iq.get(), iq.data(), iq.size(), cudaMemcpyHostToDevice));
  SARFUSE_CUDA(cudaMemset(slc.data(), 0xFF, raw.size() * 8));
  plan.focus_on_device(RawView{SampleType::int8_iq, d_iq.get(), raw.lines(), raw.samples()}, slc.data());
  SARFUSE_CUDA(cudaMemcpy(back.data(), slc.data(), raw.size() * 8, cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(back.data(), host.data(), raw.size() * 8), 0);

  auto refused = [&](const RawView& v, std::complex<float>* out, const char* why) {
    try {
      plan.focus_on_device(v, out);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused(view_of(raw), slc.data(), "raw data is not in device memory");
  refused(RawView{SampleType::complex64, d_raw.get(), raw.lines(), raw.samples()}, back.data(), "SLC is not in device memory");
  refused(RawView{SampleType::int8_iq, d_iq.get() + 2, raw.lines(), raw.samples()}, slc.data(), "16-byte boundary");
  refused(RawView{SampleType::complex64, d_raw.get(), raw.lines() / 2, raw.samples()}, slc.data(), "plan was made for");
  o.backend = Backend::cpu;
  Plan cpu = make_plan(p.radar, raw.lines(), raw.samples(), o);
  try {
    cpu.focus_on_device(RawView{SampleType::complex64, d_raw.get(), raw.lines(), raw.samples()}, slc.data());
    ADD_FAILURE() << "a CPU plan accepted device pointers";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("need a CUDA plan"), std::string::npos) << e.what();
  }
}

// Plan::focus_rows: a span of rows that wraps past the block's end comes back packed in order, as
// complex64 the very rows of focus(), as complex32 the bits of the product writers' encoding; an odd
// row length (one sample per thread), the half conversion's edge values, and what it refuses.
TEST(CudaFocusRows, KeptRowsAndComplex32AreTheHostRowsAndTheirEncoding) {
  REQUIRE_GPU();
  for (const std::size_t samples : {512u, 1001u}) {
    FocusedOnHost f = focused_on_host(samples);
    const ComplexImage& raw = f.raw;
    Plan& plan = f.plan;
    const ComplexImage& host = f.host;
    const RowSpan span{700, 600};  // rows 700..1023, then 0..275
    std::vector<std::complex<float>> expected;
    for (std::size_t k = 0; k < span.count; ++k) {
      const std::complex<float>* row = host.row((span.first + k) % raw.lines());
      expected.insert(expected.end(), row, row + samples);
    }
    std::vector<std::complex<float>> rows(expected.size(), std::complex<float>(NAN, NAN));
    plan.focus_rows(view_of(raw), span, SampleFormat::complex64, rows.data());
    EXPECT_EQ(std::memcmp(rows.data(), expected.data(), rows.size() * 8), 0) << samples;
    std::vector<std::uint16_t> halves(2 * expected.size(), 0xFFFF), encoded(halves.size());
    plan.focus_rows(view_of(raw), span, SampleFormat::complex32, halves.data());
    io::floats_to_half(reinterpret_cast<const float*>(expected.data()), encoded.data(), encoded.size());
    EXPECT_TRUE(halves == encoded) << samples;
    EXPECT_GT(plan.last_times().download, 0);

    auto refused = [&](RowSpan s, SampleFormat f, const char* why) {
      try {
        plan.focus_rows(view_of(raw), s, f, rows.data());
        ADD_FAILURE() << "accepted: " << why;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      }
    };
    refused({0, raw.lines() + 1}, SampleFormat::complex64, "expected 1..1024 rows");
    refused({1024, 1}, SampleFormat::complex64, "from a row below 1024");
    refused({0, 10}, SampleFormat::cint16, "cint16 needs the product's scale");
  }
  // The conversion on values a SLC may hold: the largest half, overflow to infinity, ties to even,
  // subnormals and their underflow, signs; against the CPU encoder and the portable one.
  std::vector<float> v = {65504.f, 65519.f, 65520.f, 1e6f, -65520.f, 1.f + 1.f / 2048, 1.f + 3.f / 2048, 6.1e-5f,
                          3e-6f, 5.96e-8f, 2.9e-8f, 1e-9f, -0.f, 0.f, -3.25f, 1234.567f};
  for (int k = 0; k < 240; ++k) v.push_back(std::ldexp(float(k % 37) - 18.3f, k % 45 - 30));
  const int cols = static_cast<int>(v.size() / 2);
  DeviceBuffer<float2> d_v(v.size() / 2);
  SARFUSE_CUDA(cudaMemcpy(d_v.get(), v.data(), v.size() * 4, cudaMemcpyHostToDevice));
  DeviceBuffer<__half2> d_h(v.size() / 2);
  cuda::launch_rows_to_half(d_v.get(), 1, cols, 0, 1, d_h.get(), nullptr);
  std::vector<std::uint16_t> gpu(v.size()), cpu(v.size());
  SARFUSE_CUDA(cudaMemcpy(gpu.data(), d_h.get(), gpu.size() * 2, cudaMemcpyDeviceToHost));
  io::floats_to_half(v.data(), cpu.data(), v.size());
  EXPECT_TRUE(gpu == cpu);
  for (std::size_t k = 0; k < v.size(); ++k) EXPECT_EQ(gpu[k], io::float_to_half_portable(v[k])) << v[k];

  ParamsFile p = test::squinted_satellite_scene();
  FocusOptions o;
  o.backend = Backend::cpu;
  Plan cpu_plan = make_plan(p.radar, 1024, 512, o);
  ComplexImage raw(1024, 512);
  std::vector<std::complex<float>> out(512);
  try {
    cpu_plan.focus_rows(view_of(raw), {0, 1}, SampleFormat::complex32, out.data());
    ADD_FAILURE() << "a CPU plan made complex32 rows";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a CPU plan hands back complex64 rows"), std::string::npos) << e.what();
  }
}

// The two-step azimuth FFT leaves the Doppler rows permuted between passes 2 and 3 (pass 3 reads its
// row table in that order). --plan estimate takes it from CudaRda::kTwoStepMinLines lines (18000 = 16 x
// 1125: the odd column pass); below that the wisdom file forces it. Each focuses like the CPU in fp64,
// with every row in the processed band and with a 40 % band (the rows skipped by their permuted place).
// At 18000 lines the range FFT is 4096, where pass 1 makes the forward's 16-point step (clusters).
TEST(CudaPlanner, TwoStepAzimuthFftFocusesLikeTheCpuFp64) {
  REQUIRE_GPU();
  const std::string dir = test::temp_dir("two_step_wisdom");
  for (int lines : {cuda::CudaRda::kTwoStepMinLines, 18000, 4096}) {
    ParamsFile p = test::squinted_satellite_scene();
    p.scene->azimuth_lines = static_cast<std::size_t>(lines);
    const ComplexImage raw = simulate(p.radar, *p.scene);
    for (double band : {0.0, 0.4 * p.radar.prf_hz}) {
      FocusOptions o = cuda_options();
      o.azimuth_bandwidth_hz = band;
      if (lines < cuda::CudaRda::kTwoStepMinLines) {
        o.fft_planning = FftPlanning::measure;
        o.wisdom_path = dir + "/wisdom.json";
        o.range_fft_size = 2048;
        write_azimuth_wisdom(o.wisdom_path, lines, 2048, gpu::FftVariant::four_step);
      }
      // At 18000 lines (16 x 1125) and a range FFT of one line a block, pass 1 makes the 16-point step.
      const bool first_step = lines == 18000 && cuda::range_spectrum_first_step_fits(4096);
      if (lines == 18000) o.range_fft_size = 4096;
      std::string notes;
      const std::string name =
          "two-step azimuth FFTs, " + std::to_string(lines) + " lines, band " + std::to_string(static_cast<int>(band)) + " Hz";
      const double e = focus_vs_cpu_fp64(p, raw, o, name.c_str(), &notes);
      EXPECT_NE(notes.find("two-step columns"), std::string::npos) << notes;
      EXPECT_EQ(notes.find("pass 1 makes the azimuth FFT's 16-point step") != std::string::npos, first_step) << notes;
      EXPECT_LT(e, 1e-5);
    }
  }
  std::filesystem::remove_all(dir);
}
