// Experiment (issue 20): the two-step azimuth FFT in one pass over the scene, each tile of W adjacent
// columns held by a cluster of K CTAs that exchange between the two steps through distributed shared
// memory (cluster_column_fft.cuh, beside this file), against the library's two-pass version (the RDA's passes 2
// and 4 today) and cuFFT strided, in the same process. Forward in place at the RDA's pass-2 shape
// (LINES x NFFT), inverse out of place at pass 4's (LINES rows of pitch NFFT -> LINES x COLS); every
// output compared with the two-pass version's, and a few columns of the forward with a float64 FFT;
// a device-to-device copy of the same bytes as the floor. Outputs poisoned before each checked run.
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr -Xptxas -v \
//     scripts/experiments/cluster_columns.cu build/libsarfuse.a -lcufft -lfftw3f_threads -lfftw3_threads \
//     -lfftw3f -lfftw3 -o clc && ./clc LINES NFFT COLS
#include <cufft.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cluster_column_fft.cuh"
#include "cuda/kernels.hpp"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;

namespace clc {

double rel_l2(const std::vector<float2>& a, const std::vector<float2>& b) {
  double e = 0, r = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double dx = a[i].x - b[i].x, dy = a[i].y - b[i].y;
    e += dx * dx + dy * dy;
    r += static_cast<double>(b[i].x) * b[i].x + static_cast<double>(b[i].y) * b[i].y;
  }
  return std::sqrt(e / r);
}

std::vector<float2> fetch(const float2* d, std::size_t n) {
  std::vector<float2> h(n);
  CK(cudaMemcpy(h.data(), d, n * 8, cudaMemcpyDeviceToHost));
  return h;
}

struct Variant {
  std::string name;
  std::function<void(const float2*, int, float2*, int, int, bool)> run;  // in, in_pitch, out, out_pitch, cols, inverse
};

template <int R, int M, int W, int K, int MinBlocks>
Variant cluster_variant(const float2* tw, const float2* part_tw) {
  using S = fft::ClusterColumnShape<R, M, W, K>;
  for (bool inv : {false, true}) {
    const void* k = inv ? reinterpret_cast<const void*>(&fft::cluster_column_fft_kernel<R, M, W, K, true, MinBlocks>)
                        : reinterpret_cast<const void*>(&fft::cluster_column_fft_kernel<R, M, W, K, false, MinBlocks>);
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, k));
    std::printf("  cluster W=%d K=%d min_blocks=%d %s: %d threads, %d registers, %zu B local, %d B shared\n", W, K,
                MinBlocks, inv ? "inverse" : "forward", S::threads, a.numRegs, a.localSizeBytes, S::smem_bytes);
  }
  char name[96];
  std::snprintf(name, sizeof name, "cluster W=%d K=%d (%d thr, %d KB, min %d)", W, K, S::threads, S::smem_bytes / 1024,
                MinBlocks);
  return {name, [=](const float2* in, int ip, float2* out, int op, int cols, bool inv) {
            if (inv) fft::launch_cluster_column_fft_as<R, M, W, K, true, MinBlocks>(in, ip, out, op, cols, tw, part_tw, 0);
            else fft::launch_cluster_column_fft_as<R, M, W, K, false, MinBlocks>(in, ip, out, op, cols, tw, part_tw, 0);
          }};
}

template <int R, int M>
std::vector<Variant> cluster_variants(const float2* tw, const float2* part_tw) {
  std::vector<Variant> v;
  if constexpr (M == 256) {
    v.push_back(cluster_variant<R, M, 4, 4, 2>(tw, part_tw));
    v.push_back(cluster_variant<R, M, 8, 8, 2>(tw, part_tw));
    v.push_back(cluster_variant<R, M, 4, 8, 4>(tw, part_tw));
    v.push_back(cluster_variant<R, M, 2, 2, 2>(tw, part_tw));
    v.push_back(cluster_variant<R, M, 8, 4, 1>(tw, part_tw));
    v.push_back(cluster_variant<R, M, 16, 16, 2>(tw, part_tw));
    if constexpr (R == 16) v.push_back(cluster_variant<R, M, 4, 2, 1>(tw, part_tw));
  } else {
    v.push_back(cluster_variant<R, M, 4, 8, 2>(tw, part_tw));
    v.push_back(cluster_variant<R, M, 8, 16, 2>(tw, part_tw));
    v.push_back(cluster_variant<R, M, 2, 4, 2>(tw, part_tw));
  }
  return v;
}

template <int R, int M>
void run(int nfft, int cols_out) {
  constexpr int lines = R * M;
  const std::size_t n_in = static_cast<std::size_t>(lines) * nfft, n_out = static_cast<std::size_t>(lines) * cols_out;
  std::printf("lines %d = %d x %d, forward %d x %d in place, inverse to %d x %d\n", lines, R, M, lines, nfft, lines,
              cols_out);
  std::vector<float2> x(n_in);
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  const auto tw_h = fft_twiddle_table(lines), part_h = fft_twiddle_table(M);
  float2 *src, *work, *ref, *slc, *tw, *part_tw;
  CK(cudaMalloc(&src, n_in * 8));
  CK(cudaMalloc(&work, n_in * 8));
  CK(cudaMalloc(&ref, n_in * 8));
  CK(cudaMalloc(&slc, n_out * 8));
  CK(cudaMalloc(&tw, tw_h.size() * 8));
  CK(cudaMalloc(&part_tw, part_h.size() * 8));
  CK(cudaMemcpy(src, x.data(), n_in * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(tw, tw_h.data(), tw_h.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(part_tw, part_h.data(), part_h.size() * 8, cudaMemcpyHostToDevice));
  Timer timer;
  const int reps = 30;

  // The library's two-pass version: the reference for every variant's outputs.
  CK(cudaMemcpy(ref, src, n_in * 8, cudaMemcpyDeviceToDevice));
  launch_two_step_column_fft(lines, ref, nfft, ref, nfft, nfft, false, tw, part_tw, 0);
  CK(cudaDeviceSynchronize());
  const auto fwd_ref = fetch(ref, n_in);
  {  // a few columns against float64
    double e = 0, r = 0;
    for (int c : {0, 1, nfft / 2 + 3, nfft - 1}) {
      std::vector<std::complex<double>> col(lines);
      for (int i = 0; i < lines; ++i) col[i] = {x[static_cast<std::size_t>(i) * nfft + c].x, x[static_cast<std::size_t>(i) * nfft + c].y};
      fft_host(col);
      for (int row = 0; row < lines; ++row) {
        const auto& y = fwd_ref[static_cast<std::size_t>(row) * nfft + c];
        const auto want = col[two_step_spectrum_bin(row, lines)];
        e += std::norm(std::complex<double>(y.x, y.y) - want);
        r += std::norm(want);
      }
    }
    std::printf("  two-pass forward vs float64 (4 columns): %.2e\n", std::sqrt(e / r));
  }
  launch_two_step_column_fft(lines, ref, nfft, slc, cols_out, cols_out, true, tw, part_tw, 0);
  CK(cudaDeviceSynchronize());
  const auto inv_ref = fetch(slc, n_out);

  const double copy_fwd = timer.median_ms([&] { CK(cudaMemcpyAsync(work, src, n_in * 8, cudaMemcpyDeviceToDevice)); }, reps);
  std::printf("  copy of the forward's bytes (floor): %.3f ms (%.0f GB/s)\n", copy_fwd, 2 * n_in * 8 / copy_fwd / 1e6);
  const double two_fwd = timer.median_ms([&] { launch_two_step_column_fft(lines, work, nfft, work, nfft, nfft, false, tw, part_tw, 0); }, reps);
  const double two_inv = timer.median_ms([&] { launch_two_step_column_fft(lines, ref, nfft, slc, cols_out, cols_out, true, tw, part_tw, 0); }, reps);
  std::printf("  %-44s forward %.3f ms  inverse %.3f ms\n", "two-pass (library)", two_fwd, two_inv);
  {
    cufftHandle p;
    int n[1] = {lines};
    if (cufftPlanMany(&p, 1, n, n, nfft, 1, n, nfft, 1, CUFFT_C2C, nfft) == CUFFT_SUCCESS) {
      const double t = timer.median_ms([&] { cufftExecC2C(p, reinterpret_cast<cufftComplex*>(work), reinterpret_cast<cufftComplex*>(work), CUFFT_FORWARD); }, reps);
      std::printf("  %-44s forward %.3f ms\n", "cuFFT strided", t);
      cufftDestroy(p);
    }
  }
  for (const Variant& v : cluster_variants<R, M>(tw, part_tw)) {
    CK(cudaMemcpy(work, src, n_in * 8, cudaMemcpyDeviceToDevice));
    v.run(work, nfft, work, nfft, nfft, false);
    CK(cudaDeviceSynchronize());
    const double e_fwd = rel_l2(fetch(work, n_in), fwd_ref);
    CK(cudaMemset(slc, 0xff, n_out * 8));  // poisoned: NaN
    v.run(ref, nfft, slc, cols_out, cols_out, true);
    CK(cudaDeviceSynchronize());
    const double e_inv = rel_l2(fetch(slc, n_out), inv_ref);
    const double t_fwd = timer.median_ms([&] { v.run(work, nfft, work, nfft, nfft, false); }, reps);
    const double t_inv = timer.median_ms([&] { v.run(ref, nfft, slc, cols_out, cols_out, true); }, reps);
    std::printf("  %-44s forward %.3f ms (%.2fx, %.0f %% of copy)  inverse %.3f ms (%.2fx)  errors %.1e / %.1e%s\n",
                v.name.c_str(), t_fwd, two_fwd / t_fwd, 100 * copy_fwd / t_fwd, t_inv, two_inv / t_inv, e_fwd, e_inv,
                e_fwd < 1e-5 && e_inv < 1e-5 ? "" : "  MISMATCH");
  }
  for (float2* p : {src, work, ref, slc, tw, part_tw}) CK(cudaFree(p));
}

}  // namespace clc

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int nfft = argc > 2 ? std::atoi(argv[2]) : 9216;
  const int cols = argc > 3 ? std::atoi(argv[3]) : 8192;
  if (lines == 8192) clc::run<32, 256>(nfft, cols);
  else if (lines == 4096) clc::run<16, 256>(nfft, cols);
  else if (lines == 16384) clc::run<32, 512>(nfft, cols);
  else std::fprintf(stderr, "lines: 4096, 8192 or 16384\n");
  return 0;
}
