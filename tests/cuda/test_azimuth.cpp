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
