// The row kernels as templates, shared by the .cu files that launch them (range_kernels.cu,
// range_spectrum.cu, range_half.cu, range_doppler_rows.cu: split so the many size x sample type x mode
// instantiations compile in parallel). One thread group of N/E threads per line (several lines per block
// for short lines); the line lives in registers and padded shared memory from load to store. Internal
// to those files (an unnamed namespace: each instantiates what it launches).
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/storage.cuh"
#include "cuda/kernels.hpp"

namespace sarfuse::cuda {

using fft::BlockShape;
using fft::C32;
using fft::to_c32;
using fft::to_float2;

namespace {

// The device type of one raw sample of type S.
template <SampleType S>
using RawSample = std::conditional_t<S == SampleType::complex64, float2,
                                     std::conditional_t<S == SampleType::complex128, double2,
                                                        std::conditional_t<S == SampleType::int8_iq, char2, short2>>>;

// Sample `index` of raw data of type S, converted to float.
template <SampleType S>
__device__ __forceinline__ C32 load_raw(const void* raw, std::size_t index) {
  const RawSample<S>* p = static_cast<const RawSample<S>*>(raw) + index;
  if constexpr (S == SampleType::complex64) {
    return to_c32(__ldg(p));
  } else if constexpr (S == SampleType::int8_iq) {
    const char2 c = *p;
    return {static_cast<float>(c.x), static_cast<float>(c.y)};
  } else {
    const RawSample<S> c = __ldg(p);
    return {static_cast<float>(c.x), static_cast<float>(c.y)};
  }
}

// Pulls the line kPrefetchBlocks blocks later into L2 (128-byte lines spread over the group's threads),
// after this group's own loads are issued, so the block that reads it waits on L2 rather than DRAM.
// Blocks start in order, so a fixed distance ahead is a fixed lead in time; 32 blocks is a few
// microseconds and a few MB of L2, where a whole wave ahead evicted the lines before their use
// (docs/performance.md, "Choices made from measurements").
constexpr int kPrefetchBlocks = 32;
template <int N>
__device__ __forceinline__ void prefetch_ahead_l2(const void* base, int line, int lines, std::size_t line_bytes,
                                                      int tid) {
  const int ahead = kPrefetchBlocks * BlockShape<N>::lines;
  if (line + ahead >= lines) return;
  const char* p = static_cast<const char*>(base) + static_cast<std::size_t>(line + ahead) * line_bytes;
  for (std::size_t b = static_cast<std::size_t>(tid) * 128; b < line_bytes; b += static_cast<std::size_t>(N / fft::kElems<N>) * 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + b));
}

// Which line of the launch this thread group owns, and its slice of shared memory.
template <int N>
struct LineSlot {
  int tid, line;
  bool active;
  C32* s;
  __device__ LineSlot(C32* smem, int lines)
      : tid(threadIdx.x),
        line(static_cast<int>(blockIdx.x) * BlockShape<N>::lines + static_cast<int>(threadIdx.y)),
        active(line < lines),
        s(smem + threadIdx.y * fft::smem_size(N)) {}
};

// The fused kernel keeps two FFTs' worth of live state: it gets the whole register file (one block
// per multiprocessor at 512+ threads) rather than spilling.
template <int N, bool Fused>
constexpr int range_min_blocks = Fused && BlockShape<N>::threads * BlockShape<N>::lines >= 512 ? 1 : BlockShape<N>::min_blocks;

// Out: float2, or __half2 for FP16 storage (range spectrum only): then each line is stored with its own
// power-of-two scale, 1 / scale to row_factor[line], and the largest component to *max_bits.
template <int N, SampleType S, bool Fused, class Out = float2, bool HalfMath = false, bool Tensor = false>
__global__ void __launch_bounds__(BlockShape<N>::threads * BlockShape<N>::lines, range_min_blocks<N, Fused>)
    range_kernel(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                 const float2* __restrict__ tw, Out* __restrict__ out, int out_cols, int out_pitch,
                 float* __restrict__ row_factor = nullptr, unsigned* __restrict__ max_bits = nullptr) {
  extern __shared__ __align__(32) C32 smem[];  // 32 bytes: tensor-core loads
  constexpr int E = fft::kElems<N>, T = N / E;
  const LineSlot<N> slot(smem, lines);
  const int tid = slot.tid, line = slot.line;
  const bool active = slot.active;
  C32* s = slot.s;
  C32 v[E];
  // Coalesced loads straight into the first pass's registers; zero padding happens here. One base
  // index, so each load's address is the base plus a constant (per-load 64-bit addresses spilled).
  const std::size_t base = static_cast<std::size_t>(line) * nr + tid;
#pragma unroll
  for (int q = 0; q < E; ++q)
    v[q] = (active && tid + q * T < nr) ? load_raw<S>(raw, base + q * T) : C32{0.f, 0.f};
  prefetch_ahead_l2<N>(raw, line, lines, static_cast<std::size_t>(nr) * sizeof(RawSample<S>), tid);
  if constexpr (HalfMath) {  // --precision fp16: the butterflies in FP16 arithmetic
    __shared__ float red_fft[32 * BlockShape<N>::lines];
    fft::block_fft_forward_fp16<N, E>(v, s, tw, tid, [&](float x) { return fft::line_group_max<T>(x, red_fft); });
  } else {
    fft::block_fft_forward<N, E, float, Tensor>(v, s, tw, tid);
  }
  if constexpr (Fused) {
    // x H, then the inverse FFT as conj(FFT(conj(.))): the data never leave the chip.
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q] * to_c32(__ldg(filter + tid + q * T)));
    fft::block_fft_forward<N>(v, s, tw, tid);
    if (!active) return;
#pragma unroll
    for (int q = 0; q < E; ++q) {
      const int col = tid + q * T;
      if (col < out_cols) out[static_cast<std::size_t>(line) * out_pitch + col] = to_float2(fft::conj(v[q]));
    }
  } else if constexpr (std::is_same_v<Out, __half2>) {
    __shared__ float red[32 * BlockShape<N>::lines];
    float m = 0.0f;
#pragma unroll
    for (int q = 0; q < E; ++q) {
      v[q] = v[q] * to_c32(__ldg(filter + tid + q * T));
      m = fmaxf(m, fft::max_component(v[q]));
    }
    m = fft::line_group_max<T>(m, red);
    if (!active) return;
    const float sc = fft::half_storage_scale(m);
    if (tid == 0) {
      row_factor[line] = 1.0f / sc;
      fft::atomic_max_nonnegative(max_bits, m);
    }
#pragma unroll
    for (int q = 0; q < E; ++q) fft::store_scaled(out + static_cast<std::size_t>(line) * N + tid + q * T, v[q], sc);
  } else {
    if (!active) return;
#pragma unroll
    for (int q = 0; q < E; ++q) {
      const int col = tid + q * T;
      out[static_cast<std::size_t>(line) * N + col] = to_float2(v[q] * to_c32(__ldg(filter + col)));
    }
  }
}

// ---- four-step range compression for lines longer than one block holds (N = N1 x N2, N2 <= 16384) ----
// With n = n1 N2 + n2 and k = k1 + N1 k2:  X[k] = sum_n2 W_N2^(n2 k2) W_N^(n2 k1) sum_n1 x[n] W_N1^(n1 k1).
// Pass A: the N1-point DFT down each column n2 (in registers, N1 <= 16), x W_N^(n2 k1), stored at row
//         k1 of an N1 x N2 scratch matrix.
// Pass B: per row k1: FFT_N2 (now X[k1 + N1 k2] sits at column k2), x the filter in that order, conj,
//         FFT_N2 again and x W_N^(b k1): the first half of the inverse FFT of the same decomposition
//         read backwards (k as the input index, n = N2 a + b as the output).
// Pass C: the N1-point DFT down each column b, conj: y[N2 a + b], natural order.
// Three passes over the scratch instead of one, but every access is coalesced and every FFT on chip.
template <int N1, SampleType S>
__global__ void four_step_columns_in_kernel(const void* __restrict__ raw, int lines, int nr, int n2,
                                            const float2* __restrict__ tw_n, float2* __restrict__ scratch) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * n2) return;
  const int line = static_cast<int>(i / n2), c = static_cast<int>(i % n2);
  C32 x[N1];
#pragma unroll
  for (int r = 0; r < N1; ++r) {
    const int col = r * n2 + c;
    x[r] = col < nr ? load_raw<S>(raw, static_cast<std::size_t>(line) * nr + col) : C32{0.f, 0.f};
  }
  fft::dft<N1>(x);
  float2* dst = scratch + static_cast<std::size_t>(line) * N1 * n2 + c;
#pragma unroll
  for (int k1 = 0; k1 < N1; ++k1) dst[static_cast<std::size_t>(k1) * n2] = to_float2(x[k1] * to_c32(__ldg(tw_n + c * k1)));
}

template <int N>
__global__ void __launch_bounds__(BlockShape<N>::threads * BlockShape<N>::lines, range_min_blocks<N, true>)
    four_step_rows_kernel(float2* __restrict__ scratch, int rows, int n1, const float2* __restrict__ filter,
                          const float2* __restrict__ tw, const float2* __restrict__ tw_n) {
  extern __shared__ __align__(32) C32 smem[];  // 32 bytes: tensor-core loads
  constexpr int E = fft::kElems<N>, T = N / E;
  const LineSlot<N> slot(smem, rows);
  const int tid = slot.tid, row = slot.line, k1 = row % n1;
  const bool active = slot.active;
  float2* line = scratch + static_cast<std::size_t>(active ? row : 0) * N;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = active ? to_c32(line[tid + q * T]) : C32{0.f, 0.f};
  fft::block_fft_forward<N>(v, slot.s, tw, tid);
  const float2* h = filter + static_cast<std::size_t>(k1) * N;
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q] * to_c32(__ldg(h + tid + q * T)));
  fft::block_fft_forward<N>(v, slot.s, tw, tid);
  if (!active) return;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const int b = tid + q * T;
    line[b] = to_float2(v[q] * to_c32(__ldg(tw_n + b * k1)));
  }
}

template <int N1>
__global__ void four_step_columns_out_kernel(const float2* __restrict__ scratch, int lines, int n2,
                                             float2* __restrict__ out, int out_cols, int out_pitch) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * n2) return;
  const int line = static_cast<int>(i / n2), b = static_cast<int>(i % n2);
  const float2* src = scratch + static_cast<std::size_t>(line) * N1 * n2 + b;
  C32 x[N1];
#pragma unroll
  for (int k1 = 0; k1 < N1; ++k1) x[k1] = to_c32(src[static_cast<std::size_t>(k1) * n2]);
  fft::dft<N1>(x);
#pragma unroll
  for (int a = 0; a < N1; ++a) {
    const int col = a * n2 + b;
    if (col < out_cols) out[static_cast<std::size_t>(line) * out_pitch + col] = to_float2(fft::conj(x[a]));
  }
}

// exp(j phase) for a float64 phase of any size: reduced modulo 2 pi in float64 first. (Through
// unit_phasor_halfturns, phase / pi, the chain measured 3.59e-7 instead of 3.54e-7 vs fp64: kept apart.)
__device__ __forceinline__ C32 unit_phasor(double phase) {
  const double two_pi = 6.283185307179586476925286766559, inv_two_pi = 0.15915494309189533576888376337251;
  const float reduced = static_cast<float>(phase - two_pi * rint(phase * inv_two_pi));
  float sn, cs;
  sincosf(reduced, &sn, &cs);
  return {cs, sn};
}

// exp(j pi x) for a float64 phase x in half-turns, reduced modulo one turn in float64 first.
__device__ __forceinline__ C32 unit_phasor_halfturns(double x) {
  float sn, cs;
  sincospif(static_cast<float>(x - 2.0 * rint(0.5 * x)), &sn, &cs);
  return {cs, sn};
}

// The SRC factors exp(-j pi Q m^2) (Q = src_inverse_rate df^2; m the signed range-frequency bin) of the
// E bins tid + q T a thread holds, q < E, bins at and above N/2 negative (m - N). With m = tid + k T,
// Q m^2 = Q tid^2 + 2 Q T tid k + Q T^2 k^2: a per-thread anchor, the k-th power of a per-thread step
// (from its powers 1, 2, 4 and 8, each evaluated directly), and the line's table of the k^2 term
// (chirp[k + 8], |k| <= 8): five sincospi per thread instead of E, a handful of roundings per factor.
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
};

// The SRC factor of range-frequency bin m of n alone (the unfused baseline's per-element pass).
__device__ __forceinline__ C32 src_factor(int m, int n, double q, double df) {
  const double f = static_cast<double>(m < n / 2 ? m : m - n) * df;
  return unit_phasor_halfturns(-q * f * f);
}

// Windowed-sinc interpolation of a row at fixed-point position p (core::fixed_position): taps from
// row_at(i0 + t), i0 = floor(p) - taps / 2 + 1, the weights blended from the table row around the
// fraction (core::sinc_blend_table: a row's weights, then the next row's minus them). Taps == 8 is the
// default kernel, unrolled, each table row as four 16-byte loads; `i0` lets the caller wrap floor(p).
template <int Taps, class RowAt>
__device__ __forceinline__ C32 rcmc_taps(RowAt row_at, int i0, const float* __restrict__ table, int row, float blend,
                                         int taps) {
  C32 acc{0.f, 0.f};
  if constexpr (Taps == 8) {
    const float4* w4 = reinterpret_cast<const float4*>(table + static_cast<std::size_t>(row) * 16);
    const float4 a0 = __ldg(w4), a1 = __ldg(w4 + 1), d0 = __ldg(w4 + 2), d1 = __ldg(w4 + 3);
    const float wa[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
    const float wd[8] = {d0.x, d0.y, d0.z, d0.w, d1.x, d1.y, d1.z, d1.w};
#pragma unroll
    for (int t = 0; t < 8; ++t) {
      const C32 x = row_at(i0 + t);
      const float wt = fmaf(blend, wd[t], wa[t]);
      acc.re = fmaf(x.re, wt, acc.re);
      acc.im = fmaf(x.im, wt, acc.im);
    }
  } else {
    const float* w = table + static_cast<std::size_t>(row) * 2 * taps;
    for (int t = 0; t < taps; ++t) {
      const C32 x = row_at(i0 + t);
      const float wt = fmaf(blend, __ldg(w + taps + t), __ldg(w + t));
      acc.re = fmaf(x.re, wt, acc.re);
      acc.im = fmaf(x.im, wt, acc.im);
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
  return sinc.taps == 8 ? rcmc_taps<8>(row_at, i0, sinc.weights, row, blend, 8)
                        : rcmc_taps<0>(row_at, i0, sinc.weights, row, blend, sinc.taps);
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

// The azimuth filter's weight of column c of a Doppler row.
__device__ __forceinline__ float band_weight(const core::DopplerRow& row, int c, const AzimuthBandView& band) {
  if (band.column_shift == nullptr) return static_cast<float>(row.weight);
  const float x = static_cast<float>(row.band_x) - __ldg(band.column_shift + c);
  return core::window_lerp(band.window, band.intervals, x) * band.inv_lines;
}

// Io: float2, or __half2 for FP16 storage: the row arrives scaled by pass 2 (undone with the factor
// computed from *spectrum_max_bits as pass 2 computed it) and leaves with its own power-of-two scale,
// 1 / scale to row_factor[k].
template <int N, class Io = float2, bool HalfMath = false, bool Tensor = false>
__global__ void __launch_bounds__(BlockShape<N>::threads * BlockShape<N>::lines, BlockShape<N>::min_blocks)
    range_doppler_kernel(Io* __restrict__ work, int lines, int nr, const core::DopplerRow* __restrict__ rows,
                         double df, SincTableView sinc, AzimuthBandView band, const float2* __restrict__ tw,
                         const unsigned* __restrict__ spectrum_max_bits = nullptr, float* __restrict__ row_factor = nullptr) {
  extern __shared__ __align__(32) C32 smem[];  // 32 bytes: tensor-core loads
  constexpr int E = fft::kElems<N>, T = N / E;
  constexpr bool kHalf = std::is_same_v<Io, __half2>;
  const LineSlot<N> slot(smem, lines);
  const int tid = slot.tid, k = slot.line;
  const bool active = slot.active;
  C32* s = slot.s;
  const core::DopplerRow row = active ? rows[k] : core::DopplerRow{};
  // The azimuth phasor of output c + i T is that of c times exp(j az_phase_step i T): the line's E
  // steps in float64 once, instead of a float64 phase and a sincos per output. (Read after the FFT's
  // barriers.)
  __shared__ C32 az_step[BlockShape<N>::lines][E];
  if (tid < E) az_step[threadIdx.y][tid] = unit_phasor(row.az_phase_step * (static_cast<double>(T) * tid));
  Io* line = work + static_cast<std::size_t>(active ? k : 0) * N;
  float in_factor = 1.0f;
  if constexpr (kHalf)
    in_factor = 1.0f / fft::half_storage_scale(fft::half_column_fft_gain(lines) *
                                               fft::read_max_nonnegative(spectrum_max_bits));
  // Every load first and unconditionally (an inactive line reads row 0 and never stores): loads behind
  // a branch were issued one at a time, each waited for (16 global-memory latencies per line).
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::load_scaled(line + tid + q * T, in_factor);
  prefetch_ahead_l2<N>(work, k, lines, static_cast<std::size_t>(N) * sizeof(Io), tid);
  __shared__ C32 src_chirp[BlockShape<N>::lines][16];
  const double q_df2 = row.src_inverse_rate * df * df;
  SrcFactors<N, E>::fill_chirp(src_chirp[threadIdx.y], tid, q_df2);
  __syncthreads();
  if (row.src_inverse_rate != 0.0) {
    const SrcFactors<N, E> src(tid, q_df2);
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = v[q] * src.factor(tid, q, src_chirp[threadIdx.y]);
  }
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::conj(v[q]);
  if constexpr (HalfMath) {  // --precision fp16: the butterflies in FP16 arithmetic
    __shared__ float red_fft[32 * BlockShape<N>::lines];
    fft::block_fft_forward_fp16<N, E>(v, s, tw, tid, [&](float x) { return fft::line_group_max<T>(x, red_fft); });
  } else {
    fft::block_fft_forward<N, E, float, Tensor>(v, s, tw, tid);  // with the conj around it: the range IFFT
  }
  // FP16 storage: every output component is at most sqrt(2) max|x| sum|w| weight (x the IFFT's row, w
  // the interpolation weights): the line's scale follows from that bound, known before the first output,
  // so each output is stored as soon as it is computed (holding the line's outputs to find their largest
  // spilled registers). The bound exceeds the outputs' largest component by a few times at most, a
  // couple of FP16's 30 normal binades.
  float out_scale = 1.0f;
  if constexpr (kHalf) {
    __shared__ float red[32 * BlockShape<N>::lines];
    float m = 0.0f;
#pragma unroll
    for (int q = 0; q < E; ++q) m = fmaxf(m, fft::max_component(v[q]));
    m = fft::line_group_max<T>(m, red);
    const float weight = band.column_shift == nullptr ? fabsf(static_cast<float>(row.weight))
                                                      : band.window_max * band.inv_lines;
    out_scale = fft::half_storage_scale(m * 1.41421357f * sinc.abs_sum_max * weight);
    if (active && tid == 0) row_factor[k] = 1.0f / out_scale;
  }
  __syncthreads();                             // the FFT's last reads of s are done
  // The RCMC reads the row unpadded, from s + kGuard: consecutive threads read consecutive samples
  // (conflict-free without the FFT's padding), and samples -3..-1 and N..N+3 repeat the row's other
  // end, so an 8-tap window at any wrapped floor in [0, N) is eight loads at constant offsets.
  constexpr int kGuard = 8 / 2 - 1;  // an 8-tap window at floor f reads f - kGuard .. f + kGuard + 1
  C32* row_lin = s + kGuard;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const int j = tid + q * T;
    const C32 x = fft::conj(v[q]);
    row_lin[j] = x;
    if (q == 0 && j <= kGuard) row_lin[N + j] = x;
    if (q == E - 1 && j >= N - kGuard) row_lin[j - N] = x;
  }
  __syncthreads();
  if (!active) return;
  // Output c = tid + i T reads position rcmc_offset + rcmc_slope c: a fixed-point walk per thread.
  std::int64_t p = core::fixed_position(row.rcmc_offset + row.rcmc_slope * tid);
  const std::int64_t p_step = core::fixed_position(row.rcmc_slope * T);
  const bool shifted_band = band.column_shift != nullptr;
  const C32 az0 = fft::scale(unit_phasor(row.az_phase0 + row.az_phase_step * tid),
                             shifted_band ? 1.0f : static_cast<float>(row.weight));
  const C32* step = az_step[threadIdx.y];
#pragma unroll
  for (int i = 0; i < E; ++i, p += p_step) {  // nr <= N: at most E outputs per thread
    const int c = tid + i * T;
    if (c >= nr) break;
    C32 out{0.f, 0.f};
    if (row.weight != 0.0) {
      float blend;
      const int trow = core::fixed_row_blend(p, sinc.fractions, blend);
      const C32 acc =
          sinc.taps == 8
              ? rcmc_taps<8>([row_lin](int k) { return row_lin[k]; }, wrap_index<N>(core::fixed_floor(p)) - kGuard,
                             sinc.weights, trow, blend, 8)
              : rcmc_taps<0>([row_lin](int k) { return row_lin[wrap_index<N>(k)]; },
                             core::fixed_floor(p) - sinc.taps / 2 + 1, sinc.weights, trow, blend, sinc.taps);
      C32 ph = az0 * step[i];
      if (shifted_band) ph = fft::scale(ph, band_weight(row, c, band));
      out = acc * ph;
    }
    if constexpr (kHalf) fft::store_scaled(line + c, out, out_scale);
    else line[c] = to_float2(out);
  }
}

template <int N>
void set_smem(const void* kernel) {
  SARFUSE_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, BlockShape<N>::smem_bytes));
}

template <int N>
dim3 grid_for(int lines) {
  return dim3(static_cast<unsigned>((lines + BlockShape<N>::lines - 1) / BlockShape<N>::lines));
}
template <int N>
dim3 block_for() {
  return dim3(BlockShape<N>::threads, BlockShape<N>::lines);
}

// Sizes whose radix-16 passes can run on the tensor cores (whole warps per line, FP32 staging).
template <int N>
constexpr bool tensor_runs = fft::is_pow2(N) && N >= 512;

// Calls go.template operator()<true>() for the tensor-core kernels (--precision tf32x3) or <false>();
// a size the tensor path cannot run is an Error.
template <int N, class Go>
void with_tensor_flag(bool tensor, Go&& go) {
  if constexpr (tensor_runs<N>) {
    if (tensor) return go.template operator()<true>();
  }
  if (tensor) throw Error("--precision tf32x3: range FFT length " + std::to_string(N) + " is not a power of two in 512..16384");
  go.template operator()<false>();
}

// Calls go.template operator()<true>() for FP16 butterflies (--precision fp16, powers of two only) or
// <false>() (FP32 butterflies on FP16 rows: --precision fp16-storage, any row size).
template <int N, class Go>
void with_half_math_flag(bool half_math, Go&& go) {
  if constexpr (fft::is_pow2(N)) {
    if (half_math) return go.template operator()<true>();
  }
  if (half_math) throw Error("--precision fp16: range FFT length " + std::to_string(N) + " is not a power of two");
  go.template operator()<false>();
}

// The row kernels' sizes (fft::dispatch_pow2).
template <class F>
void dispatch_size(int n, F&& f) {
  fft::dispatch_pow2<256, 16384>(n, "CUDA FFT: size", f);
}
// The FP32 chain's row kernels (passes 1 and 3) also take the nice lengths.
template <class F>
void dispatch_row_size(int n, F&& f) {
  if (!fft::dispatch_nice(n, f)) dispatch_size(n, f);
}

template <class F>
void dispatch_type(SampleType t, F&& f) {
  switch (t) {
    case SampleType::complex64: f.template operator()<SampleType::complex64>(); break;
    case SampleType::complex128: f.template operator()<SampleType::complex128>(); break;
    case SampleType::int8_iq: f.template operator()<SampleType::int8_iq>(); break;
    case SampleType::int16_iq: f.template operator()<SampleType::int16_iq>(); break;
  }
}

}  // namespace

}  // namespace sarfuse::cuda
