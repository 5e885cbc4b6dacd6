// The azimuth FFT passes on the GPU: strided and transposing, against float64.
#include "cuda/gpu_test_util.hpp"

TEST(CudaAzimuth, StridedAndTransposingAgreeWithFloat64) {
  REQUIRE_GPU();
  const int lines = 1000, cols = 70, pitch = 80;  // a pitch wider than the columns, as in the chain
  const auto x = test::random_complex(static_cast<std::size_t>(lines) * pitch, 21);
  std::vector<std::complex<double>> ref(static_cast<std::size_t>(lines) * cols);
  for (int c = 0; c < cols; ++c) {
    std::vector<std::complex<double>> col(lines);
    for (int i = 0; i < lines; ++i) col[i] = std::complex<double>(std::complex<float>(x[i * pitch + c]));
    const auto f = test::direct_dft(col, -1);
    for (int i = 0; i < lines; ++i) ref[i * cols + c] = f[i];
  }
  auto d_in = to_device(to_f2(x));
  DeviceBuffer<float2> scratch(static_cast<std::size_t>(lines) * pitch), out(static_cast<std::size_t>(lines) * cols);
  for (bool transposing : {false, true}) {
    cuda::AzimuthFft f(lines, cols, pitch, cols, transposing ? scratch.get() : nullptr, nullptr);
    EXPECT_EQ(f.transposed(), transposing);
    poison(out);
    f.exec(d_in.get(), out.get(), CUFFT_FORWARD);
    SARFUSE_CUDA(cudaDeviceSynchronize());
    const auto got = to_host(out);
    expect_all_finite(got, "azimuth FFT");
    std::vector<std::complex<double>> g(got.size());
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = {got[i].x, got[i].y};
    EXPECT_LT(test::rel_l2(g, ref), 2e-6) << (transposing ? "transposing" : "strided");
  }
}

// The two-step column FFT (16-point register pass at 4096 lines, 32-point from 8192; m-point column pass
// of 256 threads to m = 1024, 512 at 2048; 16 x an odd column length at 10800, 18000 and 30000 lines,
// radix 15, 5 and 3 passes): its forward leaves bin two_step_spectrum_bin(r) at row r (checked against a
// float64 FFT of every column), and its inverse takes that order back to lines x the input.
TEST(CudaAzimuth, TwoStepColumnsAgreeWithFloat64InTheirRowOrderAndInvert) {
  REQUIRE_GPU();
  for (int lines : {4096, 8192, 16384, 32768, 10800, 18000, 30000}) {
    SCOPED_TRACE(std::to_string(lines) + " lines");
    const int cols = 5, pitch = 8, spectrum_pitch = 6;  // pitches wider than the columns, as in the chain
    const auto x = test::random_complex(static_cast<std::size_t>(lines) * pitch, 22 + lines);
    std::vector<std::vector<std::complex<double>>> ref(cols);
    for (int c = 0; c < cols; ++c) {
      std::vector<std::complex<double>> col(lines);
      for (int i = 0; i < lines; ++i) col[i] = std::complex<double>(std::complex<float>(x[i * pitch + c]));
      ref[c].resize(lines);
      core::FftPlan<double>({lines}, core::FftDirection::forward, col.data(), ref[c].data(), FftPlanning::estimate)
          .execute(col.data(), ref[c].data());
    }
    auto d_in = to_device(to_f2(x));
    auto tw = to_device(cuda::fft_twiddle_table(lines)), part = to_device(cuda::fft_twiddle_table(cuda::two_step_part_lines(lines)));
    DeviceBuffer<float2> spectrum(static_cast<std::size_t>(lines) * spectrum_pitch), back(static_cast<std::size_t>(lines) * cols);
    cuda::AzimuthFft forward(lines, cols, pitch, spectrum_pitch, cuda::AzimuthFft::TwoStep{tw.get(), part.get()}, nullptr);
    cuda::AzimuthFft inverse(lines, cols, spectrum_pitch, cols, cuda::AzimuthFft::TwoStep{tw.get(), part.get()}, nullptr);
    EXPECT_TRUE(forward.two_step());
    poison(spectrum);
    poison(back);
    forward.exec(d_in.get(), spectrum.get(), CUFFT_FORWARD);
    inverse.exec(spectrum.get(), back.get(), CUFFT_INVERSE);
    SARFUSE_CUDA(cudaDeviceSynchronize());
    const auto s = to_host(spectrum), b = to_host(back);
    expect_all_finite(b, "two-step inverse");
    std::vector<std::complex<double>> got, want, round, input;
    std::vector<bool> seen(lines, false);
    for (int r = 0; r < lines; ++r) {
      const int bin = cuda::two_step_spectrum_bin(r, lines);
      ASSERT_TRUE(bin >= 0 && bin < lines && !seen[bin]) << "row " << r << " -> bin " << bin;
      seen[bin] = true;
      for (int c = 0; c < cols; ++c) {
        got.emplace_back(s[r * spectrum_pitch + c].x, s[r * spectrum_pitch + c].y);
        want.push_back(ref[c][bin]);
        round.emplace_back(b[r * cols + c].x / lines, b[r * cols + c].y / lines);
        input.emplace_back(std::complex<float>(x[r * pitch + c]));
      }
    }
    EXPECT_LT(test::rel_l2(got, want), 2e-6) << "forward";
    EXPECT_LT(test::rel_l2(round, input), 2e-6) << "inverse of the forward";
  }
}

// Pass 1 with the two-step FFT's 16-point step folded in (clusters of 16 lines exchanging through
// distributed shared memory), then the column pass alone into natural order
// (launch_two_step_column_pass): against float64 (random lines zero-padded to the range FFT, x a random
// filter, FFT down the columns) and against pass 1 followed by the whole two-step FFT (its rows in
// two_step_spectrum_bin order); int16 samples at the odd column length.
TEST(CudaAzimuth, FirstStepInPass1AgreesWithFloat64AndTheSeparatePass) {
  REQUIRE_GPU();
  const int nfft = 4096, nr = 3000;
  if (!cuda::range_spectrum_first_step_fits(nfft))
    GTEST_SKIP() << "a cluster of 16 blocks of pass 1 at " << nfft << " does not fit on this device";
  for (int lines : {4096, 10800}) {
    SCOPED_TRACE(std::to_string(lines) + " lines");
    const bool integer = lines == 10800;
    const auto x = test::random_complex(static_cast<std::size_t>(lines) * nr, 40 + lines);
    const auto h = test::random_complex(nfft, 41);
    std::vector<short2> x16(x.size());
    std::vector<std::complex<double>> xs(x.size());  // the samples the GPU reads, in float64
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (integer) {
        x16[i] = make_short2(static_cast<short>(std::lround(1000 * x[i].real())), static_cast<short>(std::lround(1000 * x[i].imag())));
        xs[i] = {static_cast<double>(x16[i].x), static_cast<double>(x16[i].y)};
      } else {
        xs[i] = std::complex<double>(std::complex<float>(x[i]));
      }
    }
    const std::vector<int> cols = {0, 1, 517, 1024, 2047, 3001, nfft - 1};
    std::vector<std::vector<std::complex<double>>> ref(cols.size(), std::vector<std::complex<double>>(lines));
    std::vector<std::complex<double>> row(nfft), spec(nfft);
    core::FftPlan<double> rows({nfft}, core::FftDirection::forward, row.data(), spec.data(), FftPlanning::estimate);
    for (int l = 0; l < lines; ++l) {
      std::fill(row.begin(), row.end(), std::complex<double>{});
      std::copy_n(xs.begin() + static_cast<std::ptrdiff_t>(l) * nr, nr, row.begin());
      rows.execute(row.data(), spec.data());
      for (std::size_t c = 0; c < cols.size(); ++c) ref[c][l] = spec[cols[c]] * h[cols[c]];
    }
    for (auto& col : ref) {
      std::vector<std::complex<double>> f(lines);
      core::FftPlan<double>({lines}, core::FftDirection::forward, col.data(), f.data(), FftPlanning::estimate).execute(col.data(), f.data());
      col = f;
    }
    DeviceBuffer<std::byte> d_raw(x.size() * (integer ? sizeof(short2) : sizeof(float2)));
    if (integer) SARFUSE_CUDA(cudaMemcpy(d_raw.get(), x16.data(), d_raw.bytes(), cudaMemcpyHostToDevice));
    else SARFUSE_CUDA(cudaMemcpy(d_raw.get(), to_f2(x).data(), d_raw.bytes(), cudaMemcpyHostToDevice));
    const SampleType type = integer ? SampleType::int16_iq : SampleType::complex64;
    auto d_h = to_device(to_f2(h));
    auto tw = to_device(cuda::fft_twiddle_table(nfft)), az_tw = to_device(cuda::fft_twiddle_table(lines));
    auto part = to_device(cuda::fft_twiddle_table(cuda::two_step_part_lines(lines)));
    DeviceBuffer<float2> first(static_cast<std::size_t>(lines) * nfft), natural(first.size()), separate(first.size());
    poison(first);
    poison(natural);
    poison(separate);
    cuda::launch_range_spectrum_first_step(nfft, type, d_raw.get(), lines, nr, d_h.get(), tw.get(), az_tw.get(), first.get(),
                                           nullptr);
    cuda::launch_two_step_column_pass(lines, first.get(), nfft, natural.get(), nfft, nfft, part.get(), nullptr);
    cuda::launch_range_spectrum(nfft, type, d_raw.get(), lines, nr, d_h.get(), tw.get(), separate.get(), nullptr);
    cuda::launch_two_step_column_fft(lines, separate.get(), nfft, separate.get(), nfft, nfft, false, az_tw.get(), part.get(),
                                     nullptr);
    SARFUSE_CUDA(cudaDeviceSynchronize());
    const auto a = to_host(natural), b = to_host(separate);
    expect_all_finite(a, "first step in pass 1, then the column pass");
    std::vector<std::complex<double>> got, want, all_a, all_b;
    for (int r = 0; r < lines; ++r) {
      for (std::size_t c = 0; c < cols.size(); ++c) {
        const float2 g = a[static_cast<std::size_t>(r) * nfft + cols[c]];
        got.emplace_back(g.x, g.y);
        want.push_back(ref[c][r]);
      }
      const int bin = cuda::two_step_spectrum_bin(r, lines);
      for (int c = 0; c < nfft; ++c) {
        const float2 g = a[static_cast<std::size_t>(bin) * nfft + c], o = b[static_cast<std::size_t>(r) * nfft + c];
        all_a.emplace_back(g.x, g.y);
        all_b.emplace_back(o.x, o.y);
      }
    }
    const double e = test::rel_l2(got, want), d = test::rel_l2(all_a, all_b);
    std::printf("first step in pass 1, %d lines: relative L2 vs float64 %.3e, vs the separate passes %.3e\n", lines, e, d);
    EXPECT_LT(e, 2e-6);
    EXPECT_LT(d, 1e-6);
    EXPECT_THROW(cuda::launch_two_step_column_pass(lines, natural.get(), nfft, natural.get(), nfft, nfft, part.get(), nullptr),
                 Error);  // in place: the interleaved output rows would overwrite unread input
  }
}

// The inverse that takes the spectrum in natural order (the RDA's pass 4 after pass 1's 16-point step):
// random rows at pitch 512, 300 columns out at pitch 300, against the float64 inverse DFT of each checked
// column; the odd column length (30000 = 16 x 1875) and a power of two.
TEST(CudaAzimuth, TwoStepInverseFromNaturalOrderAgreesWithFloat64) {
  REQUIRE_GPU();
  const int pitch = 512, cols = 300;
  for (int lines : {4096, 30000}) {
    SCOPED_TRACE(std::to_string(lines) + " lines");
    const auto x = test::random_complex(static_cast<std::size_t>(lines) * pitch, 50 + lines);
    auto d_x = to_device(to_f2(x));
    auto tw = to_device(cuda::fft_twiddle_table(lines));
    auto part = to_device(cuda::fft_twiddle_table(cuda::two_step_part_lines(lines)));
    DeviceBuffer<float2> out(static_cast<std::size_t>(lines) * cols);
    DeviceBuffer<float2> scratch(static_cast<std::size_t>(lines) * cuda::natural_scratch_pitch(cols));
    poison(out);
    poison(scratch);
    cuda::launch_two_step_inverse_from_natural(lines, d_x.get(), pitch, scratch.get(), cuda::natural_scratch_pitch(cols),
                                               out.get(), cols, cols, tw.get(), part.get(), nullptr);
    SARFUSE_CUDA(cudaDeviceSynchronize());
    const auto y = to_host(out);
    expect_all_finite(y, "two-step inverse from natural order");
    std::vector<std::complex<double>> got, want, col(lines), inv(lines);
    core::FftPlan<double> plan({lines}, core::FftDirection::inverse, col.data(), inv.data(), FftPlanning::estimate);
    for (int c : {0, 1, 31, 32, 150, cols - 1}) {
      for (int r = 0; r < lines; ++r) {
        const auto v = std::complex<float>(x[static_cast<std::size_t>(r) * pitch + c]);
        col[r] = {v.real(), v.imag()};
      }
      plan.execute(col.data(), inv.data());  // unnormalised, as the GPU's
      for (int r = 0; r < lines; ++r) {
        const float2 g = y[static_cast<std::size_t>(r) * cols + c];
        got.emplace_back(g.x, g.y);
        want.push_back(inv[r]);
      }
    }
    const double e = test::rel_l2(got, want);
    std::printf("two-step inverse from natural order, %d lines: relative L2 vs float64 %.3e\n", lines, e);
    EXPECT_LT(e, 2e-6);
    EXPECT_THROW(cuda::launch_two_step_inverse_from_natural(lines, d_x.get(), pitch, d_x.get(), pitch, out.get(), cols,
                                                            cols, tw.get(), part.get(), nullptr),
                 Error);  // the scratch in place of the input: the grouped rows would overwrite unread input
    EXPECT_THROW(cuda::launch_two_step_inverse_from_natural(lines, d_x.get(), pitch, scratch.get(), cols + 2, out.get(),
                                                            cols, cols, tw.get(), part.get(), nullptr),
                 Error);  // a scratch pitch that is not a multiple of 4
  }
}
