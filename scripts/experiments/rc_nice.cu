// Experiment (issue 20): range compression at the nice lengths the RDA picks (2^a x 3, 5 or 15: 3072,
// 5120, ... 15360), circular, 4096 lines: the project's block FFT fused as the power-of-two kernel is
// (load, FFT, x H, conj, FFT, conj, store) with one and two exchange buffers at one to three blocks a
// SM, cuFFTDx's kernel of the same fusion (its suggested elements per thread), and VkFFT's convolution (the bench's vkfft-conv module, in place), in one process; every
// output checked against a float64 DFT. Built here, one binary per length (RC_N), run on the GPU machine
// with the VkFFT module's path as the argument:
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src -I .deps/mathdx-25.6.0/mathdx/include \
//     -I .deps/mathdx-25.6.0/mathdx/external/cutlass/include --expt-relaxed-constexpr \
//     -DSARFUSE_HAVE_CUFFTDX=1 -DSARFUSE_CUFFTDX_SM=900 -DRC_N=5120 scripts/experiments/rc_nice.cu -o rc_nice_5120
//   ./rc_nice_5120 build/libsarfuse_vkfft.so
// (cuFFTDx has no block FFT at 10240 and above: -DSARFUSE_HAVE_CUFFTDX=0 there.) -DRC_E=16: 16 points a
// thread instead of the RDA's 10, 12 or 15 (the radix-16 passes on the registers, the odd one through
// shared memory), docs/performance.md "Stop 36".
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#if SARFUSE_HAVE_CUFFTDX
#include "bench/cufftdx_range_kernel.cuh"
#endif
#include "cuda/range_pass_kernels.cuh"
#include "cuda/vkfft/vkfft_plugin_abi.h"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;
using fft::C32;

#ifndef RC_N
#define RC_N 5120
#endif
constexpr int N = RC_N, LINES = 4096;
#ifndef RC_E
#define RC_E fft::kElems<N>  // points a thread: the RDA's (10, 12 or 15); -DRC_E=16 or 32 for N / E whole warps
#endif
constexpr int E = RC_E, T = N / E;
static_assert(fft::is_nice_row_size(N), "RC_N: a nice row length");

// Double: two exchange buffers (fft::Exchange<2>); the second FFT starts on the buffer the first one's
// last pass left free (a last pass through shared memory reads both: then the one it read from).
constexpr int kPasses = fft::row_pass_count(N);
constexpr bool kSmemLast = E % fft::row_pass_radix(N, kPasses - 1) != 0;
template <bool Double>
using FirstExchange = fft::Exchange<Double ? 2 : 1, 0>;
template <bool Double>
using SecondExchange = fft::Exchange<Double ? 2 : 1, Double ? (kSmemLast ? kPasses % 2 : (kPasses - 1) % 2) : 0>;

template <int MinBlocks, bool Double>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_nice(const float2* __restrict__ raw, const float2* __restrict__ filter, const float2* __restrict__ tw,
            float2* __restrict__ out) {
  extern __shared__ __align__(32) C32 smem[];
  const int tid = threadIdx.x, line = blockIdx.x;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::to_c32(__ldg(raw + static_cast<std::size_t>(line) * N + tid + q * T));
  steps::Fp32Butterflies::forward<N, E, FirstExchange<Double>>(v, smem, tw, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
  steps::conjugate(v);
  steps::Fp32Butterflies::forward<N, E, SecondExchange<Double>>(v, smem, tw, tid);
  float2* dst = out + static_cast<std::size_t>(line) * N + tid;
#pragma unroll
  for (int q = 0; q < E; ++q) dst[q * T] = fft::to_float2(fft::conj(v[q]));
}

// Unnormalised DFT in float64 (sign -1 forward, +1 inverse), O(N^2) with an exact twiddle table.
std::vector<std::complex<double>> dft(const std::vector<std::complex<double>>& a, int sign) {
  std::vector<std::complex<double>> w(N), y(N);
  for (int k = 0; k < N; ++k) w[k] = std::polar(1.0, sign * 2 * M_PI * k / N);
  for (int k = 0; k < N; ++k) {
    std::complex<double> s = 0;
    for (int n = 0, idx = 0; n < N; ++n, idx = (idx + k) % N) s += a[n] * w[idx];
    y[k] = s;
  }
  return y;
}

int main(int argc, char** argv) {
  RangeCase rc(LINES, N);
  rc.set_checked_lines({0, LINES - 1}, [](auto& a, bool inv) { a = dft(a, inv ? +1 : -1); });
  const std::size_t n = rc.size;
  const std::vector<float2>& h = rc.h;
  float2 *dx = rc.dx, *dy = rc.dy, *dh = rc.dh, *dtw = rc.dtw;
  auto check = [&](const char* name) { rc.check(name); };
  auto poison = [&] { rc.poison(); };
  Bench bench(dy, dx, n * 8);
  std::printf("%d lines of %d points; ours: %d threads x %d points a line\n", LINES, N, T, E);

  constexpr bool kTwoBuffers = kPasses > 1 && E % fft::row_pass_radix(N, 0) == 0;  // pass 0 on the registers
  auto ours = [&]<int MinBlocks, bool Double>() {
    if constexpr (!Double || kTwoBuffers) {
      const int smem = (Double ? 2 : 1) * fft::smem_size(N) * 8;
      measure_kernel(bench, rc, reinterpret_cast<const void*>(&rc_nice<MinBlocks, Double>), smem, T, LINES, false,
                     Double ? "sarfuse block FFT, fused, two exchange buffers" : "sarfuse block FFT, fused",
                     [&](unsigned grid) { rc_nice<MinBlocks, Double><<<grid, T, smem>>>(dx, dh, dtw, dy); });
    }
  };
  ours.template operator()<1, false>();
  if constexpr (T <= 512) ours.template operator()<2, false>();
  if constexpr (T <= 256) ours.template operator()<3, false>();
  if (kTwoBuffers) {
    ours.template operator()<1, true>();
    if constexpr (T <= 512) ours.template operator()<2, true>();
  }

#if SARFUSE_HAVE_CUFFTDX
  // At N itself: Bluestein (a workspace) where cuFFTDx has no kernel of its own for N, as for every nice
  // length here (its own lengths above 2048: powers of two, 2187, 3125, 5832, 6561, 7776, 8000, 10000, ...).
  for (const bench::CufftdxRange& c : {bench::cufftdx_peer::make_config<N, 0, 1>()}) {
    measure_run(bench, rc, "cuFFTDx " + c.config, [&] { c.run(dx, dy, dh, LINES, nullptr); });
  }
#endif

  // VkFFT multiplies by conj(FFT(k)) / N: k = IFFT_unnormalised(conj(H)) gives H.
  if (argc > 1) {
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::printf("VkFFT module: %s\n", dlerror());
      return 0;
    }
    auto create = reinterpret_cast<decltype(&sarfuse_vkfft_conv_create)>(dlsym(lib, "sarfuse_vkfft_conv_create"));
    auto run = reinterpret_cast<decltype(&sarfuse_vkfft_conv_run)>(dlsym(lib, "sarfuse_vkfft_conv_run"));
    std::vector<std::complex<double>> hc(N);
    for (int k = 0; k < N; ++k) hc[k] = std::conj(std::complex<double>(h[k].x, h[k].y));
    const auto kt = dft(hc, +1);
    std::vector<float> kf(2 * N);
    for (int k = 0; k < N; ++k) {
      kf[2 * k] = static_cast<float>(kt[k].real());
      kf[2 * k + 1] = static_cast<float>(kt[k].imag());
    }
    char err[512] = {};
    void* plan = create(N, LINES, N, 0, kf.data(), nullptr, err, sizeof err);
    if (!plan) {
      std::printf("VkFFT: %s\n", err);
      return 0;
    }
    auto go = [&] {
      if (run(plan, dy, err, sizeof err) != 0) {
        std::printf("VkFFT: %s\n", err);
        std::exit(1);
      }
    };
    CK(cudaMemcpy(dy, dx, n * 8, cudaMemcpyDeviceToDevice));
    go();
    CK(cudaDeviceSynchronize());
    check("VkFFT convolution (in place)");
    CK(cudaMemcpy(dy, dx, n * 8, cudaMemcpyDeviceToDevice));
    bench.report("VkFFT convolution (in place)", bench.tm.median_ms(go));
  }
  return 0;
}
