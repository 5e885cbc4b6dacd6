// How the scene is stored between the passes, as a type the row kernels are assembled with: FP32 rows,
// or FP16 rows each with its own power-of-two scale (precision fp16-storage / fp16; the scheme in
// cuda/kernels.hpp, "FP16 storage between the passes").
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "core/filters.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/storage.cuh"
#include "cuda/kernels.hpp"

namespace sarfuse::cuda::steps {

using fft::BlockShape;
using fft::C32;

// The largest |re| or |im| of the line a thread group holds (E elements per thread), reduced over the
// group (all its threads call it).
template <int N, int E>
__device__ __forceinline__ float line_max_component(const C32 (&v)[E]) {
  __shared__ float red[32 * BlockShape<N>::lines];
  float m = 0.0f;
#pragma unroll
  for (int q = 0; q < E; ++q) m = fmaxf(m, fft::max_component(v[q]));
  return fft::line_group_max<N / E>(m, red);
}

struct Fp32Rows {
  using Io = float2;
  // Pass 1's spectrum line (row pitch N).
  template <int N, int E>
  __device__ static void store_spectrum(const C32 (&v)[E], Io* out, int line, bool active, int tid, float*, unsigned*) {
    constexpr int T = N / E;
    if (!active) return;
#pragma unroll
    for (int q = 0; q < E; ++q) out[static_cast<std::size_t>(line) * N + tid + q * T] = fft::to_float2(v[q]);
  }
  // Pass 3: what the loaded row is multiplied by, and the output's scale.
  __device__ static float load_factor(int, const unsigned*) { return 1.0f; }
  template <int N, int E>
  __device__ static float doppler_row_scale(const C32 (&)[E], const core::DopplerRow&, const SincTableView&,
                                            const AzimuthBandView&, bool, int, int, float*) {
    return 1.0f;
  }
  __device__ static void store(Io* p, C32 x, float) { *p = fft::to_float2(x); }
  __device__ static void mark_zero_row(int, float*) {}
};

struct Fp16Rows {
  using Io = __half2;
  // The line x its own scale (its largest component -> kHalfStorageTarget), 1 / scale to
  // row_factor[line], the largest component to *max_bits.
  template <int N, int E>
  __device__ static void store_spectrum(const C32 (&v)[E], Io* out, int line, bool active, int tid, float* row_factor,
                                        unsigned* max_bits) {
    constexpr int T = N / E;
    const float m = line_max_component<N>(v);
    if (!active) return;
    const float sc = fft::half_storage_scale(m);
    if (tid == 0) {
      row_factor[line] = 1.0f / sc;
      fft::atomic_max_nonnegative(max_bits, m);
    }
#pragma unroll
    for (int q = 0; q < E; ++q) fft::store_scaled(out + static_cast<std::size_t>(line) * N + tid + q * T, v[q], sc);
  }
  // Pass 3's input undone with the factor computed from *spectrum_max_bits as pass 2 computed it.
  __device__ static float load_factor(int lines, const unsigned* spectrum_max_bits) {
    return 1.0f / fft::half_storage_scale(fft::half_column_fft_gain(lines) * fft::read_max_nonnegative(spectrum_max_bits));
  }
  // Every output component is at most sqrt(2) max|x| sum|w| weight (x the IFFT's row, w the interpolation
  // weights): the line's scale follows from that bound, known before the first output, so each output is
  // stored as soon as it is computed (holding the line's outputs to find their largest spilled
  // registers). The bound exceeds the outputs' largest component by a few times at most, a couple of
  // FP16's 30 normal binades. 1 / scale to row_factor[k].
  template <int N, int E>
  __device__ static float doppler_row_scale(const C32 (&v)[E], const core::DopplerRow& row, const SincTableView& sinc,
                                            const AzimuthBandView& band, bool active, int k, int tid,
                                            float* row_factor) {
    const float m = line_max_component<N>(v);
    const float weight =
        band.column_shift == nullptr ? fabsf(static_cast<float>(row.weight)) : band.window_max * band.inv_lines;
    const float out_scale = fft::half_storage_scale(m * 1.41421357f * sinc.abs_sum_max * weight);
    if (active && tid == 0) row_factor[k] = 1.0f / out_scale;
    return out_scale;
  }
  __device__ static void store(Io* p, C32 x, float scale) { fft::store_scaled(p, x, scale); }
  // Pass 3's row k is all zeros: the factor doppler_row_scale gives such a row (a zero bound scales by 1).
  __device__ static void mark_zero_row(int k, float* row_factor) { row_factor[k] = 1.0f; }
};

}  // namespace sarfuse::cuda::steps
