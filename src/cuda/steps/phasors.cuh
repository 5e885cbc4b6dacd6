// Unit phasors of float64 phases of any size: reduced modulo a turn in float64, then sincos in float.
#pragma once
#include <cuda_runtime.h>

#include "cuda/fft/block_fft.cuh"

namespace sarfuse::cuda::steps {

using fft::C32;

// exp(j phase), phase in radians. (Through unit_phasor_halfturns, phase / pi, the chain measured
// 3.59e-7 instead of 3.54e-7 vs fp64: kept apart.)
__device__ __forceinline__ C32 unit_phasor(double phase) {
  const double two_pi = 6.283185307179586476925286766559, inv_two_pi = 0.15915494309189533576888376337251;
  const float reduced = static_cast<float>(phase - two_pi * rint(phase * inv_two_pi));
  float sn, cs;
  sincosf(reduced, &sn, &cs);
  return {cs, sn};
}

// exp(j pi x), x in half-turns.
__device__ __forceinline__ C32 unit_phasor_halfturns(double x) {
  float sn, cs;
  sincospif(static_cast<float>(x - 2.0 * rint(0.5 * x)), &sn, &cs);
  return {cs, sn};
}

}  // namespace sarfuse::cuda::steps
