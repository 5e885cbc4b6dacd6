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
