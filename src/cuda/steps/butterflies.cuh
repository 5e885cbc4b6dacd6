// The block FFT's arithmetic as a type a kernel is assembled with: FP32 butterflies (the default), FP32
// with the radix-16 passes on the tensor cores in 3xTF32 (precision tf32x3), or FP16 butterflies
// (precision fp16). Each runs the forward FFT of a line held as E elements per thread (the inverse is
// conj . forward . conj around it); `runs<N>` says which sizes it covers.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/storage.cuh"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda::steps {

using fft::BlockShape;
using fft::C32;

struct Fp32Butterflies {
  template <int N>
  static constexpr bool runs = true;
  template <int N, int E, class X = fft::Exchange<>>
  __device__ static void forward(C32 (&v)[E], C32* s, const float2* __restrict__ tw, int tid) {
    fft::block_fft_forward<N, E, float, false, X>(v, s, tw, tid);
  }
};

// Whole warps per line and FP32 staging: powers of two from 512.
struct TensorButterflies {
  static constexpr const char* name = "tf32x3";
  static constexpr const char* sizes = "a power of two in 512..16384";
  template <int N>
  static constexpr bool runs = fft::is_pow2(N) && N >= 512;
  template <int N, int E>
  __device__ static void forward(C32 (&v)[E], C32* s, const float2* __restrict__ tw, int tid) {
    fft::block_fft_forward<N, E, float, true>(v, s, tw, tid);
  }
};

// FP16 arithmetic with a per-line scale between the passes (the line's largest component, reduced over
// the group): powers of two.
struct Fp16Butterflies {
  static constexpr const char* name = "fp16";
  static constexpr const char* sizes = "a power of two";
  template <int N>
  static constexpr bool runs = fft::is_pow2(N);
  template <int N, int E>
  __device__ static void forward(C32 (&v)[E], C32* s, const float2* __restrict__ tw, int tid) {
    __shared__ float red_fft[32 * BlockShape<N>::lines];
    fft::block_fft_forward_fp16<N, E>(v, s, tw, tid, [&](float x) { return fft::line_group_max<N / E>(x, red_fft); });
  }
};

// Calls go.template operator()<Alt>() when `use` (an Error for a size Alt cannot run), else
// go.template operator()<Fp32Butterflies>(): a launcher instantiates only the two it offers.
template <int N, class Alt, class Go>
void with_butterflies(bool use, Go&& go) {
  if constexpr (Alt::template runs<N>) {
    if (use) return go.template operator()<Alt>();
  }
  if (use) throw Error(std::string("precision ") + Alt::name + ": range FFT length " + std::to_string(N) + " is not " + Alt::sizes);
  go.template operator()<Fp32Butterflies>();
}

}  // namespace sarfuse::cuda::steps
