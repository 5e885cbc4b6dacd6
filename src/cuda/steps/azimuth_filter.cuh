// The azimuth matched filter of a Doppler row: output column c times exp(j (az_phase0 + az_phase_step c))
// and the band weight (the row's, or the window at the row's band position less the column's shift
// when the processed band moves with range: core::AzimuthFilter).
#pragma once
#include <cuda_runtime.h>

#include "core/filters.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/kernels.hpp"
#include "cuda/steps/phasors.cuh"

namespace sarfuse::cuda::steps {

using fft::C32;

__device__ __forceinline__ float band_weight(const core::DopplerRow& row, int c, const AzimuthBandView& band) {
  if (band.column_shift == nullptr) return static_cast<float>(row.weight);
  const float x = static_cast<float>(row.band_x) - __ldg(band.column_shift + c);
  return core::window_lerp(band.window, band.intervals, x) * band.inv_lines;
}

// Whether every line of this block is a Doppler row outside the processed band (weight 0: the row's
// outputs are zeros, whatever the band's shift with range) or past the last row.
template <int Lines>
__device__ __forceinline__ bool block_outside_band(const core::DopplerRow* __restrict__ rows, int lines) {
#pragma unroll
  for (int y = 0; y < Lines; ++y) {
    const int k = static_cast<int>(blockIdx.x) * Lines + y;
    if (k < lines && rows[k].weight != 0.0) return false;
  }
  return true;
}

// For the outputs c = tid + i T (i < E) of a thread: the phasor of its first output in float64, the
// others through the line's table of exp(j az_phase_step i T), i < E, computed once per line in float64
// instead of a float64 phase and a sincos per output.
template <int N, int E>
struct AzimuthFilter {
  static constexpr int T = N / E;
  // The line's table, by its first E threads (read after a barrier).
  __device__ static void fill_steps(C32* steps, const core::DopplerRow& row, int tid) {
    if (tid < E) steps[tid] = unit_phasor(row.az_phase_step * (static_cast<double>(T) * tid));
  }
  C32 first;
  const C32* steps;
  bool shifted_band;
  __device__ AzimuthFilter(const core::DopplerRow& row, int tid, const AzimuthBandView& band, const C32* line_steps)
      : steps(line_steps), shifted_band(band.column_shift != nullptr) {
    first = fft::scale(unit_phasor(row.az_phase0 + row.az_phase_step * tid),
                       shifted_band ? 1.0f : static_cast<float>(row.weight));
  }
  // The factor of output i (column c = tid + i T).
  __device__ C32 factor(const core::DopplerRow& row, int i, int c, const AzimuthBandView& band) const {
    C32 ph = first * steps[i];
    if (shifted_band) ph = fft::scale(ph, band_weight(row, c, band));
    return ph;
  }
};

}  // namespace sarfuse::cuda::steps
