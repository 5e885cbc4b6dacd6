// Experiment (issue 20): fused range compression of 4096 lines of 4096 points, circular, with one
// block-wide exchange an FFT instead of two. The product kernel's FFT is three Stockham radix-16 passes
// whose two exchanges each span the whole block (a thread reads positions tid + q 256, written by every
// warp), so a line takes four block barriers. Here 4096 = 16 x 256 and 256 = 16 x 16, the second
// factor's DFTs on groups of 16 threads (half a warp):
//   forward, n = 256 n1 + 16 m1 + m2, k = k1 + 16 ka + 256 kb; thread t = 16 g + u
//     F1  thread t (= n2): DFT16 over n1 -> k1, x W4096^(n2 k1)    exchange A (block): [k1][n2]
//     F2  thread (g = k1, u = m2): DFT16 over m1 -> ka, x W256^(m2 ka)   exchange B (16 threads): [ka][m2]
//     F3  thread (g = k1, u = ka): DFT16 over m2 -> kb; holds X[g + 16 u + 256 kb]
//   x H (stored in that order), conj, then the same steps backwards (conj . forward . conj):
//     I1  DFT16 over kb -> m2, x W256^(m2 ka)                    exchange B: thread (g, u = m2)
//     I2  DFT16 over ka -> m1, x W4096^((16 m1 + m2) k1)         exchange A: thread t = n2
//     I3  DFT16 over k1 -> n1; holds x[256 n1 + t], stored in natural order
// Each inverse exchange writes the very positions its thread read in the forward one, so the buffers
// need no barrier between the two FFTs: two __syncthreads and two __syncwarp a line instead of four
// __syncthreads. The steps are SARFUSE_HD: the host runs them thread by thread, phase by phase, and
// checks them against a float64 FFT before any GPU time is spent.
// Variants: stores st.global.cs (streaming); thread 0 asking L2 for the line `lead` blocks ahead
// (cp.async.bulk.prefetch.L2, one instruction, no registers held).
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr \
//     scripts/experiments/rc_warp_exchange.cu -o rcwx && ./rcwx [host]
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda/range_pass_kernels.cuh"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;
using fft::C32;

namespace wx {

constexpr int N = 4096, E = 16, T = 256, LINES = 4096;
constexpr int kGroupSlots = 16 * 17;  // exchange B of one group, rows padded to 17: conflict-free both ways
constexpr int kSmemSlots = N + 16 * kGroupSlots;

SARFUSE_HD inline C32 ld(const float2* p) {
#ifdef __CUDA_ARCH__
  const float2 a = __ldg(p);
#else
  const float2 a = *p;
#endif
  return {a.x, a.y};
}

// v[r] *= w0 s^r for r = 0..15 (w0 = 1 when `first_is_one`): one power live at a time.
SARFUSE_HD inline void chain_mul(C32 (&v)[E], C32 w0, C32 s, bool first_is_one) {
  C32 w = w0;
  if (!first_is_one) v[0] = v[0] * w;
#pragma unroll
  for (int r = 1; r < E; ++r) {
    w = first_is_one && r == 1 ? s : w * s;
    v[r] = v[r] * w;
  }
}

// F1 (and I3 without the twiddles): DFT16 over the registers, then x W4096^(t r).
SARFUSE_HD inline void step_f1(C32 (&v)[E], int t, const float2* tw) {
  fft::dft<16>(v);
  chain_mul(v, C32{1.f, 0.f}, ld(tw + t), true);
}
// F2 / I1: DFT16, then x W256^(u r) = W4096^(16 u r).
SARFUSE_HD inline void step_16(C32 (&v)[E], int u, const float2* tw) {
  fft::dft<16>(v);
  chain_mul(v, C32{1.f, 0.f}, ld(tw + 16 * u), true);
}
// I2: DFT16 over ka -> m1, then x W4096^((16 m1 + u) g).
SARFUSE_HD inline void step_i2(C32 (&v)[E], int g, int u, const float2* tw) {
  fft::dft<16>(v);
  chain_mul(v, ld(tw + u * g), ld(tw + 16 * g), false);
}

// Exchange A: [k1][n2] at k1 256 + n2.
SARFUSE_HD inline int a_by_t(int t, int k1) { return k1 * 256 + t; }
SARFUSE_HD inline int a_by_group(int g, int u, int m1) { return g * 256 + 16 * m1 + u; }
// Exchange B of group g: [row][col] at g 272 + row 17 + col (forward: row ka, col m2).
SARFUSE_HD inline int b_row(int g, int row, int col) { return N + g * kGroupSlots + row * 17 + col; }

}  // namespace wx

// The fused line: load, forward, x H (in X[g + 16 u + 256 kb] order: Hp[kb 256 + t]), inverse, store.
template <bool Streaming, bool Prefetch, int MinBlocks = 2>
__global__ void __launch_bounds__(wx::T, MinBlocks)
    rc_warp_exchange(const float2* __restrict__ raw, const float2* __restrict__ hp, const float2* __restrict__ tw,
                     float2* __restrict__ out, int lead) {
  using namespace wx;
  extern __shared__ __align__(32) C32 smem[];
  const int t = threadIdx.x, g = t / 16, u = t % 16, line = blockIdx.x;
  const float2* src = raw + static_cast<std::size_t>(line) * N + t;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = ld(src + q * T);
  if constexpr (Prefetch) {
    if (t == 0 && line + lead < LINES)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(raw + static_cast<std::size_t>(line + lead) * N),
                   "r"(N * 8)
                   : "memory");
  }
  step_f1(v, t, tw);
#pragma unroll
  for (int q = 0; q < E; ++q) smem[a_by_t(t, q)] = v[q];
  __syncthreads();
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = smem[a_by_group(g, u, q)];
  step_16(v, u, tw);
#pragma unroll
  for (int q = 0; q < E; ++q) smem[b_row(g, q, u)] = v[q];
  __syncwarp();
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = smem[b_row(g, u, q)];
  fft::dft<16>(v);
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q] * ld(hp + q * T + t));
  step_16(v, u, tw);
#pragma unroll
  for (int q = 0; q < E; ++q) smem[b_row(g, u, q)] = v[q];
  __syncwarp();
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = smem[b_row(g, q, u)];
  step_i2(v, g, u, tw);
#pragma unroll
  for (int q = 0; q < E; ++q) smem[a_by_group(g, u, q)] = v[q];
  __syncthreads();
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = smem[a_by_t(t, q)];
  fft::dft<16>(v);
  float2* dst = out + static_cast<std::size_t>(line) * N + t;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const float2 y = make_float2(v[q].re, -v[q].im);
    if constexpr (Streaming) __stcs(dst + q * T, y);
    else dst[q * T] = y;
  }
}

// H in the order the forward FFT leaves the spectrum: Hp[kb 256 + t] = H[g + 16 u + 256 kb].
std::vector<float2> permuted_filter(const std::vector<float2>& h) {
  std::vector<float2> p(wx::N);
  for (int t = 0; t < wx::T; ++t)
    for (int kb = 0; kb < 16; ++kb) p[kb * 256 + t] = h[t / 16 + 16 * (t % 16) + 256 * kb];
  return p;
}

// The kernel's steps on the host, every thread of a phase before the next phase: one line.
std::vector<float2> host_line(const float2* x, const std::vector<float2>& hp, const std::vector<float2>& tw) {
  using namespace wx;
  std::vector<C32> s(kSmemSlots);
  std::vector<std::array<C32, E>> regs(T);
  auto each = [&](auto&& f) {
    for (int t = 0; t < T; ++t) {
      C32 v[E];
      std::copy(regs[t].begin(), regs[t].end(), v);
      f(v, t, t / 16, t % 16);
      std::copy(v, v + E, regs[t].begin());
    }
  };
  each([&](C32(&v)[E], int t, int, int) {
    for (int q = 0; q < E; ++q) v[q] = {x[t + q * T].x, x[t + q * T].y};
    step_f1(v, t, tw.data());
    for (int q = 0; q < E; ++q) s[a_by_t(t, q)] = v[q];
  });
  each([&](C32(&v)[E], int, int g, int u) {
    for (int q = 0; q < E; ++q) v[q] = s[a_by_group(g, u, q)];
    step_16(v, u, tw.data());
    for (int q = 0; q < E; ++q) s[b_row(g, q, u)] = v[q];
  });
  each([&](C32(&v)[E], int t, int g, int u) {
    for (int q = 0; q < E; ++q) v[q] = s[b_row(g, u, q)];
    fft::dft<16>(v);
    for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q] * ld(hp.data() + q * T + t));
    step_16(v, u, tw.data());
    for (int q = 0; q < E; ++q) s[b_row(g, u, q)] = v[q];
  });
  each([&](C32(&v)[E], int, int g, int u) {
    for (int q = 0; q < E; ++q) v[q] = s[b_row(g, q, u)];
    step_i2(v, g, u, tw.data());
    for (int q = 0; q < E; ++q) s[a_by_group(g, u, q)] = v[q];
  });
  std::vector<float2> y(N);
  each([&](C32(&v)[E], int t, int, int) {
    for (int q = 0; q < E; ++q) v[q] = s[a_by_t(t, q)];
    fft::dft<16>(v);
    for (int q = 0; q < E; ++q) y[t + q * T] = make_float2(v[q].re, -v[q].im);
  });
  return y;
}

int main(int argc, char** argv) {
  using wx::N;
  const bool host_only = argc > 1 && std::strcmp(argv[1], "host") == 0;
  if (host_only) {  // no GPU: the steps on the host against float64
    std::vector<float2> x(N), h(N), tw(N);
    std::mt19937 rng(7);
    std::normal_distribution<float> gauss;
    for (auto& v : x) v = make_float2(gauss(rng), gauss(rng));
    for (auto& v : h) v = make_float2(gauss(rng) / N, gauss(rng) / N);
    for (int k = 0; k < N; ++k) tw[k] = make_float2(std::cos(-2 * M_PI * k / N), std::sin(-2 * M_PI * k / N));
    std::vector<std::complex<double>> a(N);
    for (int k = 0; k < N; ++k) a[k] = {x[k].x, x[k].y};
    fft_host(a, false);
    for (int k = 0; k < N; ++k) a[k] *= std::complex<double>(h[k].x, h[k].y);
    fft_host(a, true);
    const std::vector<float2> y = host_line(x.data(), permuted_filter(h), tw);
    double e2 = 0, r2 = 0;
    for (int k = 0; k < N; ++k) {
      e2 += std::norm(std::complex<double>(y[k].x, y[k].y) - a[k]);
      r2 += std::norm(a[k]);
    }
    std::printf("host steps vs float64: relative L2 %.3e%s\n", std::sqrt(e2 / r2), std::sqrt(e2 / r2) < 1e-5 ? "" : "  ** WRONG **");
    return std::sqrt(e2 / r2) < 1e-5 ? 0 : 1;
  }
  RangeCase rc(wx::LINES, N);
  rc.set_checked_lines({0, 1, 777, 2048, wx::LINES - 1}, [](auto& a, bool inv) { fft_host(a, inv); });
  Bench bench(rc.dy, rc.dx, rc.size * 8);
  float2 *dx = rc.dx, *dy = rc.dy, *dh = rc.dh, *dtw = rc.dtw, *dhp = nullptr;
  const std::vector<float2> hp = permuted_filter(rc.h);
  CK(cudaMalloc(&dhp, N * 8));
  CK(cudaMemcpy(dhp, hp.data(), N * 8, cudaMemcpyHostToDevice));
  auto product = [&] {
    using Shape = FusedShape<N, true>;
    const int smem = FusedSlot<N, true>::smem_bytes;
    measure_kernel(bench, rc, reinterpret_cast<const void*>(&range_compress_kernel<N, SampleType::complex64, true>), smem,
                   Shape::threads * Shape::lines, wx::LINES, false, "product (whole lines)", [&](unsigned gr) {
                     range_compress_kernel<N, SampleType::complex64, true>
                         <<<gr / Shape::lines, dim3(Shape::threads, Shape::lines), smem>>>(dx, wx::LINES, N, dh, dtw, dy, N, N);
                   });
  };
  const int smem = wx::kSmemSlots * 8;
  auto variant = [&]<bool Streaming, bool Prefetch, int MinBlocks = 2>(const char* name, int lead) {
    const auto kernel = &rc_warp_exchange<Streaming, Prefetch, MinBlocks>;
    measure_kernel(bench, rc, reinterpret_cast<const void*>(kernel), smem, wx::T, wx::LINES, false, name,
                   [&](unsigned gr) { kernel<<<gr, wx::T, smem>>>(dx, dhp, dtw, dy, lead); });
  };
  for (int round = 0; round < 2; ++round) {
    std::printf("-- round %d\n", round);
    product();
    variant.template operator()<false, false>("warp exchange", 0);
    variant.template operator()<true, false>("warp exchange, streaming stores", 0);
    variant.template operator()<false, false, 3>("warp exchange, 3 blocks of registers", 0);
    for (int lead : {8, 32, 132, 264}) {
      char name[80];
      std::snprintf(name, sizeof name, "warp exchange, L2 bulk prefetch %d blocks ahead", lead);
      variant.template operator()<false, true>(name, lead);
    }
  }
  return 0;
}
