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

}  // namespace sarfuse::cuda::fft
