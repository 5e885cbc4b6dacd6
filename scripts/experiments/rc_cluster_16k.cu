// Experiment (issue 20): fused range compression of 8192 lines of 16384 points, circular, each line on a
// cluster of two CTAs, so that each CTA holds 8192 points (the size whose fused kernel is 1.2x cuFFTDx)
// instead of one CTA holding 16384 at 512 threads x 32 points (spilling at the 128-register cap).
//   load:    CTA c reads x[n] and x[n + 8192] for its quarter n in [4096 c, 4096 c + 4096), and makes the
//            radix-2 DIF pair a[n] = x[n] + x[n + 8192], b[n] = (x[n] - x[n + 8192]) W16384^n;
//   swap 1:  CTA 0 keeps a and gets CTA 1's a, CTA 1 keeps b and gets CTA 0's b (distributed shared
//            memory, thread tid to thread tid: 32 KB each way);
//   CTA c:   FFT8192 -> X[2k + c], x H[2k + c], inverse FFT8192 (conj . FFT . conj) -> A'[n] (c = 0), B'[n];
//   swap 2:  CTA 0 gets B' of its quarter, CTA 1 gets A' of its quarter;
//   store:   y[n] = A'[n] + W16384^-n B'[n], y[n + 8192] = A'[n] - W16384^-n B'[n] for the CTA's quarter.
// Against the product kernel and the cuFFTDx kernel of the same fusion, in one process; outputs checked
// against a float64 FFT. Built here (no GPU needed), run on the GPU machine:
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src -I .deps/mathdx-25.6.0/mathdx/include \
//     -I .deps/mathdx-25.6.0/mathdx/external/cutlass/include --expt-relaxed-constexpr \
//     -DSARFUSE_HAVE_CUFFTDX=1 -DSARFUSE_CUFFTDX_SM=900 scripts/experiments/rc_cluster_16k.cu \
//     src/bench/cufftdx_range.cu -o rc_cluster_16k
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#if SARFUSE_HAVE_CUFFTDX
#include "bench/cufftdx_range.hpp"
#endif
#include "cuda/range_pass_kernels.cuh"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;
using fft::C32;
namespace cg = cooperative_groups;

constexpr int N = 16384, H = N / 2, LINES = 8192;

__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// E: points a thread of the inner 8192-point FFT; Buffers: its exchange buffers.
template <int E, int Buffers>
struct ClusterShape {
  static constexpr int T = H / E, Q = E / 2;  // threads; a CTA's quarter is q in [c Q, c Q + Q)
  using X1 = fft::Exchange<Buffers>;
  using X2 = typename X1::template Next<fft::pass_count(H, E)>;
  static constexpr int x_slots = Buffers * fft::smem_size(H), swap_slots = Q * T;
  static constexpr int smem_bytes = (x_slots + 2 * swap_slots) * 8;
};

// filter2: H[2k + c] at c H + k (the filter's even and odd bins apart; it carries 1/N);
// tw16: exp(-2 pi i k / 16384), k < 8192; tw8: exp(-2 pi i k / 8192).
template <int E, int Buffers, int MinBlocks>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(H / E, MinBlocks)
    rc_cluster(const float2* __restrict__ raw, const float2* __restrict__ filter2, const float2* __restrict__ tw16,
               const float2* __restrict__ tw8, float2* __restrict__ out) {
  using S = ClusterShape<E, Buffers>;
  constexpr int T = S::T, Q = S::Q;
  extern __shared__ __align__(128) C32 smem[];
  C32* x = smem;
  C32* swap1 = smem + S::x_slots;
  C32* swap2 = swap1 + S::swap_slots;
  cg::cluster_group cluster = cg::this_cluster();
  const int c = static_cast<int>(cluster.block_rank());
  const int line = static_cast<int>(blockIdx.x) / 2;
  const int tid = threadIdx.x;
  const float2* in = raw + static_cast<std::size_t>(line) * N + tid + c * Q * T;
  C32 lo[Q], hi[Q];
#pragma unroll
  for (int j = 0; j < Q; ++j) {
    lo[j] = fft::to_c32(in[j * T]);
    hi[j] = fft::to_c32(in[j * T + H]);
  }
  C32 v[E];
#pragma unroll
  for (int j = 0; j < Q; ++j) {
    const C32 a = lo[j] + hi[j];
    const C32 b = (lo[j] - hi[j]) * fft::to_c32(__ldg(tw16 + tid + (c * Q + j) * T));
    // CTA 0 keeps a (its q = j) and sends b; CTA 1 keeps b (its q = Q + j) and sends a.
    swap1[tid + j * T] = c == 0 ? b : a;
    v[j] = a;      // CTA 0's own; CTA 1 overwrites it with what CTA 0 sends
    v[Q + j] = b;  // CTA 1's own; CTA 0 overwrites it
  }
  cluster.sync();
  {
    const C32* peer = cluster.map_shared_rank(swap1, c ^ 1);
#pragma unroll
    for (int j = 0; j < Q; ++j) {
      const C32 r = peer[tid + j * T];
      if (c == 0) v[Q + j] = r;
      else v[j] = r;
    }
  }
  steps::Fp32Butterflies::forward<H, E, typename S::X1>(v, x, tw8, tid);
  const float2* h = filter2 + c * H + tid;
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q] * fft::to_c32(__ldg(h + q * T)));
  steps::Fp32Butterflies::forward<H, E, typename S::X2>(v, x, tw8, tid);
  // v = conj(A') (c = 0) or conj(B'). CTA 0 sends A' of q >= Q, CTA 1 sends B' of q < Q.
#pragma unroll
  for (int j = 0; j < Q; ++j) swap2[tid + j * T] = c == 0 ? v[Q + j] : v[j];
  cluster.sync();
  C32 other[Q];
  {
    const C32* peer = cluster.map_shared_rank(swap2, c ^ 1);
#pragma unroll
    for (int j = 0; j < Q; ++j) other[j] = peer[tid + j * T];
  }
  cluster_arrive();  // this CTA has read its peer's shared memory
  float2* dst = out + static_cast<std::size_t>(line) * N + tid + c * Q * T;
#pragma unroll
  for (int j = 0; j < Q; ++j) {
    const C32 a = fft::conj(c == 0 ? v[j] : other[j]);
    const C32 b = fft::conj(c == 0 ? other[j] : v[Q + j]);
    const C32 wb = b * fft::conj(fft::to_c32(__ldg(tw16 + tid + (c * Q + j) * T)));
    dst[j * T] = fft::to_float2(a + wb);
    dst[j * T + H] = fft::to_float2(a - wb);
  }
  cluster_wait();  // its peer has read this CTA's shared memory: it may go
}


// The same with a cluster of R = 2, 4 or 8 CTAs a line, each an M = N / R point FFT of E points a thread
// (T = M / E threads): CTA c makes the radix-R DIF outputs y_p[n] = W_N^(n p) sum_m x[n + M m] W_R^(m p)
// of its share of n (q in [c Q, c Q + Q), Q = E / R), puts all R in its outbox (y_p at p M / R), and takes
// y_c of every share from the outboxes (its own included); after its FFT, x H[R k + c] and inverse FFT
// it puts conj(Y'_c) in the outbox, and each CTA combines, for its share of n, out[n + M m] = sum_p
// W_N^(-n p) W_R^(-p m) Y'_p[n]. One outbox: a CTA writes it again only once every peer has read it.
template <int R, int E, int MinBlocks>
struct RShape {
  static constexpr int M = N / R, T = M / E, Q = E / R;
  static constexpr int x_slots = fft::smem_size(M), box_slots = M;
  static constexpr int smem_bytes = (x_slots + box_slots) * 8;
};

// y[p] *= w^p, p = 1..R-1 (w = W_N^n from the table; its powers one product after another).
template <int R>
__device__ __forceinline__ void times_powers(C32 (&y)[R], C32 w) {
  C32 wp = w;
#pragma unroll
  for (int p = 1; p < R; ++p) {
    y[p] = y[p] * wp;
    if (p + 1 < R) wp = wp * w;
  }
}

template <int R, int E, int MinBlocks>
__global__ void __launch_bounds__(N / R / E, MinBlocks)
    rc_cluster_r(const float2* __restrict__ raw, const float2* __restrict__ filter_r, const float2* __restrict__ tw16,
                 const float2* __restrict__ tw_m, float2* __restrict__ out) {
  using S = RShape<R, E, MinBlocks>;
  constexpr int M = S::M, T = S::T, Q = S::Q;
  extern __shared__ __align__(128) C32 smem[];
  C32* x = smem;
  C32* box = smem + S::x_slots;
  cg::cluster_group cluster = cg::this_cluster();
  const int c = static_cast<int>(cluster.block_rank());
  const int line = static_cast<int>(blockIdx.x) / R;
  const int tid = threadIdx.x;
  const float2* in = raw + static_cast<std::size_t>(line) * N + tid + c * Q * T;
  {
    C32 y[Q][R];
#pragma unroll
    for (int j = 0; j < Q; ++j)
#pragma unroll
      for (int m = 0; m < R; ++m) y[j][m] = fft::to_c32(in[j * T + m * M]);
#pragma unroll
    for (int j = 0; j < Q; ++j) {
      fft::dft<R>(y[j]);
      times_powers<R>(y[j], fft::to_c32(__ldg(tw16 + tid + (c * Q + j) * T)));
#pragma unroll
      for (int p = 0; p < R; ++p) box[p * (M / R) + tid + j * T] = y[j][p];
    }
  }
  cluster.sync();
  C32 v[E];
#pragma unroll
  for (int cc = 0; cc < R; ++cc) {
    const C32* peer = cluster.map_shared_rank(box, cc);
#pragma unroll
    for (int j = 0; j < Q; ++j) v[cc * Q + j] = peer[c * (M / R) + tid + j * T];
  }
  cluster_arrive();  // this CTA has read the outboxes
  steps::Fp32Butterflies::forward<M, E>(v, x, tw_m, tid);
  const float2* h = filter_r + c * M + tid;
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q] * fft::to_c32(__ldg(h + q * T)));
  steps::Fp32Butterflies::forward<M, E>(v, x, tw_m, tid);
  cluster_wait();  // every peer has read this outbox
#pragma unroll
  for (int q = 0; q < E; ++q) box[tid + q * T] = v[q];  // conj(Y'_c)
  cluster.sync();
  C32 z[Q][R];
#pragma unroll
  for (int p = 0; p < R; ++p) {
    const C32* peer = cluster.map_shared_rank(box, p);
#pragma unroll
    for (int j = 0; j < Q; ++j) z[j][p] = peer[tid + (c * Q + j) * T];
  }
  cluster_arrive();
  float2* dst = out + static_cast<std::size_t>(line) * N + tid + c * Q * T;
#pragma unroll
  for (int j = 0; j < Q; ++j) {
    // conj(out_m) = sum_p conj(Y'_p) W_N^(n p) W_R^(p m): a forward DFT of conj(Y'_p) W_N^(n p).
    times_powers<R>(z[j], fft::to_c32(__ldg(tw16 + tid + (c * Q + j) * T)));
    fft::dft<R>(z[j]);
#pragma unroll
    for (int m = 0; m < R; ++m) dst[j * T + m * M] = fft::to_float2(fft::conj(z[j][m]));
  }
  cluster_wait();  // every peer has read this CTA's shared memory: it may go
}

// H's bins R k + c at c M + k (M = N / R: each CTA's bins together) and the M-point twiddle table
// exp(-2 pi i k / M), on the device.
struct SplitTables {
  float2 *filter = nullptr, *tw = nullptr;
  SplitTables(const RangeCase& rc, int r) {
    const int m = N / r;
    std::vector<float2> f(N), t(m);
    for (int k = 0; k < m; ++k) {
      for (int c = 0; c < r; ++c) f[c * m + k] = rc.h[r * k + c];
      t[k] = make_float2(std::cos(-2 * M_PI * k / m), std::sin(-2 * M_PI * k / m));
    }
    CK(cudaMalloc(&filter, N * 8));
    CK(cudaMalloc(&tw, m * 8));
    CK(cudaMemcpy(filter, f.data(), N * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(tw, t.data(), m * 8, cudaMemcpyHostToDevice));
  }
  ~SplitTables() {
    cudaFree(filter);
    cudaFree(tw);
  }
};

int main() {
  RangeCase rc(LINES, N);
  rc.set_checked_lines({0, 1, 131, 132, 777, LINES / 2, LINES - 1}, [](auto& a, bool inv) { fft_host(a, inv); });
  const std::size_t n = rc.size;
  float2 *dx = rc.dx, *dy = rc.dy, *dh = rc.dh, *dtw = rc.dtw;
  const SplitTables halves(rc, 2);
  Bench bench(dy, dx, n * 8);
  std::printf("%d lines of %d points\n", LINES, N);
  auto measure = [&](const void* kernel, int smem, int threads, unsigned blocks, const char* name, auto&& launch) {
    measure_kernel(bench, rc, kernel, smem, threads, blocks, false, name, launch);
  };
  {
    using Shape = FusedShape<N, true>;
    const int smem = FusedSlot<N, true>::smem_bytes;
    measure(reinterpret_cast<const void*>(&range_compress_kernel<N, SampleType::complex64, true>), smem,
            Shape::threads * Shape::lines, LINES / Shape::lines, "sarfuse fused (product kernel)", [&](unsigned gr) {
              range_compress_kernel<N, SampleType::complex64, true>
                  <<<gr, dim3(Shape::threads, Shape::lines), smem>>>(dx, LINES, N, dh, dtw, dy, N, N);
            });
  }
  auto cluster = [&]<int E, int Buffers, int MinBlocks>(const char* name) {
    using S = ClusterShape<E, Buffers>;
    if (S::smem_bytes * MinBlocks > 227 * 1024) return;
    auto* k = &rc_cluster<E, Buffers, MinBlocks>;
    measure(reinterpret_cast<const void*>(k), S::smem_bytes, S::T, 2 * LINES, name,
            [&](unsigned gr) { k<<<gr, S::T, S::smem_bytes>>>(dx, halves.filter, dtw, halves.tw, dy); });
  };
  cluster.template operator()<32, 2, 1>("cluster of 2, 256 thr x 32, two buffers");
  cluster.template operator()<32, 1, 1>("cluster of 2, 256 thr x 32, one buffer");
  cluster.template operator()<16, 2, 1>("cluster of 2, 512 thr x 16, two buffers");
  cluster.template operator()<16, 1, 1>("cluster of 2, 512 thr x 16, one buffer");
  cluster.template operator()<16, 1, 2>("cluster of 2, 512 thr x 16, one buffer, 2/SM");

  auto cluster_r = [&]<int R, int E, int MinBlocks>(const char* name) {
    using S = RShape<R, E, MinBlocks>;
    const SplitTables split(rc, R);
    auto* k = &rc_cluster_r<R, E, MinBlocks>;
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(k), cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
    auto launch = [&](unsigned gr) {
      const ClusterLaunch cl(gr, S::T, S::smem_bytes, R);
      CK(cudaLaunchKernelEx(&cl.cfg, k, static_cast<const float2*>(dx), static_cast<const float2*>(split.filter),
                            static_cast<const float2*>(dtw), static_cast<const float2*>(split.tw), dy));
    };
    measure(reinterpret_cast<const void*>(k), S::smem_bytes, S::T, R * LINES, name, launch);
  };
  cluster_r.template operator()<4, 16, 2>("cluster of 4, 4096-point CTAs, 256 thr x 16, 2/SM");
  cluster_r.template operator()<4, 16, 1>("cluster of 4, 4096-point CTAs, 256 thr x 16, 1/SM");
  cluster_r.template operator()<8, 16, 4>("cluster of 8, 2048-point CTAs, 128 thr x 16, 4/SM");
  cluster_r.template operator()<2, 32, 1>("cluster of 2, 8192-point CTAs, 256 thr x 32, one outbox");
  cluster_r.template operator()<2, 16, 1>("cluster of 2, 8192-point CTAs, 512 thr x 16, one outbox");
#if SARFUSE_HAVE_CUFFTDX
  for (const bench::CufftdxRange& c : bench::cufftdx_range_configs(N)) {
    measure_run(bench, rc, "cuFFTDx " + c.config, [&] { c.run(dx, dy, dh, LINES, nullptr); });
  }
#endif
  return 0;
}
