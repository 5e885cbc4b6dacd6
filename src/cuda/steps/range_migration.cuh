// Range cell migration correction (RCMC): windowed-sinc interpolation of a range-Doppler row at the
// positions core::DopplerRow gives (core::fixed_position), the weights from core::sinc_table_fp32.
// Used by the fused range-Doppler pass (the row staged in shared memory) and by the unfused baseline
// (the row read from global memory).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/filters.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/kernels.hpp"

namespace sarfuse::cuda::steps {

using fft::C32;

// Interpolation of a row at fixed-point position p: taps from row_at(i0 + t), i0 = floor(p) - taps / 2
// + 1, the weights blended between the table rows around the fraction (w + blend (next - w), the
// difference in FP32). The table is core::sinc_table_fp32's quad-major form: taps 4q..4q+3 of row r are
// float4 q (fractions + 1) + r, so a warp's lanes, whose rows differ, read 16 bytes a row apart.
// Taps == 8 is the default kernel, unrolled, the two rows as four 16-byte loads; `i0` lets the caller
// wrap floor(p).
template <int Taps, class RowAt>
__device__ __forceinline__ C32 rcmc_taps(RowAt row_at, int i0, const SincTableView& sinc, int row, float blend) {
  C32 acc{0.f, 0.f};
  const float4* w4 = reinterpret_cast<const float4*>(sinc.weights);
  const int plane = sinc.fractions + 1;
  if constexpr (Taps == 8) {
    const float4 a0 = __ldg(w4 + row), a1 = __ldg(w4 + plane + row);
    const float4 b0 = __ldg(w4 + row + 1), b1 = __ldg(w4 + plane + row + 1);
    const float wa[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
    const float wb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
    for (int t = 0; t < 8; ++t) {
      const C32 x = row_at(i0 + t);
      const float wt = fmaf(blend, wb[t] - wa[t], wa[t]);
      acc.re = fmaf(x.re, wt, acc.re);
      acc.im = fmaf(x.im, wt, acc.im);
    }
  } else {
    for (int q = 0; 4 * q < sinc.taps; ++q) {
      const float4 a = __ldg(w4 + q * plane + row), b = __ldg(w4 + q * plane + row + 1);
      const float wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        if (4 * q + t >= sinc.taps) break;
        const C32 x = row_at(i0 + 4 * q + t);
        const float wt = fmaf(blend, wb[t] - wa[t], wa[t]);
        acc.re = fmaf(x.re, wt, acc.re);
        acc.im = fmaf(x.im, wt, acc.im);
      }
    }
  }
  return acc;
}

// The same at any tap count, row_at wrapping every index itself.
template <class RowAt>
__device__ __forceinline__ C32 rcmc_sample(RowAt row_at, std::int64_t p, const SincTableView& sinc) {
  float blend;
  const int row = core::fixed_row_blend(p, sinc.fractions, blend);
  const int i0 = core::fixed_floor(p) - sinc.taps / 2 + 1;
  return sinc.taps == 8 ? rcmc_taps<8>(row_at, i0, sinc, row, blend) : rcmc_taps<0>(row_at, i0, sinc, row, blend);
}

// i modulo N in [0, N).
template <int N>
__device__ __forceinline__ int wrap_index(int i) {
  if constexpr (fft::is_pow2(N)) {
    return i & (N - 1);
  } else {
    i %= N;
    return i < 0 ? i + N : i;
  }
}

// A row of N held on chip for the interpolation: stored unpadded from s + kGuard, so consecutive threads
// read consecutive samples (conflict-free without the FFT's padding), with samples -kGuard..-1 and
// N..N+kGuard repeating the row's other end, so an 8-tap window at any wrapped floor in [0, N) is eight
// loads at constant offsets.
template <int N>
struct StagedRow {
  static constexpr int kGuard = 8 / 2 - 1;  // an 8-tap window at floor f reads f - kGuard .. f + kGuard + 1
  const C32* row;
  // Stores conj(v[q]) at tid + q T (v the forward FFT of the conjugated row: the inverse FFT).
  template <int E>
  __device__ static StagedRow stage_conjugated(C32* s, const C32 (&v)[E], int tid) {
    constexpr int T = N / E;
    C32* row_lin = s + kGuard;
#pragma unroll
    for (int q = 0; q < E; ++q) {
      const int j = tid + q * T;
      const C32 x = fft::conj(v[q]);
      row_lin[j] = x;
      if (q == 0 && j <= kGuard) row_lin[N + j] = x;
      if (q == E - 1 && j >= N - kGuard) row_lin[j - N] = x;
    }
    return {row_lin};
  }
  // The interpolated row at fixed-point position p (wrapping: the row is one period). Taps: 8, the
  // default kernel, fixed at compile time (eight loads at constant offsets), or 0: sinc.taps, any.
  template <int Taps>
  __device__ C32 at(std::int64_t p, const SincTableView& sinc) const {
    float blend;
    const int trow = core::fixed_row_blend(p, sinc.fractions, blend);
    const C32* r = row;
    if constexpr (Taps == 8)
      return rcmc_taps<8>([r](int k) { return r[k]; }, wrap_index<N>(core::fixed_floor(p)) - kGuard, sinc, trow, blend);
    else
      return rcmc_taps<0>([r](int k) { return r[wrap_index<N>(k)]; }, core::fixed_floor(p) - sinc.taps / 2 + 1, sinc,
                          trow, blend);
  }

};

}  // namespace sarfuse::cuda::steps
