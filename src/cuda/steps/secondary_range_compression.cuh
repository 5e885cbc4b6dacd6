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
// With m = tid + k T, Q m^2 = Q tid^2 + 2 Q T tid k + Q T^2 k^2: a per-thread anchor, the |k|-th power
// of a per-thread step (from its powers 1, 2, 4, ..., each evaluated directly), and the line's table
// of the k^2 term (chirp[k + kReach], -kReach <= k < kReach): 1 + log2(E) sincospi per thread instead
// of E, a handful of roundings per factor.
template <int N, int E>
struct SrcFactors {
  static constexpr int T = N / E;
  static constexpr int kReach = (E + 1) / 2;      // |k| <= kReach (the middle element of an odd E: kReach)
  static constexpr int kChirpSize = 2 * kReach;  // the line's table: k = -kReach .. kReach - 1
  static constexpr int kPowers = kReach >= 16 ? 5 + (kReach >= 32) : kReach >= 8 ? 4 : kReach >= 4 ? 3 : 2;  // 2^kPowers > kReach
  static_assert(kChirpSize <= 64, "at most 63 points a thread");
  C32 anchor, step_pow2[kPowers];
  // The line's table, by its first kChirpSize threads (read after a barrier).
  __device__ static void fill_chirp(C32* chirp, int tid, double q_df2) {
    if (tid < kChirpSize) {
      const double k = tid - kReach;
      chirp[tid] = unit_phasor_halfturns(-q_df2 * static_cast<double>(T) * T * k * k);
    }
  }
  __device__ SrcFactors(int tid, double q_df2) {
    anchor = unit_phasor_halfturns(-q_df2 * static_cast<double>(tid) * tid);
    const double beta = -2.0 * q_df2 * T * tid;
#pragma unroll
    for (int b = 0; b < kPowers; ++b) step_pow2[b] = unit_phasor_halfturns(beta * (1 << b));
  }
  // k of element q: q below N/2, q - E at and above (only the middle element of an odd E depends on tid).
  __device__ static int step_index(int tid, int q) {
    if (E % 2 == 1 && q == E / 2) return tid + q * T < N / 2 ? q : q - E;
    return 2 * q < E ? q : q - E;
  }
  // step^a, 0 < a <= kReach, from the powers 1, 2, 4, ...: one product per further set bit of a
  // (a a compile-time constant once unrolled).
  __device__ C32 step_power(int a) const {
    C32 s{1.f, 0.f};
    bool first = true;
#pragma unroll
    for (int b = 0; b < kPowers; ++b)
      if (a & (1 << b)) {
        s = first ? step_pow2[b] : s * step_pow2[b];
        first = false;
      }
    return s;
  }
  __device__ C32 factor(int tid, int q, const C32* chirp) const {
    const int k = step_index(tid, q), a = k < 0 ? -k : k;
    C32 p = anchor;  // anchor x step^|k|, conj(step^|k|) = step^k for k < 0 (unit phasors)
    if (a != 0) {
      const C32 s = step_power(a);
      p = anchor * (k < 0 ? fft::conj(s) : s);
    }
    return p * chirp[k + kReach];
  }
  // v[q] x the factor of its bin; `chirp` filled by fill_chirp before a barrier. In the order 0, 1, E - 1,
  // 2, E - 2, ...: the two elements of each |k| one after the other, so each power of the step is used
  // as soon as it is made (in q order the first half's powers stayed live for the second half: spills
  // at 32 points a thread).
  __device__ void apply(C32 (&v)[E], int tid, const C32* chirp) const {
#pragma unroll
    for (int j = 0; j < E; ++j) {
      const int q = j == 0 ? 0 : j % 2 == 1 ? (j + 1) / 2 : E - j / 2;
      v[q] = v[q] * factor(tid, q, chirp);
    }
  }
};

// The factor of range-frequency bin m of n alone (the unfused baseline's per-element pass).
__device__ __forceinline__ C32 src_factor(int m, int n, double q, double df) {
  const double f = static_cast<double>(m < n / 2 ? m : m - n) * df;
  return unit_phasor_halfturns(-q * f * f);
}

}  // namespace sarfuse::cuda::steps
