// A whole FFT of one line (64..16384 points: a power of two, one of fft_math.hpp's nice lengths or one
// of its odd column lengths) by one group of N/E threads (E = kElems<N>: 16 for powers of two):
// Stockham passes in registers, exchanged through padded shared memory between passes. Thread `tid`
// holds v[q] = x[tid + q N/E] on entry and X[tid + q N/E] on return, so FFTs chain without a
// shared-memory round trip (inverse = conj . forward . conj).
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <type_traits>

#include "cuda/fft/fft_math.hpp"
#include "cuda/fft/tensor_dft.cuh"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda::fft {

using C32 = Cx<float>;

__device__ __forceinline__ C32 to_c32(float2 a) { return {a.x, a.y}; }
__device__ __forceinline__ float2 to_float2(C32 a) { return make_float2(a.re, a.im); }

// Elements per thread (N / kElems<N> threads per line), which is also the largest pass radix. 16 by
// default; 8 (-DSARFUSE_FFT_ELEMS=8, an experiment knob) measured slower for 8192-point lines
// (docs/performance.md).
#ifndef SARFUSE_FFT_ELEMS
#define SARFUSE_FFT_ELEMS 16
#endif
template <int N>
constexpr int kElems = is_odd_column_size(N) ? kOddColumnElems
                       : !is_pow2(N)         ? row_elems(N)
                       : (N / SARFUSE_FFT_ELEMS > 1024) ? 16
                                                        : SARFUSE_FFT_ELEMS;

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

// w^r for 1 <= r < 16 from p2 = {w, w^2, w^4, w^8}: at most three products (r a compile-time constant
// after unrolling folds the selection away).
template <class A>
__device__ __forceinline__ Cx<A> power_from_pow2(const Cx<A> (&p2)[4], int r) {
  Cx<A> w = p2[0];
  bool first = true;
#pragma unroll
  for (int e = 0; e < 4; ++e)
    if (r & (1 << e)) {
      w = first ? p2[e] : w * p2[e];
      first = false;
    }
  return w;
}

// x[r] *= exp(-2 pi i r (j mod ns) / (R ns)) for the inputs of butterfly j of a Stockham pass (table
// `tw` of exp(-2 pi i k / N)). FP32: one table read, w, and w^r = w^(r-1) w made just before its use, so
// one power is live at a time (the fused kernels' register budget; each product adds an ulp or so:
// fused range compression at 4096, 4e-7 relative L2 to float64 instead of 2e-7). FP16 arithmetic: w,
// w^2, w^4, w^8 from the table and at most three products each, since a chain of FP16 products would
// lose too much.
template <int N, int R, int ns, class A>
__device__ __forceinline__ void stockham_twiddle_mul(Cx<A>* x, int j, const float2* __restrict__ tw) {
  if constexpr (ns > 1) {
    const int a = stockham_twiddle(j, 1, ns, N, R);
    if constexpr (std::is_same_v<A, float>) {
      const Cx<A> w = twiddle_as<A>(__ldg(tw + a));
      Cx<A> wr = w;
      x[1] = x[1] * w;
#pragma unroll
      for (int r = 2; r < R; ++r) {
        wr = wr * w;
        x[r] = x[r] * wr;
      }
    } else {
      Cx<A> p2[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) p2[e] = twiddle_as<A>((1 << e) < R ? __ldg(tw + (a << e)) : make_float2(1.f, 0.f));
#pragma unroll
      for (int r = 1; r < R; ++r) x[r] = x[r] * power_from_pow2(p2, r);
    }
  }
}

// DFT_R in registers: radix 2..32 powers of two, or 3, 5, 7, 9, 15.
template <int R, class A>
__device__ __forceinline__ void butterfly(Cx<A>* x) {
  if constexpr (R == 15) dft15(x);
  else if constexpr (R == 9) dft9(x);
  else if constexpr (R == 3 || R == 5 || R == 7) dft_odd<R>(x);
  else dft<R>(x);
}

// The shared memory a group's FFT exchanges through between passes. One buffer: a barrier before a
// pass writes it (every thread has read the pass's inputs) and one before the next pass reads it. Two
// (twice the shared memory): pass p writes buffer (Base + p) % 2, last read before the barrier that
// opened pass p, so only the barrier before each read is left.
template <int Buffers = 1, int Base = 0>
struct Exchange {
  static_assert(Buffers == 1 || Buffers == 2, "one or two exchange buffers");
  static constexpr int buffers = Buffers;
  static constexpr int written_by(int pass) { return Buffers == 1 ? 0 : (Base + pass) % 2; }
  // The exchange of an FFT that follows, on the same buffers, one of `Passes` passes through this one:
  // its first pass writes the buffer that the last pass here did not read.
  template <int Passes>
  using Next = Exchange<Buffers, Buffers == 1 ? 0 : (Base + Passes - 1) % 2>;
};

// Pass P, of radix R (ns: the sub-transform size before it), on the registers, R dividing E: thread
// tid's butterflies tid + b T (b < E / R) read v[b + r E / R] and write them back; the pass's inputs
// come from shared memory (exchange X) unless it is the first, its outputs go there unless it is the
// last.
// A: the arithmetic type (float; __half for FP16 arithmetic). Tensor: the radix-16 butterflies on the
// tensor cores (dft16_tensor, 3xTF32; f16 its DFT matrix), a warp's 32 butterflies at a time, staged
// in the warp's slice of `s` between the pass's reads and writes.
template <int N, int E, int R, int ns, int P, bool Last, class A, bool Tensor, class X>
__device__ __forceinline__ void register_pass(Cx<A> (&v)[E], Cx<A>* s, const float2* __restrict__ tw, int tid,
                                              const float* f16) {
  static_assert(E % R == 0, "a register pass needs R | E");
  static_assert(!Tensor || X::buffers == 1, "tensor staging reuses the one exchange buffer");
  constexpr int B = E / R;  // butterflies per thread in this pass
  constexpr int T = N / E;
  if constexpr (P > 0) {
    __syncthreads();  // the previous pass's stores are visible
    const Cx<A>* in = s + X::written_by(P - 1) * smem_size(N);
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = in[smem_index(tid + q * T)];
  }
#pragma unroll
  for (int b = 0; b < B; ++b) {
    Cx<A> x[R];
#pragma unroll
    for (int r = 0; r < R; ++r) x[r] = v[b + r * B];
    stockham_twiddle_mul<N, R, ns>(x, tid + b * T, tw);
    if constexpr (Tensor && R == 16) {
      static_assert(std::is_same_v<A, float> && B == 1 && N / E >= 32, "tensor DFT: FP32, whole warps");
      __syncthreads();  // every warp has read this pass's inputs: s is free for staging
      dft16_tensor(x, reinterpret_cast<float*>(s) + (tid / 32) * 1024, f16, tid % 32);
    } else {
      butterfly<R>(x);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) v[b + r * B] = x[r];
  }
  if constexpr (!Last) {
    if constexpr (X::buffers == 1) __syncthreads();  // every thread has read this pass's inputs
    Cx<A>* out = s + X::written_by(P) * smem_size(N);
#pragma unroll
    for (int b = 0; b < B; ++b)
#pragma unroll
      for (int r = 0; r < R; ++r) out[smem_index(stockham_output(tid + b * T, r, ns, R))] = v[b + r * B];
  }
}

// Power-of-two lengths: E = the largest pass radix (16, 8 or 4: the radix-16/8/4 Stockham variants),
// every pass on the registers.
template <int N, int E, int P, class A, bool Tensor, class X>
__device__ __forceinline__ void stockham_passes(Cx<A> (&v)[E], Cx<A>* s, const float2* __restrict__ tw, int tid,
                                                const float* f16 = nullptr) {
  constexpr int kPasses = pass_count(N, E);
  if constexpr (P < kPasses) {
    register_pass<N, E, pass_radix(N, E, P), ipow(E, P), P, P + 1 == kPasses, A, Tensor, X>(v, s, tw, tid, f16);
    stockham_passes<N, E, P + 1, A, Tensor, X>(v, s, tw, tid, f16);
  }
}

// Forward FFT of N points by N/E threads; `s` is this group's smem_size(N) slots, `tw` the table
// exp(-2 pi i k/N).
// Nice lengths (fft_math.hpp, row_pass_radix): the same contract as the power-of-two passes. Pass P
// of radix R: on the registers when R divides E (thread tid's butterflies tid + b T, b < E / R, read
// v[b + r E / R]); otherwise from shared memory (butterflies tid + b T < N / R, b < ceil(N / R / T)),
// and when that is the last pass its outputs go through shared memory once more to land in v. X: one
// exchange buffer, or two (pass 0 on the registers): a shared-memory pass then reads each butterfly
// from one and writes it to the other at once, one butterfly live instead of ceil(N / R / T). A last
// pass through shared memory reads both buffers, so an FFT chained after it starts on the one that
// pass read from (not Exchange::Next's).
template <int N, int E, int P, class X>
__device__ __forceinline__ void mixed_passes(C32 (&v)[E], C32* s, const float2* __restrict__ tw, int tid) {
  constexpr int kPasses = row_pass_count(N);
  if constexpr (P < kPasses) {
    constexpr int R = row_pass_radix(N, P), ns = row_pass_span(N, P), T = N / E;
    constexpr bool kLast = P + 1 == kPasses;
    if constexpr (E % R == 0) {
      register_pass<N, E, R, ns, P, kLast, float, false, X>(v, s, tw, tid, nullptr);
    } else if constexpr (X::buffers == 2) {
      // Two buffers: each butterfly read from the previous pass's buffer and written to the other at
      // once (one butterfly's points live at a time, no barrier between the reads and the writes).
      static_assert(P > 0, "two buffers: the first pass on the registers");
      constexpr int B = (N / R + T - 1) / T;
      const C32* in = s + X::written_by(P - 1) * smem_size(N);
      C32* out = s + X::written_by(P) * smem_size(N);
      __syncthreads();
#pragma unroll
      for (int b = 0; b < B; ++b) {
        const int j = tid + b * T;
        if (j < N / R) {
          C32 x[R];
#pragma unroll
          for (int r = 0; r < R; ++r) x[r] = in[smem_index(stockham_input(j, r, N, R))];
          stockham_twiddle_mul<N, R, ns>(x, j, tw);
          butterfly<R>(x);
#pragma unroll
          for (int r = 0; r < R; ++r) out[smem_index(stockham_output(j, r, ns, R))] = x[r];
        }
      }
      if constexpr (kLast) {
        __syncthreads();
#pragma unroll
        for (int q = 0; q < E; ++q) v[q] = out[smem_index(tid + q * T)];
      }
    } else {
      constexpr int B = (N / R + T - 1) / T;
      if constexpr (P == 0) {  // the line arrives in registers: through shared memory first
        __syncthreads();       // a previous FFT's last reads of s are done
#pragma unroll
        for (int q = 0; q < E; ++q) s[smem_index(tid + q * T)] = v[q];
      }
      __syncthreads();
      C32 x[B][R];
#pragma unroll
      for (int b = 0; b < B; ++b) {
        const int j = tid + b * T;
        if (j < N / R) {
#pragma unroll
          for (int r = 0; r < R; ++r) x[b][r] = s[smem_index(stockham_input(j, r, N, R))];
          stockham_twiddle_mul<N, R, ns>(x[b], j, tw);
          butterfly<R>(x[b]);
        }
      }
      __syncthreads();  // every thread has read this pass's inputs
#pragma unroll
      for (int b = 0; b < B; ++b) {
        const int j = tid + b * T;
        if (j < N / R)
#pragma unroll
          for (int r = 0; r < R; ++r) s[smem_index(stockham_output(j, r, ns, R))] = x[b][r];
      }
      if constexpr (kLast) {
        __syncthreads();
#pragma unroll
        for (int q = 0; q < E; ++q) v[q] = s[smem_index(tid + q * T)];
      }
    }
    mixed_passes<N, E, P + 1, X>(v, s, tw, tid);
  }
}

// Tensor (--precision tf32x3): the radix-16 passes' DFTs on the tensor cores; call once per kernel (it
// fills the block's DFT matrix), by every thread of the block.
// X: the exchange (one buffer, or two for powers of two; `s` then holds 2 smem_size(N) slots).
template <int N, int E = kElems<N>, class A = float, bool Tensor = false, class X = Exchange<>>
__device__ __forceinline__ void block_fft_forward(Cx<A> (&v)[E], Cx<A>* s, const float2* __restrict__ tw, int tid) {
  static_assert(N / E <= 1024, "at most 1024 threads per line");
  if constexpr (is_pow2(N)) {
    static_assert(N >= 64 && N <= 16384, "N: a power of two in [64, 16384], or a nice length");
    static_assert(E == 4 || E == 8 || E == 16 || E == 32, "E: 4, 8, 16 or 32 elements per thread");
    static_assert(E <= 16 || (std::is_same_v<A, float> && !Tensor), "32 elements per thread: FP32 arithmetic");
    if constexpr (Tensor) {
      const float* f16 = dft16_matrix(threadIdx.x + threadIdx.y * blockDim.x, blockDim.x * blockDim.y);
      __syncthreads();
      stockham_passes<N, E, 0, A, true, X>(v, s, tw, tid, f16);
    } else {
      stockham_passes<N, E, 0, A, false, X>(v, s, tw, tid);
    }
  } else {
    static_assert((is_nice_row_size(N) && N % E == 0 && N / E % 32 == 0) ||
                      (is_odd_column_size(N) && E == kOddColumnElems),
                  "N: one of kNiceRowSizes (E: row_elems(N), or 16 or 32 (pass 3, experiments), whole warps a line) "
                  "or of kOddColumnSizes (E: 15; columns, any threads a column)");
    static_assert(std::is_same_v<A, float>, "nice lengths: FP32 arithmetic");
    mixed_passes<N, E, 0, X>(v, s, tw, tid);
  }
}

// Lines: lines per block (by default as many as make 256 threads).
template <int N, int E = kElems<N>, int Lines = (N / E >= 256 ? 1 : 256 / (N / E))>
struct BlockShape {
  static constexpr int threads = N / E;  // per line
  static constexpr int lines = Lines;    // per block
  static constexpr int smem_bytes = lines * smem_size(N) * static_cast<int>(sizeof(C32));
  // Blocks per multiprocessor to hold registers for (launch bounds): two for 512-thread lines, so
  // one block computes while the other waits at a barrier.
  static constexpr int min_blocks = threads * lines >= 1024 ? 1 : threads * lines >= 512 ? 2 : 3;
};

// Calls f.template operator()<N>() for the runtime n among the compile-time lengths `Sizes`; false
// when n is not one.
template <const auto& Sizes, int I = 0, class F>
bool dispatch_listed(int n, F&& f) {
  constexpr int kCount = static_cast<int>(sizeof(Sizes) / sizeof(Sizes[0]));
  if constexpr (I < kCount) {
    if (n == Sizes[I]) {
      f.template operator()<Sizes[I]>();
      return true;
    }
    return dispatch_listed<Sizes, I + 1>(n, f);
  } else {
    return false;
  }
}
template <class F>
bool dispatch_nice(int n, F&& f) {
  return dispatch_listed<kNiceRowSizes>(n, f);
}

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
