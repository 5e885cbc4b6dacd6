// Experiment (issue 20; needs the branch wip/two-step-in-passes, or
// docs/bench/azimuth/stop43_two_step_in_passes.patch applied to main, then the library rebuilt): the
// RDA's pass 1 (range FFT x matched filter) with the first step of the two-step azimuth FFT (the
// 32-point register pass over rows m apart) done by the same persistent blocks while the rows are
// still in L2 (range_spectrum_two_step_kernel), at several delays and prefetch distances, 16 or the
// pass-1 kernel's points a thread, two or four lanes a column; and its line items alone. Against pass
// 1 and the two-step forward FFT as separate kernels in the same process; outputs compared with theirs.
// Result (stop 43, H100): slower than the separate kernels (docs/performance.md).
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr -Xptxas -v \
//     scripts/experiments/pass1_radix_fused.cu build/libsarfuse.a -lfftw3f_threads -lfftw3_threads \
//     -lfftw3f -lfftw3 -o p1r && ./p1r LINES NR NFFT
//   P1R_PROFILE=1 ./p1r ...: pass 1, the two-step forward and the fused kernel once each (for ncu).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cuda/range_pass_kernels.cuh"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;

namespace p1r {

// The kernel (range_spectrum_two_step_kernel) at a chosen shape, delay and prefetch distance.
template <int N, int Elems, int Lanes>
struct Fused {
  static constexpr int E = Elems, T = N / E, smem = BlockShape<N, E>::smem_bytes;
  static auto kernel() { return &range_spectrum_two_step_kernel<N, SampleType::complex64, E, Lanes>; }
  int grid = 0;
  Fused() {
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel()), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel(), T, smem));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid = per_sm * sms;
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(kernel())));
    std::printf("  range_spectrum_two_step_kernel<%d>: %d threads (%d points), %d lanes a column, %d registers, %zu B local, %d blocks a SM\n",
                N, T, E, Lanes, a.numRegs, a.localSizeBytes, per_sm);
  }
  void run(const float2* raw, int lines, int nr, const float2* filter, const float2* tw, float2* out,
           const float2* az_tw, int delay, unsigned* counters, int prefetch, bool no_columns = false) const {
    const int m = lines / 32;
    CK(cudaMemsetAsync(counters, 0, (1 + m) * sizeof(unsigned)));
    const steps::GroupTickets tickets{{m, 32, no_columns ? 0 : Lanes * E, delay}, counters};
    kernel()<<<grid, T, smem>>>(raw, nr, filter, tw, out, az_tw, tickets, prefetch);
    CK(cudaGetLastError());
  }
};

double rel_l2(const std::vector<float2>& a, const std::vector<float2>& b) {
  double e = 0, r = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double dx = a[i].x - b[i].x, dy = a[i].y - b[i].y;
    e += dx * dx + dy * dy;
    r += static_cast<double>(b[i].x) * b[i].x + static_cast<double>(b[i].y) * b[i].y;
  }
  return std::sqrt(e / r);
}

template <int N>
void run_case(int lines, int nr) {
  constexpr int R = 32;
  const int m = lines / R;
  const std::size_t in_n = static_cast<std::size_t>(lines) * nr, out_n = static_cast<std::size_t>(lines) * N;
  std::vector<float2> x(in_n), h(N);
  std::mt19937 rng(11);
  std::normal_distribution<float> g;
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  for (auto& v : h) v = make_float2(g(rng) / N, g(rng) / N);
  float2 *raw, *work, *ref, *filter, *tw, *az_tw, *part_tw;
  unsigned* counters;
  CK(cudaMalloc(&raw, in_n * 8));
  CK(cudaMalloc(&work, out_n * 8));
  CK(cudaMalloc(&ref, out_n * 8));
  CK(cudaMalloc(&filter, N * 8));
  CK(cudaMalloc(&counters, (1 + lines) * sizeof(unsigned)));
  const auto twh = fft_twiddle_table(N), azh = fft_twiddle_table(lines), parth = fft_twiddle_table(m);
  CK(cudaMalloc(&tw, twh.size() * 8));
  CK(cudaMalloc(&az_tw, azh.size() * 8));
  CK(cudaMalloc(&part_tw, parth.size() * 8));
  CK(cudaMemcpy(raw, x.data(), in_n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(filter, h.data(), N * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(tw, twh.data(), twh.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(az_tw, azh.data(), azh.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(part_tw, parth.data(), parth.size() * 8, cudaMemcpyHostToDevice));
  Timer tm;
  std::printf("%d lines x %d samples, range FFT %d, R %d, m %d\n", lines, nr, N, R, m);
  const double copy = tm.median_ms([&] { CK(cudaMemcpyAsync(ref, work, out_n * 8, cudaMemcpyDeviceToDevice)); }, 30);
  std::printf("  copy of the spectrum's bytes (read + write %.0f MB): %.4f ms\n", 2.0 * out_n * 8 / 1e6, copy);
  auto pass1 = [&](float2* dst) { launch_range_spectrum(N, SampleType::complex64, raw, lines, nr, filter, tw, dst, nullptr); };
  auto pass2 = [&](float2* d) { launch_two_step_column_fft(lines, d, N, d, N, N, false, az_tw, part_tw, nullptr); };
  auto mpass = [&](float2* d) { launch_column_fft(m, 256, d, N, d, N, N, false, part_tw, nullptr, ColumnScaling{}, R); };
  // The product's outputs: pass 1 alone, then pass 1 + the two-step forward.
  std::vector<float2> ref1(out_n), ref2(out_n), got(out_n);
  CK(cudaMemset(ref, 0xff, out_n * 8));
  pass1(ref);
  CK(cudaMemcpy(ref1.data(), ref, out_n * 8, cudaMemcpyDeviceToHost));
  pass2(ref);
  CK(cudaMemcpy(ref2.data(), ref, out_n * 8, cudaMemcpyDeviceToHost));
  // For Nsight Compute: after pass 1 and the two-step forward above, the fused kernel once (delay 3, no
  // prefetch).
  if (std::getenv("P1R_PROFILE")) {
    Fused<N, two_step_spectrum_elems<N>, 2>{}.run(raw, lines, nr, filter, tw, work, az_tw, 3, counters, 0);
    CK(cudaDeviceSynchronize());
    return;
  }
  const double t1 = tm.median_ms([&] { pass1(work); }, 30);
  const double t2 = tm.median_ms([&] { pass2(work); }, 30);
  const double tm_ = tm.median_ms([&] { mpass(work); }, 30);
  std::printf("  product pass 1 %.4f ms, two-step forward %.4f (its m-point pass alone %.4f): sum %.4f ms\n", t1, t2, tm_,
              t1 + t2);
  const double tprod = tm.median_ms([&] {
    launch_range_spectrum_two_step(N, SampleType::complex64, raw, lines, nr, filter, tw, work, az_tw, counters, nullptr);
    launch_two_step_column_pass(lines, work, N, N, part_tw, nullptr);
  }, 30);
  std::printf("  launch_range_spectrum_two_step + launch_two_step_column_pass (delay %d, prefetch %d): %.4f ms (%.3fx)\n",
              kTwoStepDelayGroups, kTwoStepPrefetchTickets, tprod, (t1 + t2) / tprod);
  // The line items alone (no column item: what the persistent, ticketed loop costs pass 1 itself).
  auto lines_only = [&](const auto& f) {
    const double tl = tm.median_ms([&] { f.run(raw, lines, nr, filter, tw, work, az_tw, 1, counters, 0, true); }, 30);
    std::printf("    line items alone: %.4f ms (pass 1 kernel %.4f)\n", tl, t1);
  };
  auto sweep = [&](const auto& f) {
    lines_only(f);
    for (int prefetch : {0, 64}) {
      for (int delay : {1, 2, 3, 4}) {
        CK(cudaMemset(work, 0xff, out_n * 8));
        f.run(raw, lines, nr, filter, tw, work, az_tw, delay, counters, prefetch);
        mpass(work);
        CK(cudaMemcpy(got.data(), work, out_n * 8, cudaMemcpyDeviceToHost));
        const double e2 = rel_l2(got, ref2);
        const double tf = tm.median_ms([&] { f.run(raw, lines, nr, filter, tw, work, az_tw, delay, counters, prefetch); }, 30);
        const double tfm = tm.median_ms([&] {
          f.run(raw, lines, nr, filter, tw, work, az_tw, delay, counters, prefetch);
          mpass(work);
        }, 30);
        std::printf("    delay %2d, prefetch %3d: %.4f ms, + m-point pass %.4f ms (%.3fx the separate passes) vs them %.2e%s\n",
                    delay, prefetch, tf, tfm, (t1 + t2) / tfm, e2, e2 < 2e-6 ? "" : "  ** WRONG **");
      }
    }
  };
  sweep(Fused<N, two_step_spectrum_elems<N>, 2>{});
  sweep(Fused<N, two_step_spectrum_elems<N>, 4>{});
  if constexpr (fft::kElems<N> != two_step_spectrum_elems<N> && (N / fft::kElems<N>) % 32 == 0 && N / fft::kElems<N> <= 1024)
    sweep(Fused<N, fft::kElems<N>, 4>{});
  CK(cudaFree(raw));
  CK(cudaFree(work));
  CK(cudaFree(ref));
  CK(cudaFree(filter));
  CK(cudaFree(counters));
  CK(cudaFree(tw));
  CK(cudaFree(az_tw));
  CK(cudaFree(part_tw));
}

}  // namespace p1r

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int nr = argc > 2 ? std::atoi(argv[2]) : 8192;
  const int n = argc > 3 ? std::atoi(argv[3]) : 9216;
  if (n == 9216) p1r::run_case<9216>(lines, nr);
  else if (n == 10240) p1r::run_case<10240>(lines, nr);
  else if (n == 8192) p1r::run_case<8192>(lines, nr);
  else if (n == 5120) p1r::run_case<5120>(lines, nr);
  else std::printf("NFFT 9216, 10240, 8192 or 5120\n");
  return 0;
}
