// Pass 3 of the RDA (range_doppler_kernel: x SRC, range IFFT, RCMC, x azimuth filter) taken apart at the
// range FFT lengths the bench's scenes take (10240 for 8192 x 8192, 5120 for 4096 x 4096): the product
// kernel beside variants of its RCMC's memory traffic, on the bench's own squinted geometry (its
// DopplerRow table, sinc table and twiddles from the library), every output compared with the
// product's. "interleaved" is the sinc table's layout before stop 41 (each row's weights, then the next
// row's minus them: 128 KB); "compact" the rows alone (stops 41-47); the product reads the quad-major
// form since stop 48 (core::sinc_table_fp32). Built here against the library, run on the GPU machine:
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr -lineinfo \
//     scripts/experiments/pass3_variants.cu build/libsarfuse.a -lfftw3f_threads -lfftw3_threads -lfftw3f -lfftw3 \
//     -o p3v && ./p3v LINES COLS NFFT
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/filters.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/range_pass_kernels.cuh"
#include "sarfuse/params.hpp"
#include "all_register_fft.cuh"

using namespace sarfuse;
using namespace sarfuse::cuda;
using fft::C32;

namespace p3x {

// The table's layout before stop 41: row r's FP32 weights, then row r+1's minus them (fractions x 2 taps).
std::vector<float> interleaved_table(const core::SincTable& table) {
  const std::size_t taps = static_cast<std::size_t>(table.taps);
  std::vector<float> out(static_cast<std::size_t>(table.fractions) * 2 * taps);
  for (std::size_t r = 0; r < static_cast<std::size_t>(table.fractions); ++r)
    for (std::size_t i = 0; i < taps; ++i) {
      const float a = static_cast<float>(table.weights[r * taps + i]);
      const float b = static_cast<float>(table.weights[(r + 1) * taps + i]);
      out[r * 2 * taps + i] = a;
      out[r * 2 * taps + taps + i] = b - a;
    }
  return out;
}

template <class T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& h) {
  d.resize(h.size());
  SARFUSE_CUDA(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// What a variant changes (bit flags).
enum : int {
  kRowsNoL1 = 1,         // the row's loads bypass L1 (ld.global.L1::no_allocate): L1 keeps the sinc table
  kWeightsAhead = 2,     // the next output's weights loaded before this output's taps are summed
  kWeightsPrefetch = 4,  // the next output's table row prefetched into L1 (prefetch.global.L1)
  kTableEvictLast = 8,   // the table's loads marked L1::evict_last
  kCompactTable = 16,    // the table as (fractions + 1) rows of taps weights (half the bytes): the difference
                         // to the next row made by one subtraction (as the product does now)
  kRowRecordAhead = 32,  // the DopplerRow record kPrefetchBlocks blocks ahead pulled into L2
  kPairedRow = 64,       // the staged row twice, the second shifted by one sample and 64 bytes over in the
                         // banks, so the 8 taps are four 16-byte loads (two samples each) from whichever
                         // copy has them 16-byte aligned
  kAllRegisterPasses = 256,  // E = 256-thread lines' points (36 at 9216, 40 at 10240): the power-of-two part in
                             // passes of the largest radix dividing E (4, 8), the odd one last, every pass on
                             // the registers; registers for two blocks a SM (16 warps)
  kQuadMajor = 512,      // the compact table's 8 taps as two planes of float4 (taps 0-3 of every row, then
                         // taps 4-7): a warp's lanes, whose rows differ, read 16 bytes a row apart
                         // instead of 32, so each load touches fewer L1 lines
  kAdjacentPairs = 128,  // a thread makes the adjacent outputs c, c + 1 (c = 2 tid + 2 i T) from 10 shared
                         // loads instead of 16 (their windows overlap by 6..8 taps), one 16-byte store
};

// kPairedRow's second copy: B[i] = A[i + 1] (A = the staged row at s + kGuard), B at s + N + 11 (N a
// multiple of 16): B - A = N + 8 samples, so A + i0 and B + i0 - 1 have the same alignment and sit 64
// bytes apart modulo the 128 bytes of the banks.
template <int N>
constexpr int paired_offset = N + 11;
template <int N>
constexpr int paired_smem_bytes = (paired_offset<N> + N + 3) * 8;

template <int N, int E>
__device__ __forceinline__ const C32* stage_paired(C32* s, const C32 (&v)[E], int tid) {
  constexpr int T = N / E, G = steps::StagedRow<N>::kGuard;
  C32* a = s + G;
  C32* b = s + paired_offset<N>;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const int j = tid + q * T;
    const C32 x = fft::conj(v[q]);
    a[j] = x;
    b[j - 1] = x;
    if (q == 0 && j <= G) a[N + j] = x, b[N + j - 1] = x;
    if (q == E - 1 && j >= N - G) a[j - N] = x, b[j - N - 1] = x;
  }
  return a;
}
// The 8 taps from A + i0 or B + i0 - 1, whichever is 16-byte aligned (s is).
template <int N>
__device__ __forceinline__ C32 taps8_paired(const C32* a, int i0, float4 a0, float4 a1, float4 d0, float4 d1,
                                            float blend) {
  constexpr int G = steps::StagedRow<N>::kGuard;
  const C32* p = ((G + i0) & 1) == 0 ? a + i0 : a - G + paired_offset<N> + i0 - 1;
  const float4* p4 = reinterpret_cast<const float4*>(p);
  const float wa[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
  const float wd[8] = {d0.x, d0.y, d0.z, d0.w, d1.x, d1.y, d1.z, d1.w};
  C32 acc{0.f, 0.f};
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const float4 x = p4[t];
    const float w0 = fmaf(blend, wd[2 * t], wa[2 * t]), w1 = fmaf(blend, wd[2 * t + 1], wa[2 * t + 1]);
    acc.re = fmaf(x.x, w0, acc.re);
    acc.im = fmaf(x.y, w0, acc.im);
    acc.re = fmaf(x.z, w1, acc.re);
    acc.im = fmaf(x.w, w1, acc.im);
  }
  return acc;
}

__device__ __forceinline__ float2 load_no_l1(const float2* p) {
  float2 r;
  asm volatile("ld.global.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "l"(p));
  return r;
}
__device__ __forceinline__ float4 load_table(const float4* p, bool evict_last) {
  if (!evict_last) return __ldg(p);
  float4 r;
  asm("ld.global.nc.L1::evict_last.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
      : "l"(p));
  return r;
}

struct Weights {
  float4 a0, a1, d0, d1;
};
template <bool Compact = false>
__device__ __forceinline__ Weights load_weights(const float* table, int row, bool evict_last) {
  const float4* w4 = reinterpret_cast<const float4*>(table + static_cast<std::size_t>(row) * (Compact ? 8 : 16));
  Weights w{load_table(w4, evict_last), load_table(w4 + 1, evict_last), load_table(w4 + 2, evict_last),
            load_table(w4 + 3, evict_last)};
  if constexpr (Compact) {  // d = next row - this row, in FP32 as the blend table holds it
    w.d0 = make_float4(w.d0.x - w.a0.x, w.d0.y - w.a0.y, w.d0.z - w.a0.z, w.d0.w - w.a0.w);
    w.d1 = make_float4(w.d1.x - w.a1.x, w.d1.y - w.a1.y, w.d1.z - w.a1.z, w.d1.w - w.a1.w);
  }
  return w;
}
// kQuadMajor: plane q (taps 4q..4q+3) of row r at float4 q (fractions + 1) + r.
__device__ __forceinline__ Weights load_weights_quad(const float* table, int row, int fractions) {
  const float4* w4 = reinterpret_cast<const float4*>(table);
  const int plane = fractions + 1;
  Weights w{__ldg(w4 + row), __ldg(w4 + plane + row), __ldg(w4 + row + 1), __ldg(w4 + plane + row + 1)};
  w.d0 = make_float4(w.d0.x - w.a0.x, w.d0.y - w.a0.y, w.d0.z - w.a0.z, w.d0.w - w.a0.w);
  w.d1 = make_float4(w.d1.x - w.a1.x, w.d1.y - w.a1.y, w.d1.z - w.a1.z, w.d1.w - w.a1.w);
  return w;
}
__device__ __forceinline__ C32 taps8(const C32* r, int i0, const Weights& w, float blend) {
  const float wa[8] = {w.a0.x, w.a0.y, w.a0.z, w.a0.w, w.a1.x, w.a1.y, w.a1.z, w.a1.w};
  const float wd[8] = {w.d0.x, w.d0.y, w.d0.z, w.d0.w, w.d1.x, w.d1.y, w.d1.z, w.d1.w};
  C32 acc{0.f, 0.f};
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    const C32 x = r[i0 + t];
    const float wt = fmaf(blend, wd[t], wa[t]);
    acc.re = fmaf(x.re, wt, acc.re);
    acc.im = fmaf(x.im, wt, acc.im);
  }
  return acc;
}

// kAdjacentPairs: the row staged with 3 samples of guard before it and 7 after (the pair's window
// reaches floor(p) + 6), then outputs c0 = 2 tid + 2 i T and c0 + 1 per step. The pair's floors differ
// by d in {0, 1, 2} (the slope is 1 +- 1e-3), so the second output's taps are the 10 loaded ones from d.
template <int N, int E, int V>
__device__ __forceinline__ void adjacent_pairs(C32* s, const C32 (&v)[E], int tid, bool active,
                                               const core::DopplerRow& row, const AzimuthBandView& band,
                                               const SincTableView& sinc, int nr, float2* line, C32* az_steps) {
  constexpr int T = N / E, G = 3;
  static_assert(E % 2 == 0 && T > 7, "pairs");
  __syncthreads();  // the FFT's last reads of s are done
  C32* a = s + G;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const int j = tid + q * T;
    const C32 x = fft::conj(v[q]);
    a[j] = x;
    if (q == 0 && j <= 6) a[N + j] = x;
    if (q == E - 1 && j >= N - G) a[j - N] = x;
  }
  // The pairs' azimuth phasors: outputs 2 tid + 2 i T from a 2T-spaced table, the second x exp(j step).
  using Pairs = steps::AzimuthFilter<N, E / 2>;
  __syncthreads();
  if (!active) return;
  const Pairs azimuth(row, 2 * tid, band, az_steps);  // az_steps filled for E / 2 entries at 2T (below)
  const C32 unit = steps::unit_phasor(row.az_phase_step);
  std::int64_t p = core::fixed_position(row.rcmc_offset + row.rcmc_slope * (2 * tid));
  const std::int64_t p_step = core::fixed_position(row.rcmc_slope * (2 * T));
  const std::int64_t p_unit = core::fixed_position(row.rcmc_slope);
#pragma unroll
  for (int i = 0; i < E / 2; ++i, p += p_step) {
    const int c = 2 * tid + 2 * i * T;
    if (c >= nr) break;
    float b0, b1;
    const int r0 = core::fixed_row_blend(p, sinc.fractions, b0);
    const int r1 = core::fixed_row_blend(p + p_unit, sinc.fractions, b1);
    const int f0 = core::fixed_floor(p), d = core::fixed_floor(p + p_unit) - f0;
    const int i0 = steps::wrap_index<N>(f0) - G;
    C32 x[10];
#pragma unroll
    for (int t = 0; t < 10; ++t) x[t] = a[i0 + t];
    const Weights w0 = load_weights<true>(sinc.weights, r0, false), w1 = load_weights<true>(sinc.weights, r1, false);
    const C32 o0 = taps8(x, 0, w0, b0);
    C32 xs[8];
#pragma unroll
    for (int t = 0; t < 8; ++t) xs[t] = d == 0 ? x[t] : d == 1 ? x[t + 1] : x[t + 2];
    const C32 o1 = taps8(xs, 0, w1, b1);
    const C32 f = azimuth.factor(row, i, c, band);
    const C32 y0 = o0 * f, y1 = o1 * (f * unit);
    *reinterpret_cast<float4*>(line + c) = make_float4(y0.re, y0.im, y1.re, y1.im);
  }
}

// range_doppler_kernel<N, Fp32Butterflies, Fp32Rows> with the RCMC's memory traffic as V says, E points
// a thread, Buffers exchange buffers (fft::Exchange) and MinBlocks blocks a SM to hold registers for;
// the fixed band (no column shift) and 8 taps, as the bench runs. One line a block (N / E >= 256).
template <int N, int V, int E = fft::kElems<N>, int Buffers = 1, int MinBlocks = BlockShape<N>::min_blocks>
__global__ void __launch_bounds__(N / E, MinBlocks)
    pass3_variant(float2* __restrict__ work, int lines, int nr, const core::DopplerRow* __restrict__ rows, double df,
                  SincTableView sinc, AzimuthBandView band, const float2* __restrict__ tw) {
  extern __shared__ __align__(32) C32 smem[];
  constexpr int T = N / E;
  static_assert(T >= 256, "one line a block");
  using Butterflies = steps::Fp32Butterflies;
  const steps::LineSlot<N, Buffers, E, 1> slot(smem, lines);
  const int tid = slot.tid, k = slot.line;
  const bool active = slot.active;
  if constexpr ((V & kRowRecordAhead) != 0) {
    if (threadIdx.x == 0 && k + steps::kPrefetchBlocks < lines)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(rows + k + steps::kPrefetchBlocks));
  }
  const core::DopplerRow row = active ? rows[k] : core::DopplerRow{};
  __shared__ C32 az_steps[1][E];
  __shared__ C32 src_chirp[1][steps::SrcFactors<N, E>::kChirpSize];
  if constexpr ((V & kAdjacentPairs) != 0) steps::AzimuthFilter<N, E / 2>::fill_steps(az_steps[threadIdx.y], row, tid);
  else steps::AzimuthFilter<N, E>::fill_steps(az_steps[threadIdx.y], row, tid);
  float2* line = work + static_cast<std::size_t>(active ? k : 0) * N;
  C32 v[E];
  if constexpr ((V & kRowsNoL1) != 0) {
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = fft::to_c32(load_no_l1(line + tid + q * T));
  } else {
    steps::load_row<N>(v, line, tid, 1.0f);
  }
  steps::prefetch_ahead_l2<N>(work, k, lines, static_cast<std::size_t>(N) * sizeof(float2), tid);
  const double q_df2 = row.src_inverse_rate * df * df;
  steps::SrcFactors<N, E>::fill_chirp(src_chirp[threadIdx.y], tid, q_df2);
  __syncthreads();
  if (row.src_inverse_rate != 0.0) steps::SrcFactors<N, E>(tid, q_df2).apply(v, tid, src_chirp[threadIdx.y]);
  steps::conjugate(v);
  if constexpr ((V & kAllRegisterPasses) != 0) experiments::all_register_forward<N, E, 0, 1, fft::Exchange<Buffers>>(v, slot.s, tw, tid);
  else Butterflies::template forward<N, E, fft::Exchange<Buffers>>(v, slot.s, tw, tid);
  __syncthreads();
  if constexpr ((V & kAdjacentPairs) != 0) {
    adjacent_pairs<N, E, V>(slot.s, v, tid, active, row, band, sinc, nr, line, az_steps[threadIdx.y]);
    return;
  }
  constexpr bool kPaired = (V & kPairedRow) != 0;
  const C32* paired = nullptr;
  steps::StagedRow<N> staged{nullptr};
  if constexpr (kPaired) paired = stage_paired<N>(slot.s, v, tid);
  else staged = steps::StagedRow<N>::stage_conjugated(slot.s, v, tid);
  __syncthreads();
  if (!active) return;
  std::int64_t p = core::fixed_position(row.rcmc_offset + row.rcmc_slope * tid);
  const std::int64_t p_step = core::fixed_position(row.rcmc_slope * T);
  const steps::AzimuthFilter<N, E> azimuth(row, tid, band, az_steps[threadIdx.y]);
  constexpr bool kEvictLast = (V & kTableEvictLast) != 0;
  if constexpr ((V & (kWeightsAhead | kWeightsPrefetch)) == 0) {
#pragma unroll
    for (int i = 0; i < E; ++i, p += p_step) {
      const int c = tid + i * T;
      if (c >= nr) break;
      float blend;
      const int trow = core::fixed_row_blend(p, sinc.fractions, blend);
      const int i0 = steps::wrap_index<N>(core::fixed_floor(p)) - steps::StagedRow<N>::kGuard;
      Weights w;
      if constexpr ((V & kQuadMajor) != 0) w = load_weights_quad(sinc.weights, trow, sinc.fractions);
      else w = load_weights<(V & kCompactTable) != 0>(sinc.weights, trow, kEvictLast);
      C32 tapped;
      if constexpr (kPaired) tapped = taps8_paired<N>(paired, i0, w.a0, w.a1, w.d0, w.d1, blend);
      else tapped = taps8(staged.row, i0, w, blend);
      const C32 out = tapped * azimuth.factor(row, i, c, band);
      line[c] = fft::to_float2(out);
    }
  } else {
    float blend;
    int trow = core::fixed_row_blend(p, sinc.fractions, blend);
    Weights w{};
    if constexpr ((V & kWeightsAhead) != 0) w = load_weights<(V & kCompactTable) != 0>(sinc.weights, trow, kEvictLast);
#pragma unroll
    for (int i = 0; i < E; ++i, p += p_step) {
      const int c = tid + i * T;
      if (c >= nr) break;
      float next_blend = 0.f;
      const int next_row = core::fixed_row_blend(p + p_step, sinc.fractions, next_blend);
      Weights next{};
      const bool more = i + 1 < E && c + T < nr;
      if constexpr ((V & kWeightsAhead) != 0) {
        if (more) next = load_weights<(V & kCompactTable) != 0>(sinc.weights, next_row, kEvictLast);
      } else {
        if (more)
          asm volatile("prefetch.global.L1 [%0];" ::"l"(sinc.weights + static_cast<std::size_t>(next_row) * ((V & kCompactTable) ? 8 : 16)));
        w = load_weights<(V & kCompactTable) != 0>(sinc.weights, trow, kEvictLast);
      }
      const int i0 = steps::wrap_index<N>(core::fixed_floor(p)) - steps::StagedRow<N>::kGuard;
      const C32 out = taps8(staged.row, i0, w, blend) * azimuth.factor(row, i, c, band);
      line[c] = fft::to_float2(out);
      w = next;
      trow = next_row;
      blend = next_blend;
    }
  }
}

template <int N>
void launch_product(float2* work, int lines, int nr, const core::DopplerRow* rows, double df, SincTableView sinc,
                    AzimuthBandView band, const float2* tw) {
  const auto kernel = &range_doppler_kernel<N, steps::Fp32Butterflies, steps::Fp32Rows>;
  constexpr int E = doppler_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>, smem = BlockShape<N, E>::smem_bytes;
  steps::set_smem<N, 1, E>(reinterpret_cast<const void*>(kernel));
  kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), smem>>>(
      work, lines, nr, rows, df, sinc, band, tw, nullptr, nullptr);
}
template <int N, int V, int E = fft::kElems<N>, int Buffers = 1, int MinBlocks = BlockShape<N>::min_blocks>
void launch_variant(float2* work, int lines, int nr, const core::DopplerRow* rows, double df, SincTableView sinc,
                    AzimuthBandView band, const float2* tw) {
  const auto kernel = &pass3_variant<N, V, E, Buffers, MinBlocks>;
  using Slot = steps::LineSlot<N, Buffers, E, 1>;
  constexpr int smem = (V & kPairedRow) != 0 ? std::max(Slot::smem_bytes, paired_smem_bytes<N>) : Slot::smem_bytes;
  SARFUSE_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<lines, N / E, smem>>>(work, lines, nr, rows, df, sinc, band, tw);
}

// Full: every variant; else the product, its body and the 16-point shapes (the other nice lengths).
template <int N, bool Full = true>
int run(int lines, int nr, int fractions_small) {
  RadarParams radar = default_scene().radar;
  radar.doppler_centroid_hz = 0.3 * radar.prf_hz;  // the bench's squinted scene
  const core::AzimuthFilter az = core::azimuth_filter(radar, lines, nr, true, Window{}, 0.0);
  const double df = radar.range_sampling_rate_hz / static_cast<double>(N);
  DeviceBuffer<core::DopplerRow> rows;
  upload(rows, az.rows);
  const core::SincTable table = core::make_sinc_table(8);
  const core::SincTable small = core::make_sinc_table(8, fractions_small);
  DeviceBuffer<float> weights, weights_small;
  upload(weights, interleaved_table(table));
  upload(weights_small, interleaved_table(small));
  const SincTableView sinc{weights.get(), 8, table.fractions, 2.0f};
  auto compact_of = [](const core::SincTable& t) {
    std::vector<float> out(t.weights.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(t.weights[i]);
    return out;
  };
  const core::SincTable table1024 = core::make_sinc_table(8, 1024);
  DeviceBuffer<float> compact, compact_small, compact_1024;
  upload(compact, compact_of(table));
  upload(compact_small, compact_of(small));
  upload(compact_1024, compact_of(table1024));
  const SincTableView sinc_compact{compact.get(), 8, table.fractions, 2.0f};
  const SincTableView sinc_compact_small{compact_small.get(), 8, small.fractions, 2.0f};
  const SincTableView sinc_compact_1024{compact_1024.get(), 8, table1024.fractions, 2.0f};
  DeviceBuffer<float> quad_1024, quad_small;
  upload(quad_1024, core::sinc_table_fp32(table1024));  // the product's layout since stop 48
  upload(quad_small, core::sinc_table_fp32(small));
  const SincTableView sinc_quad_1024{quad_1024.get(), 8, table1024.fractions, 2.0f};
  const SincTableView sinc_quad_small{quad_small.get(), 8, small.fractions, 2.0f};
  const SincTableView sinc_small{weights_small.get(), 8, small.fractions, 2.0f};
  const AzimuthBandView band{nullptr, nullptr, core::AzimuthFilter::kWindowIntervals, 1.0f / lines, 1.0f};
  DeviceBuffer<float2> tw;
  upload(tw, fft_twiddle_table(N));
  double slope_min = 1e9, slope_max = -1e9;
  for (const auto& r : az.rows) slope_min = std::min(slope_min, r.rcmc_slope), slope_max = std::max(slope_max, r.rcmc_slope);
  std::printf("N %d, %d rows of %d outputs; rcmc_slope - 1 in [%.3g, %.3g]; table %d fractions (%zu KB)\n", N, lines,
              nr, slope_min - 1, slope_max - 1, table.fractions, table.weights.size() * 8 / 1024);

  const std::size_t count = static_cast<std::size_t>(lines) * N;
  std::vector<float2> h(count);
  std::mt19937 gen(7);
  std::normal_distribution<float> g(0.f, 1.f);
  for (auto& x : h) x = make_float2(g(gen), g(gen));
  DeviceBuffer<float2> pristine(count), work(count), reference(count), copy(count);
  SARFUSE_CUDA(cudaMemcpy(pristine.get(), h.data(), count * 8, cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  SARFUSE_CUDA(cudaEventCreate(&a));
  SARFUSE_CUDA(cudaEventCreate(&b));
  auto time = [&](auto launch, int repeats) {
    std::vector<float> ms;
    for (int r = 0; r < repeats + 3; ++r) {
      SARFUSE_CUDA(cudaMemcpyAsync(work.get(), pristine.get(), count * 8, cudaMemcpyDeviceToDevice));
      SARFUSE_CUDA(cudaEventRecord(a));
      launch();
      SARFUSE_CUDA(cudaEventRecord(b));
      SARFUSE_CUDA(cudaEventSynchronize(b));
      SARFUSE_CUDA(cudaGetLastError());
      float t;
      SARFUSE_CUDA(cudaEventElapsedTime(&t, a, b));
      if (r >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  // Copy floor of the pass's bytes: read N, write nr per row.
  const float t_copy = time([&] { SARFUSE_CUDA(cudaMemcpyAsync(copy.get(), pristine.get(), count * 8, cudaMemcpyDeviceToDevice)); }, 20);
  const double bytes = static_cast<double>(lines) * (N + nr) * 8;
  std::printf("  copy of the %.0f MB array: %.4f ms; pass floor (%.0f MB at that rate) %.4f ms\n", count * 8 / 1e6,
              t_copy, bytes / 1e6, t_copy * bytes / (2.0 * count * 8));
  const float t_product =
      time([&] { launch_product<N>(work.get(), lines, nr, rows.get(), df, sinc_quad_1024, band, tw.get()); }, 30);
  SARFUSE_CUDA(cudaMemcpy(reference.get(), work.get(), count * 8, cudaMemcpyDeviceToDevice));
  std::vector<float2> ref(count), got(count);
  SARFUSE_CUDA(cudaMemcpy(ref.data(), reference.get(), count * 8, cudaMemcpyDeviceToHost));
  std::printf("  %-40s %.4f ms\n", "product", t_product);
  int bad = 0;
  auto compare = [&](const char* name, float t, double tolerance) {
    SARFUSE_CUDA(cudaMemcpy(got.data(), work.get(), count * 8, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (int r = 0; r < lines; ++r)
      for (int c = 0; c < nr; ++c) {
        const float2 x = got[static_cast<std::size_t>(r) * N + c], y = ref[static_cast<std::size_t>(r) * N + c];
        num += (x.x - y.x) * (x.x - y.x) + (x.y - y.y) * (x.y - y.y);
        den += y.x * y.x + y.y * y.y;
      }
    const double rel = std::sqrt(num / den);
    bad += !(rel <= tolerance);
    std::printf("  %-40s %.4f ms  (%.3fx product)  rel L2 vs product %.2e%s\n", name, t, t_product / t, rel,
                rel <= tolerance ? "" : "  MISMATCH");
  };
  auto variant = [&]<int V, int E = fft::kElems<N>, int Buffers = 1, int MinBlocks = BlockShape<N>::min_blocks>(
                     const char* name, const SincTableView& s, double tolerance) {
    const float t = time(
        [&] { launch_variant<N, V, E, Buffers, MinBlocks>(work.get(), lines, nr, rows.get(), df, s, band, tw.get()); },
        30);
    compare(name, t, tolerance);
  };
  if constexpr (Full) {
    variant.template operator()<0>("interleaved table (128 KB, before)", sinc, 0.0);
    variant.template operator()<kRowsNoL1>("interleaved + rows L1::no_allocate", sinc, 0.0);
    variant.template operator()<kTableEvictLast>("interleaved + table L1::evict_last", sinc, 0.0);
    variant.template operator()<kWeightsAhead>("interleaved + weights one output ahead", sinc, 0.0);
  }
  variant.template operator()<kCompactTable>("compact table (64 KB): the product's body", sinc_compact, 0.0);
  variant.template operator()<kCompactTable | kRowRecordAhead>("compact + row record ahead in L2", sinc_compact, 0.0);
  if constexpr (N / 16 % 32 == 0 && N / 16 >= 256) {  // 16 points a thread (the radix-16 passes in registers)
    constexpr int kMin = N / 16 <= 320 ? 2 : 1;
    variant.template operator()<kCompactTable, 16, 1, kMin>("compact, 16 points a thread", sinc_compact, 1e-6);
    variant.template operator()<kCompactTable | kRowRecordAhead, 16, 1, kMin>("compact, 16 points, row record ahead",
                                                                             sinc_compact, 1e-6);
    variant.template operator()<kCompactTable | kRowRecordAhead | kPairedRow, 16, 1, kMin>(
        "compact, 16 points, record ahead, paired row", sinc_compact, 1e-6);
    variant.template operator()<kCompactTable | kRowRecordAhead | kAdjacentPairs, 16, 1, kMin>(
        "compact, 16 points, record ahead, adjacent pairs", sinc_compact, 1e-6);
    if constexpr (Full) {
      variant.template operator()<kCompactTable, 16, 2, kMin>("compact, 16 points, two buffers", sinc_compact, 1e-6);
      variant.template operator()<kCompactTable, 16, 2, 1>("compact, 16 points, two buffers, 1 block/SM", sinc_compact,
                                                           1e-6);
    }
  }
  if constexpr (N / 32 % 32 == 0 && N / 32 >= 256) {  // 32 points a thread: 320 threads or fewer, two blocks a SM
    constexpr int kMin = N / 32 <= 320 ? 2 : 1;
    variant.template operator()<kCompactTable | kRowRecordAhead, 32, 1, kMin>("compact, 32 points, record ahead",
                                                                             sinc_compact, 1e-6);
    variant.template operator()<kCompactTable | kRowRecordAhead, 32, 1, 1>(
        "compact, 32 points, record ahead, 1 block/SM", sinc_compact, 1e-6);
    variant.template operator()<kCompactTable | kRowRecordAhead, 32, 1, kMin>(
        "compact, 32 points, 1024 fractions (bound)", sinc_compact_1024, 1e-3);
    variant.template operator()<kCompactTable | kRowRecordAhead, 32, 1, kMin>(
        "compact, 32 points, small fractions (bound)", sinc_compact_small, 1e-3);
    variant.template operator()<kCompactTable | kRowRecordAhead | kQuadMajor, 32, 1, kMin>(
        "32 points, quad-major table, 1024 fractions", sinc_quad_1024, 1e-3);
    variant.template operator()<kCompactTable | kRowRecordAhead | kQuadMajor, 32, 1, kMin>(
        "32 points, quad-major table, small fractions", sinc_quad_small, 1e-3);
  }
  if constexpr (N / 16 % 32 == 0 && N / 16 >= 256) {
    constexpr int kMin = N / 16 <= 320 ? 2 : 1;
    variant.template operator()<kCompactTable | kRowRecordAhead | kQuadMajor, 16, 1, kMin>(
        "16 points, quad-major table, 1024 fractions", sinc_quad_1024, 1e-3);
  }
  if constexpr (N == 9216 || N == 10240) {  // 256 threads of 36 / 40 points, two blocks a SM
    constexpr int E2 = N / 256;
    variant.template operator()<kCompactTable | kRowRecordAhead | kAllRegisterPasses, E2, 1, 2>(
        N == 9216 ? "36 points, radix 4^5 x 9 on registers, 2/SM" : "40 points, radix 8^3 x 4 x 5 on registers, 2/SM",
        sinc_compact, 1e-6);
    variant.template operator()<kCompactTable | kRowRecordAhead | kAllRegisterPasses, E2, 1, 2>(
        "  the same, 1024 fractions (bound)", sinc_compact_1024, 1e-3);
  }
  if constexpr (!Full) return bad;
  variant.template operator()<kCompactTable | kWeightsAhead>("compact table + weights ahead", sinc_compact, 0.0);
  variant.template operator()<kCompactTable | kRowsNoL1>("compact table + rows no_allocate", sinc_compact, 0.0);
  variant.template operator()<kCompactTable>("compact, 1024 fractions (32 KB, bound)", sinc_compact_1024, 1e-3);
  variant.template operator()<kCompactTable>("compact, small fractions (bound)", sinc_compact_small, 1e-3);
  char name[64];
  std::snprintf(name, sizeof name, "interleaved, %d fractions (bound)", small.fractions);
  variant.template operator()<0>(name, sinc_small, 1e-3);
  return bad;
}

}  // namespace p3x

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int nr = argc > 2 ? std::atoi(argv[2]) : 8192;
  const int n = argc > 3 ? std::atoi(argv[3]) : 10240;
  const int small = argc > 4 ? std::atoi(argv[4]) : 256;
  int bad = 0;
  if (n == 10240) bad = p3x::run<10240>(lines, nr, small);
  else if (n == 9216) bad = p3x::run<9216>(lines, nr, small);
  else if (n == 5120) bad = p3x::run<5120>(lines, nr, small);
  else if (n == 8192) bad = p3x::run<8192>(lines, nr, small);
  else if (n == 6144) bad = p3x::run<6144, false>(lines, nr, small);
  else if (n == 7680) bad = p3x::run<7680, false>(lines, nr, small);
  else if (n == 12288) bad = p3x::run<12288, false>(lines, nr, small);
  else if (n == 15360) bad = p3x::run<15360, false>(lines, nr, small);
  else return std::fprintf(stderr, "NFFT: 5120, 6144, 7680, 8192, 9216, 10240, 12288 or 15360\n"), 2;
  std::printf(bad ? "%d variant(s) differ\n" : "every variant matches\n", bad);
  return bad ? 1 : 0;
}
