// Experiment (issue 20, stop 56): fused range compression of 4096 lines of N = 2048, 4096 or 8192 points
// and 8192 lines of 16384 (-DRC_N), circular, with one block-wide exchange an FFT instead of two. The product kernel's FFT is
// Stockham radix-16 (32) passes whose exchanges each span the whole block (a thread reads positions
// tid + q T, written by every warp), so a line takes four block barriers. Here N = E x M (E points a
// thread, M = T threads) and M = R2 x S, the M-point DFTs on groups of S threads (8 or 16: inside a warp):
//   forward, n = M n1 + S m1 + m2, k = k1 + E ka + E R2 kb; thread t = S g + u
//     F1  thread t (= n2): DFT_E over n1 -> k1, x W_N^(n2 k1)          exchange A (block): [k1][n2]
//     F2  thread (g, u = m2), each k1 = g + (T / S) j of the group: DFT_R2 over m1 -> ka, x W_M^(m2 ka)
//                                                                       exchange B (S lanes): [j][ka][m2]
//     F3  thread (g, u), each j and ka = u + S i: DFT_S over m2 -> kb; holds X[k1 + E ka + E R2 kb]
//   x H (uploaded in that order), conj, then the same steps backwards (conj . forward . conj):
//     I1  DFT_S over kb -> m2, x W_M^(m2 ka)                             exchange B: thread (g, u = m2)
//     I2  DFT_R2 over ka -> m1, x W_N^((S m1 + m2) k1)                   exchange A: thread t = n2
//     I3  DFT_E over k1 -> n1; holds x[M n1 + t], stored in natural order
// Each inverse exchange writes the very positions its thread read in the forward one, so the buffers
// need no barrier between the two FFTs: two __syncthreads and two __syncwarp a line instead of four
// __syncthreads. The steps are SARFUSE_HD: `./rcwx host` runs the kernel's body on the host, one
// std::thread a GPU thread with std::barrier for the block's and the groups' synchronisation, and checks
// a line against a float64 FFT (no GPU needed; 4.1e-7 / 4.4e-7 / 5.2e-7 / 6.5e-7 at 2048 ... 16384).
// Variants beside the product kernel, every output checked against float64 after poisoning: stores
// st.global.cs (streaming); thread 0 asking L2 for the line `lead` blocks ahead (cp.async.bulk.prefetch.L2,
// one instruction, no registers held); three blocks of registers a SM; at 8192 exchange B one k1 at a time
// (half its shared memory, so two blocks a SM fit); B in S x S chunks (2048; at 16384 the only form that
// fits beside A's 128 KB, and there ptxas puts it at 124 registers, no spill, where the product spills 124 B).
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr -DRC_N=4096 \
//     scripts/experiments/rc_warp_exchange.cu -o rcwx && ./rcwx host && ./rcwx
// With the cuFFTDx kernel of the same fusion in the same process (its best configurations): add
//   -I .deps/mathdx-25.6.0/mathdx/include -I .deps/mathdx-25.6.0/mathdx/external/cutlass/include
//   -DSARFUSE_HAVE_CUFFTDX=1 -DSARFUSE_CUFFTDX_SM=900 src/bench/cufftdx_range.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <barrier>
#include <memory>
#include <thread>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <vector>

#if SARFUSE_HAVE_CUFFTDX
#include "bench/cufftdx_range.hpp"
#endif
#include "cuda/range_pass_kernels.cuh"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;
using fft::C32;

namespace wx {

#ifndef RC_N
#define RC_N 4096  // 2048, 4096, 8192 or 16384: -DRC_N=...
#endif
// The product's points a thread (fused_elems) and group width: E = 16 (32 at 8192) points a thread,
// T = N / E threads; groups of S lanes take the M = T point DFTs, M = R2 x S.
constexpr int N = RC_N, LINES = N == 16384 ? 8192 : 4096;  // the bench's lines at each size
constexpr int E = N >= 8192 ? 32 : 16, T = N / E, M = T, S = N == 2048 ? 8 : 16, R2 = M / S;
constexpr int Kg = E * S / T;  // k1 a group: k1 = g + (T / S) j, j < Kg
constexpr int Ka = R2 / S;     // ka a lane in F3: ka = u + S i, i < Ka
constexpr int kMinBlocks = E == 32 ? 1 : T >= 256 ? 2 : 4;  // the product's (fused_min_blocks)
// JB, the row blocks of exchange B a group holds: Kg (one a j) or kChunked (one S x S block, the (j, i)
// chunks in turn: half the shared memory at 8192, the only form that fits beside A at 16384).
constexpr int kChunked = 0;
constexpr int kDefaultJB = N == 16384 ? kChunked : Kg;
static_assert(Kg * R2 == E && Ka * S == R2 && Ka >= 1 && Kg >= 1);
// Exchange A: [k1][n2], rows padded by 8 slots where a group's S lanes cover less than 128 bytes, so the
// groups of a warp fall on different banks.
constexpr int kApitch = M + (S < 16 ? 8 : 0);
// Exchange B of group g: [j][ka][m2] (or one S x S chunk), rows of S + 1 slots; the group's region
// rounded to 8 mod 16 slots when S = 8 (two groups then share the 16 eight-byte banks).
template <int JB>
constexpr int b_pitch() {
  constexpr int raw = (JB == kChunked ? S : JB * R2) * (S + 1);
  return S < 16 ? raw + ((8 - raw % 16) + 16) % 16 : raw;
}
template <int JB>
constexpr int smem_slots() { return E * kApitch + (T / S) * b_pitch<JB>(); }

SARFUSE_HD inline C32 ld(const float2* p) {
#ifdef __CUDA_ARCH__
  const float2 a = __ldg(p);
#else
  const float2 a = *p;
#endif
  return {a.x, a.y};
}

// v[r] *= w0 s^r, r < L (w0 = 1 when `first_is_one`): one power live at a time.
template <int L>
SARFUSE_HD inline void chain_mul(C32* v, C32 w0, C32 s, bool first_is_one) {
  C32 w = w0;
  if (!first_is_one) v[0] = v[0] * w;
#pragma unroll
  for (int r = 1; r < L; ++r) {
    w = first_is_one && r == 1 ? s : w * s;
    v[r] = v[r] * w;
  }
}

SARFUSE_HD inline int k1_of(int g, int j) { return g + (T / S) * j; }
SARFUSE_HD inline int a_pos(int k1, int n2) { return k1 * kApitch + n2; }
template <int JB>
SARFUSE_HD inline int b_pos(int g, int j, int ka, int m2) {
  static_assert(JB != kChunked, "chunked B: b_chunk_pos");
  return E * kApitch + g * b_pitch<JB>() + (j * R2 + ka) * (S + 1) + m2;
}
SARFUSE_HD inline int b_chunk_pos(int g, int row, int col) { return E * kApitch + g * b_pitch<kChunked>() + row * (S + 1) + col; }

// F1: DFT_E over n1, x W_N^(t k1); written to A.
SARFUSE_HD inline void f1(C32 (&v)[E], int t, const float2* tw, C32* s) {
  fft::dft<E>(v);
  chain_mul<E>(v, C32{1.f, 0.f}, ld(tw + t), true);
#pragma unroll
  for (int q = 0; q < E; ++q) s[a_pos(q, t)] = v[q];
}
// F2 of k1 = k1_of(g, j): thread (g, u = m2): A -> DFT_R2 over m1, x W_M^(u ka); written to B.
template <int JB>
SARFUSE_HD inline void f2(C32 (&v)[E], int j, int g, int u, const float2* tw, C32* s) {
  C32* b = v + j * R2;
#pragma unroll
  for (int m1 = 0; m1 < R2; ++m1) b[m1] = s[a_pos(k1_of(g, j), S * m1 + u)];
  fft::dft<R2>(b);
  chain_mul<R2>(b, C32{1.f, 0.f}, ld(tw + E * u), true);
#pragma unroll
  for (int ka = 0; ka < R2; ++ka) s[b_pos<JB>(g, j, ka, u)] = b[ka];
}
// F3 of j: thread (g, u): B -> DFT_S over m2 for each ka = u + S i; holds X[k1 + E ka + E R2 kb] at
// v[j R2 + i S + kb].
template <int JB>
SARFUSE_HD inline void f3(C32 (&v)[E], int j, int g, int u, const C32* s) {
#pragma unroll
  for (int i = 0; i < Ka; ++i) {
    C32* b = v + j * R2 + i * S;
#pragma unroll
    for (int m2 = 0; m2 < S; ++m2) b[m2] = s[b_pos<JB>(g, j, u + S * i, m2)];
    fft::dft<S>(b);
  }
}
// x Hp (H in F3's order, Hp[q T + t]), conj.
SARFUSE_HD inline void filter_conj(C32 (&v)[E], int t, const float2* hp) {
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q] * ld(hp + q * T + t));
}
// I1 of j: DFT_S over kb -> m2, x W_M^(m2 ka); written to B where this thread read in F3.
template <int JB>
SARFUSE_HD inline void i1(C32 (&v)[E], int j, int g, int u, const float2* tw, C32* s) {
#pragma unroll
  for (int i = 0; i < Ka; ++i) {
    C32* b = v + j * R2 + i * S;
    fft::dft<S>(b);
    chain_mul<S>(b, C32{1.f, 0.f}, ld(tw + E * (u + S * i)), true);
#pragma unroll
    for (int m2 = 0; m2 < S; ++m2) s[b_pos<JB>(g, j, u + S * i, m2)] = b[m2];
  }
}
// I2 of j: thread (g, u = m2): B -> DFT_R2 over ka -> m1, x W_N^((S m1 + u) k1); written to A where
// this thread read in F2.
template <int JB>
SARFUSE_HD inline void i2(C32 (&v)[E], int j, int g, int u, const float2* tw, C32* s) {
  C32* b = v + j * R2;
#pragma unroll
  for (int ka = 0; ka < R2; ++ka) b[ka] = s[b_pos<JB>(g, j, ka, u)];
  const int k1 = k1_of(g, j);
  fft::dft<R2>(b);
  chain_mul<R2>(b, ld(tw + u * k1), ld(tw + S * k1), false);
#pragma unroll
  for (int m1 = 0; m1 < R2; ++m1) s[a_pos(k1, S * m1 + u)] = b[m1];
}
// I3: thread t: A -> DFT_E over k1 -> n1; holds conj(x[M n1 + t]).
SARFUSE_HD inline void i3(C32 (&v)[E], int t, const C32* s) {
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = s[a_pos(q, t)];
  fft::dft<E>(v);
}

// Exchange B one S x S chunk at a time: forward, F2 of j, then for each i the rows ka = S i + r (r < S)
// written by column (thread u = m2), read by row (thread u = r, its ka = u + S i), F3 on it; inverse, for
// each i I1 writes its row, every thread reads column u (m2 = u) into b[S i + r], then I2 of j.
template <class Sync>
SARFUSE_HD inline void forward_chunked(C32 (&v)[E], int j, int g, int u, const float2* tw, C32* s, Sync warp_sync) {
  C32* b = v + j * R2;
#pragma unroll
  for (int m1 = 0; m1 < R2; ++m1) b[m1] = s[a_pos(k1_of(g, j), S * m1 + u)];
  fft::dft<R2>(b);
  chain_mul<R2>(b, C32{1.f, 0.f}, ld(tw + E * u), true);
  C32 c[R2];  // F2's outputs, while b's slots take F3's
#pragma unroll
  for (int ka = 0; ka < R2; ++ka) c[ka] = b[ka];
#pragma unroll
  for (int i = 0; i < Ka; ++i) {
    if (i > 0 || j > 0) warp_sync();  // the group's reads of the chunk before are done
#pragma unroll
    for (int r = 0; r < S; ++r) s[b_chunk_pos(g, r, u)] = c[S * i + r];
    warp_sync();
#pragma unroll
    for (int m2 = 0; m2 < S; ++m2) b[i * S + m2] = s[b_chunk_pos(g, u, m2)];
    fft::dft<S>(b + i * S);
  }
}
template <class Sync>
SARFUSE_HD inline void inverse_chunked(C32 (&v)[E], int j, int g, int u, const float2* tw, C32* s, Sync warp_sync) {
  C32* b = v + j * R2;
  C32 c[R2];  // I1's outputs gathered by column
#pragma unroll
  for (int i = 0; i < Ka; ++i) {
    C32* d = b + i * S;
    fft::dft<S>(d);
    chain_mul<S>(d, C32{1.f, 0.f}, ld(tw + E * (u + S * i)), true);
    warp_sync();  // the group's reads of the chunk before (or F3's of the last) are done
#pragma unroll
    for (int m2 = 0; m2 < S; ++m2) s[b_chunk_pos(g, u, m2)] = d[m2];
    warp_sync();
#pragma unroll
    for (int r = 0; r < S; ++r) c[S * i + r] = s[b_chunk_pos(g, r, u)];
  }
  const int k1 = k1_of(g, j);
  fft::dft<R2>(c);
  chain_mul<R2>(c, ld(tw + u * k1), ld(tw + S * k1), false);
#pragma unroll
  for (int m1 = 0; m1 < R2; ++m1) s[a_pos(k1, S * m1 + u)] = c[m1];
}

// Everything between the two block barriers for one thread (g, u); `warp_sync` between the writes and
// reads of B.
template <int JB, class Sync>
SARFUSE_HD inline void forward_b(C32 (&v)[E], int g, int u, const float2* tw, C32* s, Sync warp_sync) {
  if constexpr (JB == kChunked) {
#pragma unroll
    for (int j = 0; j < Kg; ++j) forward_chunked(v, j, g, u, tw, s, warp_sync);
  } else {
#pragma unroll
    for (int j = 0; j < Kg; ++j) f2<JB>(v, j, g, u, tw, s);
    warp_sync();
#pragma unroll
    for (int j = 0; j < Kg; ++j) f3<JB>(v, j, g, u, s);
  }
}
template <int JB, class Sync>
SARFUSE_HD inline void inverse_b(C32 (&v)[E], int g, int u, const float2* tw, C32* s, Sync warp_sync) {
  if constexpr (JB == kChunked) {
#pragma unroll
    for (int j = 0; j < Kg; ++j) inverse_chunked(v, j, g, u, tw, s, warp_sync);
  } else {
#pragma unroll
    for (int j = 0; j < Kg; ++j) i1<JB>(v, j, g, u, tw, s);
    warp_sync();
#pragma unroll
    for (int j = 0; j < Kg; ++j) i2<JB>(v, j, g, u, tw, s);
  }
}

// A line's compute between its load and its store, thread t: the kernel's body, which the host runs
// too, one std::thread a GPU thread (block_sync / warp_sync: __syncthreads / __syncwarp there).
template <int JB, class BlockSync, class WarpSync>
SARFUSE_HD inline void line_body(C32 (&v)[E], int t, const float2* hp, const float2* tw, C32* s, BlockSync block_sync,
                                 WarpSync warp_sync) {
  const int g = t / S, u = t % S;
  f1(v, t, tw, s);
  block_sync();
  forward_b<JB>(v, g, u, tw, s, warp_sync);
  filter_conj(v, t, hp);
  inverse_b<JB>(v, g, u, tw, s, warp_sync);
  block_sync();
  i3(v, t, s);
}

}  // namespace wx

// The fused line: load, forward, x H (in F3's order), inverse, store. JB: B's row blocks (Kg or kChunked).
template <bool Streaming, bool Prefetch, int MinBlocks = wx::kMinBlocks, int JB = wx::kDefaultJB>
__global__ void __launch_bounds__(wx::T, MinBlocks)
    rc_warp_exchange(const float2* __restrict__ raw, const float2* __restrict__ hp, const float2* __restrict__ tw,
                     float2* __restrict__ out, int lead) {
  using namespace wx;
  extern __shared__ __align__(32) C32 smem[];
  const int t = threadIdx.x, line = blockIdx.x;
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
  line_body<JB>(v, t, hp, tw, smem, [] { __syncthreads(); }, [] { __syncwarp(); });
  float2* dst = out + static_cast<std::size_t>(line) * N + t;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const float2 y = make_float2(v[q].re, -v[q].im);
    if constexpr (Streaming) __stcs(dst + q * T, y);
    else dst[q * T] = y;
  }
}

// H in F3's order: Hp[q T + t] = H[k1 + E ka + E R2 kb], q = j R2 + i S + kb.
std::vector<float2> permuted_filter(const std::vector<float2>& h) {
  using namespace wx;
  std::vector<float2> p(N);
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < Kg; ++j)
      for (int i = 0; i < Ka; ++i)
        for (int kb = 0; kb < S; ++kb)
          p[(j * R2 + i * S + kb) * T + t] = h[k1_of(t / S, j) + E * (t % S + S * i) + E * R2 * kb];
  return p;
}

// The kernel's body on the host: one std::thread a GPU thread, std::barrier for the block's and each
// group's synchronisation, shared memory poisoned with NaN. One line.
template <int JB>
std::vector<float2> host_line(const float2* x, const std::vector<float2>& hp, const std::vector<float2>& tw) {
  using namespace wx;
  std::vector<C32> s(smem_slots<JB>(), C32{NAN, NAN});
  std::vector<float2> y(N);
  std::barrier block(T);
  std::vector<std::unique_ptr<std::barrier<>>> groups;
  for (int g = 0; g < T / S; ++g) groups.push_back(std::make_unique<std::barrier<>>(S));
  std::vector<std::thread> threads;
  for (int t = 0; t < T; ++t)
    threads.emplace_back([&, t] {
      C32 v[E];
      for (int q = 0; q < E; ++q) v[q] = {x[t + q * T].x, x[t + q * T].y};
      line_body<JB>(v, t, hp.data(), tw.data(), s.data(), [&] { block.arrive_and_wait(); },
                    [&] { groups[t / S]->arrive_and_wait(); });
      for (int q = 0; q < E; ++q) y[t + q * T] = make_float2(v[q].re, -v[q].im);
    });
  for (std::thread& th : threads) th.join();
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
    bool ok = true;
    auto check = [&](const char* name, const std::vector<float2>& y) {
      double e2 = 0, r2 = 0;
      for (int k = 0; k < N; ++k) {
        e2 += std::norm(std::complex<double>(y[k].x, y[k].y) - a[k]);
        r2 += std::norm(a[k]);
      }
      const double e = std::sqrt(e2 / r2);
      ok &= e < 1e-5;
      std::printf("N = %d, %s: host steps vs float64, relative L2 %.3e%s\n", N, name, e, e < 1e-5 ? "" : "  ** WRONG **");
    };
    check("B a block per j", host_line<wx::Kg>(x.data(), permuted_filter(h), tw));
    check("B in S x S chunks", host_line<wx::kChunked>(x.data(), permuted_filter(h), tw));
    return ok ? 0 : 1;
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
  auto variant = [&]<bool Streaming, bool Prefetch, int MinBlocks = wx::kMinBlocks, int JB = wx::kDefaultJB>(const char* name,
                                                                                                    int lead) {
    const int smem = wx::smem_slots<JB>() * 8;
    const auto kernel = &rc_warp_exchange<Streaming, Prefetch, MinBlocks, JB>;
    measure_kernel(bench, rc, reinterpret_cast<const void*>(kernel), smem, wx::T, wx::LINES, false, name,
                   [&](unsigned gr) { kernel<<<gr, wx::T, smem>>>(dx, dhp, dtw, dy, lead); });
  };
  for (int round = 0; round < 2; ++round) {
    std::printf("-- round %d\n", round);
    product();
    variant.template operator()<false, false>("warp exchange", 0);
    variant.template operator()<true, false>("warp exchange, streaming stores", 0);
    if constexpr (wx::kMinBlocks == 2) variant.template operator()<false, false, 3>("warp exchange, 3 blocks of registers", 0);
    if constexpr (N == 8192) {  // B one k1 at a time (half its shared memory), at one and two blocks a SM
      variant.template operator()<false, false, 1, wx::kChunked>("warp exchange, B in chunks", 0);
      variant.template operator()<false, false, 2, wx::kChunked>("warp exchange, B in chunks, 2 blocks of registers", 0);
    }
    if constexpr (N == 2048) variant.template operator()<false, false, 4, wx::kChunked>("warp exchange, B in chunks", 0);
    for (int lead : {8, 32, 132, 264}) {
      char name[80];
      std::snprintf(name, sizeof name, "warp exchange, L2 bulk prefetch %d blocks ahead", lead);
      variant.template operator()<false, true>(name, lead);
    }
#if SARFUSE_HAVE_CUFFTDX
    for (const bench::CufftdxRange& c : bench::cufftdx_range_configs(N))
      measure_run(bench, rc, "cuFFTDx " + c.config, [&] { c.run(dx, dy, dh, wx::LINES, nullptr); });
#endif
  }
  return 0;
}
