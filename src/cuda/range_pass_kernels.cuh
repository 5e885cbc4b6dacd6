// The row passes, assembled from the device steps of cuda/steps/ (one thread group per line, the line in
// registers and padded shared memory from load to store):
//   range_compress_kernel  raw line -> FFT -> x H -> IFFT -> store             (fused range compression)
//   range_spectrum_kernel  raw line -> FFT -> x H -> store the spectrum        (the RDA's pass 1)
//   range_spectrum_first_step_kernel  the same on a cluster of 16 lines, then the two-step azimuth
//                          FFT's 16-point step across them                      (pass 1, two-step FFT)
//   range_doppler_kernel   Doppler row -> x SRC -> IFFT -> RCMC -> x azimuth filter -> store in place
//                                                                              (the RDA's pass 3)
// The block FFT's arithmetic (steps/butterflies.cuh) and the storage between passes
// (steps/row_storage.cuh) are type parameters. Internal to the .cu files that launch them (an unnamed
// namespace: each instantiates what it launches, so the instantiations compile in parallel).
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/filters.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/kernels.hpp"
#include "cuda/steps/azimuth_filter.cuh"
#include "cuda/steps/butterflies.cuh"
#include "cuda/steps/dispatch.cuh"
#include "cuda/steps/line_slot.cuh"
#include "cuda/steps/load_line.cuh"
#include "cuda/steps/matched_filter.cuh"
#include "cuda/steps/range_migration.cuh"
#include "cuda/steps/row_storage.cuh"
#include "cuda/steps/secondary_range_compression.cuh"

namespace sarfuse::cuda {

namespace {

using fft::BlockShape;
using fft::C32;

// The fused kernels (two FFTs, the filter between them) have their own shape, each choice measured
// (docs/performance.md, "Range compression against every peer"):
// - 32 points a thread at 16384 and at 8192 whole lines (512 / 256 threads a line, 128 / 212
//   registers; 8192 with predicated loads and stores spilled at 255), 16 elsewhere;
// - one line a block from 128 threads a line (2048: four 128-thread blocks a SM beat two of two
//   lines), 256 threads' worth of shorter lines;
// - registers for one block a SM at 32 points or 512+ threads, two at 256 threads (128 registers: at
//   three blocks of 80 it spilled and took 1.8x as long), four at 128;
// - two exchange buffers (one barrier a pass instead of two) for lines of 256+ threads where both fit
//   beside those blocks (N 4096 and 8192); 2048's four small blocks a SM ran faster with one.
// Whole: the instantiation whose lines are all whole. The one-FFT passes below keep BlockShape's
// budget, which does not spill.
template <int N, bool Whole>
constexpr int fused_elems = N == 16384 || (N == 8192 && Whole) ? 32 : fft::kElems<N>;
template <int N, bool Whole>
constexpr int fused_lines = N / fused_elems<N, Whole> >= 128 ? 1 : BlockShape<N, fused_elems<N, Whole>>::lines;
template <int N, bool Whole>
using FusedShape = BlockShape<N, fused_elems<N, Whole>, fused_lines<N, Whole>>;
template <int N, bool Whole>
constexpr int fused_block_threads = FusedShape<N, Whole>::threads * FusedShape<N, Whole>::lines;
template <int N, bool Whole>
constexpr int fused_min_blocks =
    fused_elems<N, Whole> == 32 || fused_block_threads<N, Whole> >= 512 ? 1 : fused_block_threads<N, Whole> >= 256 ? 2 : 4;
template <int N, bool Whole>
using FusedExchange = fft::Exchange<FusedShape<N, Whole>::threads >= 256 &&
                                            2 * FusedShape<N, Whole>::smem_bytes * fused_min_blocks<N, Whole> <= 227 * 1024
                                        ? 2
                                        : 1>;
template <int N, bool Whole>
using FusedSlot = steps::LineSlot<N, FusedExchange<N, Whole>::buffers, fused_elems<N, Whole>, fused_lines<N, Whole>>;
// The exchange of the second FFT, after the first's passes on the same buffers.
template <int N, bool Whole>
using FusedSecondExchange =
    typename FusedExchange<N, Whole>::template Next<fft::pass_count(N, fused_elems<N, Whole>)>;

// The inverse FFT is conj(FFT(conj(.))): the data never leave the chip. Stores the first out_cols
// columns of each line at row pitch out_pitch. Whole: every line of every block is there and is N
// samples, stored whole at pitch N (the circular case): no predicate on any load or store, which
// measured 11 % faster than the same kernel with them (docs/performance.md).
template <int N, SampleType S, bool Whole>
__global__ void __launch_bounds__(fused_block_threads<N, Whole>, fused_min_blocks<N, Whole>)
    range_compress_kernel(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                          const float2* __restrict__ tw, float2* __restrict__ out, int out_cols, int out_pitch) {
  extern __shared__ __align__(32) C32 smem[];  // 32 bytes: tensor-core loads
  constexpr int E = fused_elems<N, Whole>, T = N / E;
  const FusedSlot<N, Whole> slot(smem, lines);
  C32 v[E];
  if constexpr (Whole) {
    const std::size_t base = static_cast<std::size_t>(slot.line) * N + slot.tid;
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = steps::load_raw<S>(raw, base + q * T);
  } else {
    steps::load_raw_line<N, S>(v, raw, slot.line, nr, slot.tid, slot.active);
  }
  steps::Fp32Butterflies::forward<N, E, FusedExchange<N, Whole>>(v, slot.s, tw, slot.tid);
  steps::multiply_by_filter<N>(v, filter, slot.tid);
  steps::conjugate(v);
  steps::Fp32Butterflies::forward<N, E, FusedSecondExchange<N, Whole>>(v, slot.s, tw, slot.tid);
  if constexpr (Whole) {
    float2* dst = out + static_cast<std::size_t>(slot.line) * N + slot.tid;
#pragma unroll
    for (int q = 0; q < E; ++q) dst[q * T] = fft::to_float2(fft::conj(v[q]));
  } else {
    if (!slot.active) return;
#pragma unroll
    for (int q = 0; q < E; ++q) {
      const int col = slot.tid + q * T;
      if (col < out_cols) out[static_cast<std::size_t>(slot.line) * out_pitch + col] = fft::to_float2(fft::conj(v[q]));
    }
  }
}

// The one-FFT row passes' shapes (passes 1 and 3), each choice measured (docs/performance.md, "Pass 3:
// the RCMC's sinc table and the points a thread" and "Passes 1 and 3 at 32 points a thread"):
// - the FP32 chain (FP32 butterflies and storage) takes 32 points a thread where a line is then at most
//   320 threads, so two blocks share a SM instead of one block of twice the threads: pass 3 at 8192,
//   9216 and 10240 (11-14 % faster, though at the 96 registers of two 288-thread blocks it spills),
//   pass 1 at 9216 (4 %);
// - pass 3 otherwise 16 points at 5120, 9216 and 10240 (the radix-16 passes on the registers; at 6144,
//   7680, 12288 and 15360 it was 0-17 % slower);
// - BlockShape's elsewhere; registers for two blocks a SM up to 320 threads a line, one above; pass 3
//   of the FP32 chain at 5120 (16 points, 320 threads) three blocks a SM at 64 registers, no spill
//   (9 % faster; 32 points at three or four blocks, and pass 1 at any other shape, were not).
template <class Butterflies, class Rows>
constexpr bool kFp32Chain = std::is_same_v<Butterflies, steps::Fp32Butterflies> && std::is_same_v<Rows, steps::Fp32Rows>;
template <int N, class Butterflies, class Rows>
constexpr int spectrum_row_elems = kFp32Chain<Butterflies, Rows> && N == 9216 ? 32 : fft::kElems<N>;
template <int N, class Butterflies, class Rows>
constexpr int doppler_row_elems = kFp32Chain<Butterflies, Rows> && (N == 8192 || N == 9216 || N == 10240) ? 32
                                  : N == 5120 || N == 9216 || N == 10240                                  ? 16
                                                                                                          : fft::kElems<N>;
template <int N, int E>
constexpr int row_pass_min_blocks = E == fft::kElems<N> ? BlockShape<N>::min_blocks : N / E <= 320 ? 2 : 1;
template <int N, class Butterflies, class Rows, int E>
constexpr int doppler_min_blocks = kFp32Chain<Butterflies, Rows> && N == 5120 && E == 16 ? 3 : row_pass_min_blocks<N, E>;

// The spectrum x H, N columns per line, stored as Rows stores (FP16: row_factor, max_bits).
template <int N, SampleType S, class Butterflies, class Rows, int E = spectrum_row_elems<N, Butterflies, Rows>,
          int MinBlocks = row_pass_min_blocks<N, E>>
__global__ void __launch_bounds__(N / E * BlockShape<N, E>::lines, MinBlocks)
    range_spectrum_kernel(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                          const float2* __restrict__ tw, typename Rows::Io* __restrict__ out,
                          float* __restrict__ row_factor, unsigned* __restrict__ max_bits) {
  extern __shared__ __align__(32) C32 smem[];  // 32 bytes: tensor-core loads
  const steps::LineSlot<N, 1, E> slot(smem, lines);
  C32 v[E];
  steps::load_raw_line<N, S>(v, raw, slot.line, nr, slot.tid, slot.active);
  steps::prefetch_ahead_l2<N, E>(raw, slot.line, lines, static_cast<std::size_t>(nr) * sizeof(steps::RawSample<S>),
                                 slot.tid);
  Butterflies::template forward<N, E>(v, slot.s, tw, slot.tid);
  steps::multiply_by_filter<N>(v, filter, slot.tid);
  Rows::template store_spectrum<N>(v, out, slot.line, slot.active, slot.tid, row_factor, max_bits);
}

// Pass 1 with the two-step azimuth FFT's first step (cuda/kernels.hpp, launch_two_step_column_fft) done
// on chip, FP32 chain: the R = 16 blocks of a cluster hold the lines n1 m + n2 (n1 the block's rank, n2
// the cluster's index, m = lines / R); each computes its line's spectrum x H into its shared memory,
// then takes 1/R of the columns of all R lines through distributed shared memory and stores the R-point
// DFT down them, x exp(-2 pi i n2 k1 / lines), to rows k1 m + n2: what the two-step FFT's own first pass
// would read back from the stored spectrum and write again, so one read and one write of the spectrum
// fewer.
template <int N, SampleType S, int E = spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>>
__global__ void __launch_bounds__(N / E, row_pass_min_blocks<N, E>)
    range_spectrum_first_step_kernel(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                                     const float2* __restrict__ tw, float2* __restrict__ out,
                                     const float2* __restrict__ az_tw) {
  static_assert(BlockShape<N, E>::lines == 1 && N % kAzimuthFirstStepRadix == 0);
  namespace cg = cooperative_groups;
  constexpr int R = kAzimuthFirstStepRadix, T = N / E, kShare = N / R;
  extern __shared__ __align__(32) C32 smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int n1 = static_cast<int>(cluster.block_rank()), n2 = static_cast<int>(blockIdx.x) / R, m = lines / R;
  const int tid = static_cast<int>(threadIdx.x);
  // The step's twiddles are the block's: exp(-2 pi i n2 k1 / lines), k1 < R (read per use from the
  // table, all 15 were held in registers at once and spilled).
  __shared__ C32 step_tw[R];
  if (tid < R) step_tw[tid] = fft::to_c32(__ldg(az_tw + n2 * tid));
  C32 v[E];
  steps::load_raw_line<N, S>(v, raw, n1 * m + n2, nr, tid, true);
  // Blocks start in cluster order, so the line kPrefetchBlocks blocks later is kPrefetchBlocks / R further.
  steps::prefetch_ahead_l2<N, E>(raw, n1 * m + n2, lines, static_cast<std::size_t>(nr) * sizeof(steps::RawSample<S>),
                                 tid, steps::kPrefetchBlocks / R);
  steps::Fp32Butterflies::forward<N, E>(v, smem, tw, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
  __syncthreads();  // the FFT's last reads of smem are done
#pragma unroll
  for (int q = 0; q < E; ++q) smem[tid + q * T] = v[q];
  cluster.sync();  // every line of the cluster is in its block's shared memory
  const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  for (int col = n1 * kShare + tid; col < (n1 + 1) * kShare; col += T) {
    C32 x[R];
#pragma unroll
    for (int k = 0; k < R; ++k) x[k] = steps::load_cluster_shared(own + col * sizeof(C32), k);
    fft::dft<R>(x);
    // Each twiddle read just before its store (volatile, so in order): read ahead, they spilled.
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const C32 y = k == 0 ? x[0] : x[k] * steps::load_shared_in_order(step_tw + k);
      steps::store_in_order(out + (static_cast<std::size_t>(k) * m + n2) * N + col, y);
    }
  }
  cluster.sync();  // no block leaves while another still reads its shared memory
}

// Pass 3's outputs c = tid + i T of a row: the RCMC interpolation at rcmc_offset + rcmc_slope c (a
// fixed-point walk per thread) times the azimuth filter, stored in place. `row` is the line's record as
// read again after the FFT (an L1 hit): kept in registers across the FFT it spilled at 32 points a thread.
template <int N, int E, class Rows>
__device__ __forceinline__ void rcmc_outputs(const core::DopplerRow row, typename Rows::Io* line, int nr, int tid,
                                             const steps::StagedRow<N>& staged, const SincTableView& sinc,
                                             const AzimuthBandView& band, const C32* az_steps, float out_scale) {
  constexpr int T = N / E;
  // Output c = tid + i T reads position rcmc_offset + rcmc_slope c: a fixed-point walk per thread.
  std::int64_t p = core::fixed_position(row.rcmc_offset + row.rcmc_slope * tid);
  const std::int64_t p_step = core::fixed_position(row.rcmc_slope * T);
  const steps::AzimuthFilter<N, E> azimuth(row, tid, band, az_steps);
  if (row.weight == 0.0) {  // outside the band, in a block of several lines with one inside it
    for (int c = tid; c < nr; c += T) Rows::store(line + c, C32{0.f, 0.f}, out_scale);
    return;
  }
  // One loop per tap count, no branch inside: with the tap count's and the band's tests in it, the
  // unrolled loop carried more code and, at 32 points a thread, spilled more.
  auto outputs = [&]<int Taps>() {
#pragma unroll
    for (int i = 0; i < E; ++i, p += p_step) {  // nr <= N: at most E outputs per thread
      const int c = tid + i * T;
      if (c >= nr) break;
      Rows::store(line + c, staged.template at<Taps>(p, sinc) * azimuth.factor(row, i, c, band), out_scale);
    }
  };
  if (sinc.taps == 8) outputs.template operator()<8>();
  else outputs.template operator()<0>();
}

// One Doppler row k per thread group, written in place (its first nr columns); rows outside the
// processed band are zeros.
template <int N, class Butterflies, class Rows, int E = doppler_row_elems<N, Butterflies, Rows>,
          int MinBlocks = doppler_min_blocks<N, Butterflies, Rows, E>>
__global__ void __launch_bounds__(N / E * BlockShape<N, E>::lines, MinBlocks)
    range_doppler_kernel(typename Rows::Io* __restrict__ work, int lines, int nr,
                         const core::DopplerRow* __restrict__ rows, double df, SincTableView sinc,
                         AzimuthBandView band, const float2* __restrict__ tw,
                         const unsigned* __restrict__ spectrum_max_bits, float* __restrict__ row_factor) {
  extern __shared__ __align__(32) C32 smem[];  // 32 bytes: tensor-core loads
  constexpr int T = N / E, Lines = BlockShape<N, E>::lines;
  using Io = typename Rows::Io;
  const steps::LineSlot<N, 1, E> slot(smem, lines);
  const int tid = slot.tid, k = slot.line;
  const bool active = slot.active;
  steps::prefetch_record_ahead_l2<Lines>(rows, k, lines, tid);
  // A block of rows outside the processed band stores their zeros and leaves: no load, FFT or RCMC
  // (the CPU plan skips these rows too).
  if (steps::block_outside_band<Lines>(rows, lines)) {
    if (!active) return;
    Io* zero_row = work + static_cast<std::size_t>(k) * N;
    for (int c = tid; c < nr; c += T) Rows::store(zero_row + c, C32{0.f, 0.f}, 1.0f);
    if (tid == 0) Rows::mark_zero_row(k, row_factor);
    return;
  }
  const core::DopplerRow row = active ? rows[k] : core::DopplerRow{};
  // The line's tables (read after the barriers below): the azimuth filter's steps, the SRC's k^2 term.
  __shared__ C32 az_steps[Lines][E];
  __shared__ C32 src_chirp[Lines][steps::SrcFactors<N, E>::kChirpSize];
  steps::AzimuthFilter<N, E>::fill_steps(az_steps[threadIdx.y], row, tid);
  // Every load first and unconditionally (an inactive line reads row 0 and never stores).
  Io* line = work + static_cast<std::size_t>(active ? k : 0) * N;
  C32 v[E];
  steps::load_row<N>(v, line, tid, Rows::load_factor(lines, spectrum_max_bits));
  steps::prefetch_ahead_l2<N, E>(work, k, lines, static_cast<std::size_t>(N) * sizeof(Io), tid);
  const double q_df2 = row.src_inverse_rate * df * df;
  steps::SrcFactors<N, E>::fill_chirp(src_chirp[threadIdx.y], tid, q_df2);
  __syncthreads();
  if (row.src_inverse_rate != 0.0) steps::SrcFactors<N, E>(tid, q_df2).apply(v, tid, src_chirp[threadIdx.y]);
  steps::conjugate(v);
  Butterflies::template forward<N, E>(v, slot.s, tw, tid);  // with the conj around it: the range IFFT
  const float out_scale = Rows::template doppler_row_scale<N>(v, row, sinc, band, active, k, tid, row_factor);
  __syncthreads();  // the FFT's last reads of s are done
  const auto staged = steps::StagedRow<N>::stage_conjugated(slot.s, v, tid);
  __syncthreads();
  if (!active) return;
  rcmc_outputs<N, E, Rows>(rows[k], line, nr, tid, staged, sinc, band, az_steps[threadIdx.y], out_scale);
}

}  // namespace

}  // namespace sarfuse::cuda
