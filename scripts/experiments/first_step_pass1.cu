// Experiment (issue 20): pass 1 with the two-step azimuth FFT's 16-point step folded in
// (range_spectrum_first_step_kernel: clusters of 16 lines, distributed shared memory) against pass 1
// followed by the two-step FFT's own 16-point pass, both followed by the m-point column pass, at the
// RDA's shape (30000 x 6250 raw, range FFT 8192), in one process: each variant's passes alone and
// together, the device-to-device copy of the same bytes, the two outputs compared.
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr \
//     scripts/experiments/first_step_pass1.cu -lcufft -o fsp && ./fsp 30000 6250
// Arguments: lines (16 x a supported column length) and raw samples a line; range FFT 8192.
#include "cuda/fft/column_fft.cu"
#include "cuda/fft/two_step_column_fft.cu"
#include "cuda/range_passes_sized.cuh"
#include "experiment_util.hpp"

namespace sarfuse::cuda {
bool own_fft_supports(int n) { return n >= 256 && n <= 16384 && (n & (n - 1)) == 0; }
}  // namespace sarfuse::cuda

using namespace sarfuse;
using namespace sarfuse::cuda;

int main(int argc, char** argv) {
  constexpr int N = 8192;
  const int lines = argc > 1 ? std::atoi(argv[1]) : 30000, nr = argc > 2 ? std::atoi(argv[2]) : 6250;
  const std::size_t raw_n = static_cast<std::size_t>(lines) * nr, work_n = static_cast<std::size_t>(lines) * N;
  std::vector<float2> x(raw_n), h(N);
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  for (auto& v : h) v = make_float2(g(rng), g(rng));
  float2 *raw, *filter, *a, *b, *tw, *az_tw, *part_tw;
  CK(cudaMalloc(&raw, raw_n * 8));
  CK(cudaMalloc(&filter, N * 8));
  CK(cudaMalloc(&a, work_n * 8));
  CK(cudaMalloc(&b, work_n * 8));
  CK(cudaMemcpy(raw, x.data(), raw_n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(filter, h.data(), N * 8, cudaMemcpyHostToDevice));
  tw = device_twiddle_table(N);
  az_tw = device_twiddle_table(lines);
  part_tw = device_twiddle_table(two_step_part_lines(lines));
  std::printf("%d lines x %d samples, range FFT %d; first step fits: %d\n", lines, nr, N,
              static_cast<int>(range_spectrum_first_step_fits_sized<N>()));
  {
    int clusters = 0;
    const auto kernel = &range_spectrum_first_step_kernel<N, SampleType::complex64>;
    cudaLaunchAttribute attr{};
    const cudaLaunchConfig_t config = first_step_config<N, SampleType::complex64>(reinterpret_cast<const void*>(kernel), lines, nullptr, attr);
    CK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    cudaFuncAttributes fa{}, fb{};
    CK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(kernel)));
    CK(cudaFuncGetAttributes(&fb, reinterpret_cast<const void*>(&range_spectrum_kernel<N, SampleType::complex64, steps::Fp32Butterflies, steps::Fp32Rows>)));
    std::printf("first-step kernel: %d registers, %zu B local, %d clusters of 16 active at once; pass-1 kernel: %d registers, %zu B local\n",
                fa.numRegs, fa.localSizeBytes, clusters, fb.numRegs, fb.localSizeBytes);
  }
  Timer tm;
  const double copy_pass1 = tm.median_ms([&] { CK(cudaMemcpyAsync(a, raw, raw_n * 8, cudaMemcpyDeviceToDevice)); }) +
                            tm.median_ms([&] { CK(cudaMemsetAsync(a, 0, work_n * 8)); });
  const double copy_work = tm.median_ms([&] { CK(cudaMemcpyAsync(b, a, work_n * 8, cudaMemcpyDeviceToDevice)); });
  std::printf("copy of the raw scene + memset of the spectrum (pass 1's bytes): %.4f ms\n", copy_pass1);
  std::printf("copy of the spectrum (one read + one write, a column pass's bytes): %.4f ms\n", copy_work);
  auto pass1 = [&] { launch_range_spectrum_sized<N>(SampleType::complex64, raw, lines, nr, filter, tw, a, nullptr, false); };
  auto both_steps = [&] { launch_two_step_column_fft(lines, a, N, a, N, N, false, az_tw, part_tw, nullptr); };
  auto first = [&] { launch_range_spectrum_first_step_sized<N>(SampleType::complex64, raw, lines, nr, filter, tw, az_tw, b, nullptr); };
  auto column_only = [&] { launch_two_step_column_fft(lines, b, N, b, N, N, false, az_tw, part_tw, nullptr, 0, false); };
  for (int round = 0; round < 2; ++round) {
    const double t_pass1 = tm.median_ms(pass1, 20), t_first = tm.median_ms(first, 20);
    const double t_sep = tm.median_ms([&] { pass1(); both_steps(); }, 20);
    const double t_fused = tm.median_ms([&] { first(); column_only(); }, 20);
    const double t_col = tm.median_ms(column_only, 20, first);  // on fresh first-step output each time
    std::printf("round %d: pass 1 %.4f ms | pass 1 + 16-point step (clusters) %.4f ms | pass 1, then two-step forward %.4f ms "
                "| clusters, then column pass %.4f ms (column pass alone %.4f) | %.3fx\n",
                round, t_pass1, t_first, t_sep, t_fused, t_col, t_sep / t_fused);
  }
  CK(cudaMemset(a, 0xff, work_n * 8));
  CK(cudaMemset(b, 0xff, work_n * 8));
  pass1();
  both_steps();
  first();
  column_only();
  CK(cudaDeviceSynchronize());
  std::vector<float2> ha(work_n), hb(work_n);
  CK(cudaMemcpy(ha.data(), a, work_n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, work_n * 8, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  std::size_t identical = 0;
  for (std::size_t i = 0; i < work_n; ++i) {
    const double dx = ha[i].x - hb[i].x, dy = ha[i].y - hb[i].y;
    num += dx * dx + dy * dy;
    den += static_cast<double>(ha[i].x) * ha[i].x + static_cast<double>(ha[i].y) * ha[i].y;
    identical += ha[i].x == hb[i].x && ha[i].y == hb[i].y;
  }
  std::printf("outputs: relative L2 difference %.3e, %.1f %% bit-identical\n", std::sqrt(num / den), 100.0 * identical / work_n);
  return 0;
}
