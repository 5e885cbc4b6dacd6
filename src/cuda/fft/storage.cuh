// Device side of the storage formats (storage.hpp): loads and stores of complex64 or FP16 elements
// with a factor, and the largest component over one line's thread group.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/storage.hpp"

namespace sarfuse::cuda::fft {

__device__ __forceinline__ C32 load_scaled(const float2* p, float factor) {
  const float2 a = *p;
  return {a.x * factor, a.y * factor};
}
__device__ __forceinline__ C32 load_scaled(const __half2* p, float factor) {
  const float2 a = __half22float2(*p);
  return {a.x * factor, a.y * factor};
}
__device__ __forceinline__ void store_scaled(float2* p, C32 v, float factor) {
  *p = make_float2(v.re * factor, v.im * factor);
}
__device__ __forceinline__ void store_scaled(__half2* p, C32 v, float factor) {
  *p = __floats2half2_rn(v.re * factor, v.im * factor);
}

__device__ __forceinline__ float max_component(C32 v) { return fmaxf(fabsf(v.re), fabsf(v.im)); }

// The largest `x` over the T threads of this line (threadIdx.x = 0..T-1, threadIdx.y = the line within
// the block); `red` is __shared__ room for 32 floats per line of the block. Every thread of the block
// must call it (it synchronises when T > 32).
template <int T>
__device__ __forceinline__ float line_group_max(float x, float* red) {
#pragma unroll
  for (int o = (T < 32 ? T / 2 : 16); o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  if constexpr (T <= 32) {
    return x;
  } else {
    if ((threadIdx.x & 31) == 0) red[threadIdx.y * 32 + threadIdx.x / 32] = x;
    __syncthreads();
    float m = 0.0f;
#pragma unroll
    for (int w = 0; w < T / 32; ++w) m = fmaxf(m, red[threadIdx.y * 32 + w]);
    return m;
  }
}

// atomicMax for non-negative floats: their bit patterns order as unsigned integers.
__device__ __forceinline__ void atomic_max_nonnegative(unsigned* slot, float x) {
  atomicMax(slot, __float_as_uint(x));
}
__device__ __forceinline__ float read_max_nonnegative(const unsigned* slot) { return __uint_as_float(*slot); }

// --precision fp16: an N-point FFT with its butterflies in FP16 arithmetic. The line (v, FP32 in and out)
// is scaled by the power of two that keeps its largest component times N sqrt(2) (the FFT's worst-case
// growth) below 2^14, converted, transformed in __half through the same Stockham passes, converted back
// and unscaled. group_max(x) returns the largest x over the line's threads (called by every thread).
template <int N, int E, class GroupMax>
__device__ __forceinline__ void block_fft_forward_fp16(C32 (&v)[E], C32* s, const float2* __restrict__ tw, int tid,
                                                       GroupMax group_max) {
  float m = 0.0f;
#pragma unroll
  for (int q = 0; q < E; ++q) m = fmaxf(m, max_component(v[q]));
  m = group_max(m);
  const float pre = half_storage_scale(m * static_cast<float>(N) * 1.41421357f), post = 1.0f / pre;
  Cx<__half> h[E];
#pragma unroll
  for (int q = 0; q < E; ++q) h[q] = {__float2half_rn(v[q].re * pre), __float2half_rn(v[q].im * pre)};
  block_fft_forward<N, E, __half>(h, reinterpret_cast<Cx<__half>*>(s), tw, tid);
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = {__half2float(h[q].re) * post, __half2float(h[q].im) * post};
}

}  // namespace sarfuse::cuda::fft
