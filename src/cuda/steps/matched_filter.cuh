// The range matched filter: the E spectrum bins tid + q T a thread holds times H (the filter carries
// the inverse FFT's 1/N), and the conjugation that turns the next forward FFT into the inverse.
#pragma once
#include <cuda_runtime.h>

#include "cuda/fft/block_fft.cuh"

namespace sarfuse::cuda::steps {

using fft::C32;

template <int N, int E>
__device__ __forceinline__ void multiply_by_filter(C32 (&v)[E], const float2* __restrict__ filter, int tid) {
  constexpr int T = N / E;
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = v[q] * fft::to_c32(__ldg(filter + tid + q * T));
}

template <int E>
__device__ __forceinline__ void conjugate(C32 (&v)[E]) {
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q]);
}

}  // namespace sarfuse::cuda::steps
