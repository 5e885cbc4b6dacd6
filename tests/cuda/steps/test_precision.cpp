// --precision fp16-storage / fp16 / tf32x3 on the GPU against fp64.
#include "cuda/gpu_test_util.hpp"

// The quality table for the precision modes (docs/performance.md): the 5-target scene (20 dB noise), each GPU mode
// against the CPU in fp64 with the same range FFT. fp16-storage and fp16: every target's SNR within
// 0.05 dB, PSLR / ISLR within 0.1 dB, positions within 0.02 px; the image within
// 2e-3 (FP16 keeps 11 significant bits; three stored stages), 5e-3 with FP16 butterflies.
TEST(CudaPrecision, Fp16StorageFiveTargetsMatchFp64) {
  REQUIRE_GPU();
  const ParamsFile p = default_scene();
  const ComplexImage raw = simulate(p.radar, *p.scene);
  const std::size_t nfft = 2048;
  FocusOptions oc;
  oc.backend = Backend::cpu;
  oc.precision = Precision::fp64;
  oc.range_fft_size = nfft;
  const ComplexImage ref = focus_with(p.radar, view_of(raw), oc);
  const auto qc = analyze_targets(ref, p.radar, p.scene->targets);
  std::vector<std::complex<float>> fp32_slc;
  for (Precision mode : {Precision::fp32, Precision::fp16_storage, Precision::fp16, Precision::tf32x3}) {
    // The same target bounds for every mode (fp16, FFT butterflies in FP16 arithmetic, measured within
    // 0.005 dB and 0.005 px); the image bound per mode.
    const bool fp16_math = mode == Precision::fp16;
    const double db = 0.05, lobe_db = 0.1, px = 0.02;
    FocusOptions og = cuda_options();
    og.src = SrcMode::off;
    og.precision = mode;
    const ComplexImage slc = focus_poisoned(p.radar, raw, og, nfft);
    const double e = relative_l2(slc, ref);
    std::printf("precision %s: image relative L2 vs CPU fp64 %.3e\n", to_string(mode), e);
    const auto q = analyze_targets(slc, p.radar, p.scene->targets);
    for (std::size_t t = 0; t < q.size(); ++t) {
      std::printf(
          "  target %zu: SNR %.3f dB (d %+.4f), PSLR r/a %.2f/%.2f (d %+.4f/%+.4f), ISLR r/a %.2f/%.2f (d "
          "%+.4f/%+.4f), position d %.4f/%.4f px\n",
          t, q[t].snr_db, q[t].snr_db - qc[t].snr_db, q[t].range.pslr_db, q[t].azimuth.pslr_db,
          q[t].range.pslr_db - qc[t].range.pslr_db, q[t].azimuth.pslr_db - qc[t].azimuth.pslr_db, q[t].range.islr_db,
          q[t].azimuth.islr_db, q[t].range.islr_db - qc[t].range.islr_db, q[t].azimuth.islr_db - qc[t].azimuth.islr_db,
          q[t].row - qc[t].row, q[t].col - qc[t].col);
    }
    {
      SCOPED_TRACE(to_string(mode));
      expect_targets_match(slc, ref, p, db, lobe_db, px);
    }
    const bool fp32_class = mode == Precision::fp32 || mode == Precision::tf32x3;
    EXPECT_LT(e, fp32_class ? 1e-5 : fp16_math ? 5e-3 : 2e-3);
    if (!fp32_class) EXPECT_GT(e, 1e-5) << "FP16 cannot be FP32-exact: was it used?";
    if (mode == Precision::fp32) fp32_slc.assign(slc.data(), slc.data() + slc.size());
    if (mode == Precision::tf32x3)  // other arithmetic, so other roundings: the tensor cores ran
      EXPECT_NE(std::memcmp(slc.data(), fp32_slc.data(), slc.size() * sizeof(slc.data()[0])), 0);
  }
  // What tf32x3 cannot run says so: the CPU, the baseline pipelines.
  FocusOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.precision = Precision::tf32x3;
  EXPECT_THROW(make_plan(p.radar, raw.lines(), raw.samples(), cpu), Error);
  FocusOptions unfused = cuda_options(Pipeline::cufft_unfused);
  unfused.precision = Precision::tf32x3;
  EXPECT_THROW(make_plan(p.radar, raw.lines(), raw.samples(), unfused), Error);
}

// fp16-storage at every nice range FFT length (E = 15, 10, 12, 9 points per thread; 128..1024 threads per
// line; SRC on): the image against the CPU's fp64 chain at the same length, every element written, and
// at two lengths every target's SNR / PSLR / ISLR / position within the bounds of the power-of-two test.
TEST(CudaPrecision, Fp16StorageAtEachNiceLengthMatchesFp64) {
  REQUIRE_GPU();
  const ParamsFile p = default_scene();
  const ComplexImage raw = simulate(p.radar, *p.scene);
  for (const std::size_t nfft : {1920, 2304, 2560, 3072, 3840, 4608, 5120, 6144, 7680, 9216, 10240, 12288, 15360}) {
    SCOPED_TRACE("range FFT " + std::to_string(nfft));
    FocusOptions oc;
    oc.backend = Backend::cpu;
    oc.precision = Precision::fp64;
    oc.range_fft_size = nfft;
    oc.src = SrcMode::on;  // the SRC factors of an odd E too
    const ComplexImage ref = focus_with(p.radar, view_of(raw), oc);
    FocusOptions og = cuda_options();
    og.precision = Precision::fp16_storage;
    og.src = SrcMode::on;
    const ComplexImage slc = focus_poisoned(p.radar, raw, og, nfft);
    const double e = relative_l2(slc, ref);
    std::printf("fp16-storage, range FFT %zu: image relative L2 vs CPU fp64 %.3e\n", nfft, e);
    EXPECT_LT(e, 2e-3);
    EXPECT_GT(e, 1e-5) << "FP16 cannot be FP32-exact: was it used?";
    if (nfft != 1920 && nfft != 5120) continue;
    expect_targets_match(slc, ref, p, 0.05, 0.1, 0.02);
  }
  FocusOptions o16 = cuda_options();
  o16.precision = Precision::fp16;  // FP16 butterflies: powers of two only, said so
  try {
    cuda::CudaRda gpu(p.radar, raw.lines(), raw.samples(), o16, 1920);
    ADD_FAILURE() << "fp16 accepted a range FFT of 1920";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("1920"), std::string::npos) << err.what();
  }
}

// fp16-storage on the squinted satellite scene (SRC on, centroid 2.3 PRF) and the drifting centroid
// (per-column band), every input sample type, against the CPU in fp64.
TEST(CudaPrecision, Fp16StorageSquintedScenesAndSampleTypes) {
  REQUIRE_GPU();
  for (int which = 0; which < 2; ++which) {
    const ParamsFile p = which == 0 ? test::squinted_satellite_scene() : test::drifting_centroid_scene();
    const double bw = which == 0 ? 0.0 : test::kDriftingBandwidth;
    const ComplexImage raw = simulate(p.radar, *p.scene);
    FocusOptions og = cuda_options();
    og.precision = Precision::fp16_storage;
    og.azimuth_bandwidth_hz = bw;
    Plan gpu = make_plan(p.radar, raw.lines(), raw.samples(), og);
    {
      FocusOptions o16 = og;
      o16.precision = Precision::fp16;
      Plan g16 = make_plan(p.radar, raw.lines(), raw.samples(), o16);
      FocusOptions oc;
      oc.backend = Backend::cpu;
      oc.precision = Precision::fp64;
      oc.azimuth_bandwidth_hz = bw;
      oc.range_fft_size = g16.range_fft_size();
      ComplexImage s16;
      g16.focus(view_of(raw), s16);
      const double e = relative_l2(s16, focus_with(p.radar, view_of(raw), oc));
      std::printf("%s, fp16: relative L2 vs CPU fp64 %.3e\n", which == 0 ? "squinted satellite" : "drifting centroid", e);
      EXPECT_LT(e, 5e-3);
    }
    FocusOptions oc;
    oc.backend = Backend::cpu;
    oc.precision = Precision::fp64;
    oc.azimuth_bandwidth_hz = bw;
    oc.range_fft_size = gpu.range_fft_size();
    const ComplexImage ref = focus_with(p.radar, view_of(raw), oc);
    ComplexImage slc;
    gpu.focus(view_of(raw), slc);
    const double e = relative_l2(slc, ref);
    std::printf("%s, fp16-storage: relative L2 vs CPU fp64 %.3e\n", which == 0 ? "squinted satellite" : "drifting centroid", e);
    EXPECT_LT(e, 2e-3);
    if (which == 0) {  // integer I/Q: the conversion happens in pass 1's load, before the FP16 store
      double peak = 0;
      for (std::size_t k = 0; k < raw.size(); ++k) peak = std::max({peak, double(std::abs(raw.data()[k].real())), double(std::abs(raw.data()[k].imag()))});
      std::vector<short> iq(raw.size() * 2);
      ComplexImage quantised(raw.lines(), raw.samples());
      for (std::size_t k = 0; k < raw.size(); ++k) {
        iq[2 * k] = static_cast<short>(std::lround(raw.data()[k].real() / peak * 30000));
        iq[2 * k + 1] = static_cast<short>(std::lround(raw.data()[k].imag() / peak * 30000));
        quantised.data()[k] = {float(iq[2 * k]), float(iq[2 * k + 1])};
      }
      ComplexImage from_int, from_float;
      gpu.focus(RawView{SampleType::int16_iq, iq.data(), raw.lines(), raw.samples()}, from_int);
      gpu.focus(view_of(quantised), from_float);
      EXPECT_EQ(std::memcmp(from_int.data(), from_float.data(), from_int.size() * 8), 0) << "int16 vs the same values as complex64";
    }
  }
}

// The refusals: fp16-storage needs the fused pipeline, a power-of-two line count; fp64 stays on the CPU.
TEST(CudaPrecision, Fp16StorageRefusesWhatItCannotRun) {
  REQUIRE_GPU();
  ParamsFile p = default_scene();
  FocusOptions o = cuda_options(Pipeline::cufft_unfused);
  o.precision = Precision::fp16_storage;
  EXPECT_THROW(make_plan(p.radar, 1024, 1024, o), Error);
  o.pipeline = Pipeline::fused;
  try {
    make_plan(p.radar, 1000, 1024, o);
    ADD_FAILURE() << "1000 lines accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("power-of-two line count"), std::string::npos) << e.what();
  }
  o.precision = Precision::fp64;
  EXPECT_THROW(make_plan(p.radar, 1024, 1024, o), Error);
}

// The real-data row of the precision table: RADARSAT-1 scene5 in azimuth blocks of 2048 lines
// (fp16-storage needs a power-of-two line count), each GPU mode against the CPU in fp64 with the same
// blocks and range FFT.
TEST(CudaPrecision, Scene5Fp16StorageAgainstFp64) {
  REQUIRE_GPU();
  const std::string path = test::shared_data_dir() + "/radarsat1/scene5/CDdata1.mat";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "RADARSAT-1 data not found at " << path;
  RadarParams radar = load_params(test::source_dir() + "/examples/radarsat1_scene5.json").radar;
  radar.doppler_centroid_hz = -6900;
  const RawData raw = read_raw(path, "data");
  ComplexImage c64(raw.lines, raw.samples);  // the samples as complex64, as the block reader hands them over
  for (std::size_t k = 0; k < c64.size(); ++k) {
    const std::byte* b = raw.bytes.data();
    switch (raw.type) {
      case SampleType::int8_iq: {
        const auto* v = reinterpret_cast<const std::int8_t*>(b);
        c64.data()[k] = {float(v[2 * k]), float(v[2 * k + 1])};
        break;
      }
      case SampleType::int16_iq: {
        const auto* v = reinterpret_cast<const std::int16_t*>(b);
        c64.data()[k] = {float(v[2 * k]), float(v[2 * k + 1])};
        break;
      }
      case SampleType::complex64: c64.data()[k] = reinterpret_cast<const std::complex<float>*>(b)[k]; break;
      case SampleType::complex128: c64.data()[k] = std::complex<float>(reinterpret_cast<const std::complex<double>*>(b)[k]); break;
    }
  }
  auto run = [&](Backend backend, Precision precision) {
    FocusOptions o;
    o.backend = backend;
    o.precision = precision;
    o.range_fft_size = 4096;
    const BlockLayout b = plan_azimuth_blocks(radar, c64.lines(), c64.samples(), o, 2048);
    Plan plan = make_block_plan(radar, c64.samples(), o, b);
    ComplexImage out(b.rows, c64.samples());
    std::size_t at = 0;
    focus_in_blocks(
        plan, b,
        [&](std::size_t first, std::size_t count, std::complex<float>* dst) {
          std::memcpy(dst, c64.row(first), count * c64.samples() * sizeof(std::complex<float>));
        },
        [&](const std::complex<float>* rows, std::size_t count) {
          std::memcpy(out.row(at), rows, count * c64.samples() * sizeof(std::complex<float>));
          at += count;
        });
    EXPECT_EQ(at, b.rows);
    return out;
  };
  const ComplexImage ref = run(Backend::cpu, Precision::fp64);
  const double e32 = relative_l2(run(Backend::cuda, Precision::fp32), ref);
  const double e16 = relative_l2(run(Backend::cuda, Precision::fp16_storage), ref);
  const double e16m = relative_l2(run(Backend::cuda, Precision::fp16), ref);
  const double etc = relative_l2(run(Backend::cuda, Precision::tf32x3), ref);
  std::printf("scene5 (blocks of 2048 lines): relative L2 vs CPU fp64: fp32 %.3e, fp16-storage %.3e, fp16 %.3e, tf32x3 %.3e\n",
              e32, e16, e16m, etc);
  EXPECT_LT(e32, 1e-5);
  EXPECT_LT(etc, 1e-5);
  EXPECT_LT(e16, 2e-3);
  EXPECT_LT(e16m, 5e-3);
}
