// Secondary range compression (SRC) in the range-Doppler domain: each Doppler row's range spectrum times
// exp(-j pi Q m^2), Q = src_inverse_rate df^2, m the signed range-frequency bin.
#pragma once
#include <cuda_runtime.h>

#include "core/filters.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/steps/phasors.cuh"

namespace sarfuse::cuda::steps {

using fft::C32;

// The factors of the E bins tid + q T a thread holds, q < E, bins at and above N/2 negative (m - N).
// With m = tid + k T, Q m^2 = Q tid^2 + 2 Q T tid k + Q T^2 k^2: a per-thread anchor, the k-th power of
// a per-thread step (from its powers 1, 2, 4 and 8, each evaluated directly), and the line's table of
// the k^2 term (chirp[k + 8], |k| <= 8): five sincospi per thread instead of E, a handful of roundings
// per factor.
template <int N, int E>
struct SrcFactors {
  static constexpr int T = N / E;
  C32 anchor, step_pow2[4];
  // The line's table, by its first 16 threads (read after a barrier).
  __device__ static void fill_chirp(C32* chirp, int tid, double q_df2) {
    if (tid < 16) chirp[tid] = unit_phasor_halfturns(-q_df2 * static_cast<double>(T) * T * (tid - 8) * (tid - 8));
  }
  __device__ SrcFactors(int tid, double q_df2) {
    anchor = unit_phasor_halfturns(-q_df2 * static_cast<double>(tid) * tid);
    const double beta = -2.0 * q_df2 * T * tid;
#pragma unroll
    for (int b = 0; b < 4; ++b) step_pow2[b] = unit_phasor_halfturns(beta * (1 << b));
  }
  // k of element q: q below N/2, q - E at and above (only the middle element of an odd E depends on tid).
  __device__ static int step_index(int tid, int q) {
    if (E % 2 == 1 && q == E / 2) return tid + q * T < N / 2 ? q : q - E;
    return 2 * q < E ? q : q - E;
  }
  __device__ C32 factor(int tid, int q, const C32* chirp) const {
    const int k = step_index(tid, q), a = k < 0 ? -k : k;
    C32 p = anchor;  // anchor x step^|k|, conj(step^|k|) = step^k for k < 0 (unit phasors)
    if (a != 0) {
      const C32 s = fft::power_from_pow2(step_pow2, a);
      p = anchor * (k < 0 ? fft::conj(s) : s);
    }
    return p * chirp[k + 8];
  }
  // v[q] x the factor of its bin; `chirp` filled by fill_chirp before a barrier.
  __device__ void apply(C32 (&v)[E], int tid, const C32* chirp) const {
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = v[q] * factor(tid, q, chirp);
  }
};

// The factor of range-frequency bin m of n alone (the unfused baseline's per-element pass).
__device__ __forceinline__ C32 src_factor(int m, int n, double q, double df) {
  const double f = static_cast<double>(m < n / 2 ? m : m - n) * df;
  return unit_phasor_halfturns(-q * f * f);
}

}  // namespace sarfuse::cuda::steps
