// A whole power-of-two FFT (64..16384 points) by one group of N/E threads (E = kElems<N>, 16):
// radix-E Stockham passes in registers, exchanged through padded shared memory between passes. Thread
// `tid` holds v[q] = x[tid + q N/E] on entry and X[tid + q N/E] on return, so FFTs chain without a shared-
// memory round trip (inverse = conj . forward . conj).
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "cuda/fft/fft_math.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda::fft {

using C32 = Cx<float>;

__device__ __forceinline__ C32 to_c32(float2 a) { return {a.x, a.y}; }
__device__ __forceinline__ float2 to_float2(C32 a) { return make_float2(a.re, a.im); }

// Elements per thread (N / kElems<N> threads per line), which is also the largest pass radix. 16 by
// default; 8 (-DSARFUSE_FFT_ELEMS=8, an experiment knob) measured slower for 8192-point lines on the
// H200 (docs/performance.md).
#ifndef SARFUSE_FFT_ELEMS
#define SARFUSE_FFT_ELEMS 16
#endif
template <int N>
constexpr int kElems = (N / SARFUSE_FFT_ELEMS > 1024) ? 16 : SARFUSE_FFT_ELEMS;

// Largest pass radix. (Radix 8 at N = 16384, two butterflies per thread, was tried to relieve the
// 64-register cap of 1024-thread blocks: the fused kernel spilled more, ~1 KB per thread, not less.)
template <int N>
constexpr int max_pass_radix = kElems<N>;

constexpr int ipow(int b, int e) { return e == 0 ? 1 : b * ipow(b, e - 1); }

// A twiddle from the float table in the arithmetic type T (float, or __half for --precision fp16).
template <class T>
__device__ __forceinline__ Cx<T> twiddle_as(float2 w) {
  return {static_cast<T>(w.x), static_cast<T>(w.y)};
}

// E: elements per thread = the largest pass radix (16, 8 or 4: the radix-16/8/4 Stockham variants);
// A: the arithmetic type (float; __half for FP16 arithmetic).
template <int N, int E, int P, class A>
__device__ __forceinline__ void stockham_passes(Cx<A> (&v)[E], Cx<A>* s, const float2* __restrict__ tw, int tid) {
  constexpr int kMax = E;
  constexpr int kPasses = pass_count(N, kMax);
  if constexpr (P < kPasses) {
    constexpr int Rp = pass_radix(N, kMax, P);
    constexpr int ns = ipow(kMax, P);
    constexpr int B = E / Rp;  // butterflies per thread in this pass
    constexpr int T = N / E;
    if constexpr (P > 0) {
      __syncthreads();  // the previous pass's stores are visible
#pragma unroll
      for (int q = 0; q < E; ++q) v[q] = s[smem_index(tid + q * T)];
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
      const int j = tid + b * T;
      Cx<A> x[Rp];
#pragma unroll
      for (int r = 0; r < Rp; ++r) x[r] = v[b + r * B];
      if constexpr (ns > 1) {
        // w^r for r < Rp from the exact table values w, w^2, w^4, w^8 and at most three products: 4
        // scattered table reads instead of Rp - 1, each factor within a few ulp.
        const int a = stockham_twiddle(j, 1, ns, N, Rp);
        Cx<A> p2[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) p2[e] = twiddle_as<A>((1 << e) < Rp ? __ldg(tw + (a << e)) : make_float2(1.f, 0.f));
#pragma unroll
        for (int r = 1; r < Rp; ++r) {
          Cx<A> w = twiddle_as<A>(make_float2(1.f, 0.f));
          bool first = true;
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (r & (1 << e)) {
              w = first ? p2[e] : w * p2[e];
              first = false;
            }
          x[r] = x[r] * w;
        }
      }
      dft<Rp>(x);
#pragma unroll
      for (int r = 0; r < Rp; ++r) v[b + r * B] = x[r];
    }
    if constexpr (P + 1 < kPasses) {
      __syncthreads();  // every thread has read this pass's inputs
#pragma unroll
      for (int b = 0; b < B; ++b) {
        const int j = tid + b * T;
#pragma unroll
        for (int r = 0; r < Rp; ++r) s[smem_index(stockham_output(j, r, ns, Rp))] = v[b + r * B];
      }
    }
    stockham_passes<N, E, P + 1, A>(v, s, tw, tid);
  }
}

// Forward FFT of N points by N/E threads; `s` is this group's smem_size(N) slots, `tw` the table
// exp(-2 pi i k/N).
template <int N, int E = kElems<N>, class A = float>
__device__ __forceinline__ void block_fft_forward(Cx<A> (&v)[E], Cx<A>* s, const float2* __restrict__ tw, int tid) {
  static_assert(N >= 64 && N <= 16384 && (N & (N - 1)) == 0, "N: a power of two in [64, 16384]");
  static_assert(E == 4 || E == 8 || E == 16, "E: 4, 8 or 16 elements per thread");
  static_assert(N / E <= 1024, "at most 1024 threads per line");
  stockham_passes<N, E, 0, A>(v, s, tw, tid);
}

template <int N, int E = kElems<N>>
struct BlockShape {
  static constexpr int threads = N / E;                                // per line
  static constexpr int lines = threads >= 256 ? 1 : 256 / threads;     // lines per block
  static constexpr int smem_bytes = lines * smem_size(N) * static_cast<int>(sizeof(C32));
  // Blocks per multiprocessor to hold registers for (launch bounds): two for 512-thread lines, so
  // one block computes while the other waits at a barrier.
  static constexpr int min_blocks = threads * lines >= 1024 ? 1 : threads * lines >= 512 ? 2 : 3;
};

// Calls f.template operator()<N>() for the runtime power of two n in [Lo, Hi], the one place that maps
// a runtime length onto the kernels' compile-time sizes; anything else throws Error naming `what`.
template <int Lo, int Hi, int N = Lo, class F>
void dispatch_pow2(int n, const char* what, F&& f) {
  if constexpr (N <= Hi) {
    if (n == N) {
      f.template operator()<N>();
      return;
    }
    dispatch_pow2<Lo, Hi, 2 * N>(n, what, f);
  } else {
    throw Error(std::string(what) + ": " + std::to_string(n) + " is not a power of two in [" + std::to_string(Lo) +
                ", " + std::to_string(Hi) + "]");
  }
}

}  // namespace sarfuse::cuda::fft
