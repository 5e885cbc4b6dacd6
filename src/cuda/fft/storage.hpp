// How the scene is held in device memory between the passes: complex64, or FP16 (--precision
// fp16-storage: half the bytes, FP32 arithmetic on chip). An FP16 value keeps 11 significant bits at
// any magnitude between 6.1e-5 and 65504, so what matters is the exponent: each stored array is the
// true values times a power of two (exact to apply and to undo) chosen so the largest element lands
// at or below kHalfStorageTarget, a quarter of FP16's range (headroom for the sqrt(2) between a
// component bound and a complex magnitude bound). Host and device (SARFUSE_HD): unit-tested on the CPU.
#pragma once
#include <cmath>

#include "core/geometry.hpp"  // SARFUSE_HD

namespace sarfuse::cuda::fft {

constexpr float kHalfStorageTarget = 16384.0f;  // 2^14

// The power of two s with bound * s < kHalfStorageTarget <= 2 * bound * s. A bound of zero (an all-zero
// line) or one that is not finite gives 1; the exponent is clamped so s and 1/s are normal floats.
SARFUSE_HD inline float half_storage_scale(float bound) {
  if (!(bound > 0.0f) || !(bound < 3.0e38f)) return 1.0f;
  int e = 0;
  frexpf(bound, &e);  // bound = m 2^e, m in [0.5, 1)
  int k = 14 - e;     // bound * 2^k < 2^14
  k = k > 120 ? 120 : (k < -120 ? -120 : k);
  return ldexpf(1.0f, k);
}

// What pass 2's output is bounded by, per unit of pass 1's largest component: an N-point FFT of
// components <= m has components <= N sqrt(2) m. Pass 2 stores with half_storage_scale(this x m) and
// pass 3 undoes the same factor (both compute it from the same recorded m).
SARFUSE_HD inline float half_column_fft_gain(int lines) { return static_cast<float>(lines) * 1.41421357f; }

}  // namespace sarfuse::cuda::fft
