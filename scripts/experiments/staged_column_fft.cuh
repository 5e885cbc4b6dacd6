// Experiment (issue 20, stop 55): the odd-length column pass of the two-step azimuth FFT (m in
// fft::kOddColumnSizes, 15 points a thread) on persistent blocks, one a SM, each walking tiles of
// adjacent columns of one group: the next tile is copied into a shared-memory stage (cp.async, 16 bytes
// a copy) while this one is transformed (block_fft_forward, the column-tile kernel's FFT) and stored.
// Correct (the GPU suite and compute-sanitizer clean with it routed into the RDA:
// docs/bench/azimuth/stop55_staged_columns.patch, which applies on main and wires it in), but 2.1-2.6x
// slower than the column-tile kernel at 30000 x 6250 on an H100 (docs/performance.md, "Stop 55"), so
// not in the library. Timed by odd_column_prefetch.cu.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/column_shape.cuh"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

namespace {

using fft::C32;

constexpr int kMaxBlockSmem = 227 * 1024;  // sm_90's opt-in shared memory a block

// The columns a tile: the most (even, so a row's piece is whole 16-byte copies) whose stage and
// exchange fit a block's shared memory and whose threads fit a block; 1875 points: 6 (750 threads,
// up to 80 registers a thread).
// (The exchange's bytes as ColumnShape counts them; StagedShape checks the two agree.)
template <int N>
constexpr int staged_cols() {
  constexpr int T = N / fft::kOddColumnElems;
  for (int c = 1024 / T / 2 * 2; c >= 2; c -= 2) {
    const int exchange = c * (fft::smem_size(N) + (c >= 16 ? 1 : 16 / c)) * 8;
    if (N * c * 8 + exchange <= kMaxBlockSmem) return c;
  }
  return 0;
}

template <int N>
struct StagedShape {
  static constexpr int E = fft::kOddColumnElems, T = N / E, cols = staged_cols<N>(), threads = cols * T;
  using Exchange = ColumnShape<N, threads, E>;  // its per-column slots: the column-tile kernel's bank offsets
  static constexpr int stage_bytes = N * cols * 8;
  static constexpr int smem_bytes = stage_bytes + Exchange::smem_bytes;
  static_assert(cols >= 2 && Exchange::cols == cols && smem_bytes <= kMaxBlockSmem, "a tile of two columns or more fits a block");
};

struct StagedArgs {
  const float2* in;
  float2* out;
  const float2* tw;
  int in_pitch, out_pitch, cols, in_interleave, out_interleave, tiles_x, tiles;
};

// threadIdx.x through an opaque move: the tile loop's addresses depend on the thread alone, and hoisted
// out of the loop they stayed live across the FFT (96 bytes spilled at 80 registers).
__device__ __forceinline__ int opaque_thread() {
  int t = static_cast<int>(threadIdx.x);
  asm volatile("" : "+r"(t));
  return t;
}

// Tile t (group t / tiles_x, columns (t % tiles_x) cols ...) into the stage, row-major, zero-filled past
// the last column; one commit group. Everything from the kernel's parameters: only t lives across the FFT.
template <int N>
__device__ __forceinline__ void stage_tile(float2* stage, const StagedArgs& a, int t) {
  using S = StagedShape<N>;
  constexpr int kPieces = S::cols / 2;  // 16-byte copies a row
  const float2* in = a.in + static_cast<std::size_t>(t / a.tiles_x) * (a.in_interleave ? 1 : N) * a.in_pitch;
  const std::size_t row_pitch = static_cast<std::size_t>(a.in_pitch) * (a.in_interleave ? a.in_interleave : 1);
  const int c0 = (t % a.tiles_x) * S::cols;
#pragma unroll 1
  for (int i = opaque_thread(); i < N * kPieces; i += S::threads) {
    const int row = i / kPieces, c = c0 + 2 * (i % kPieces);
    const int bytes = max(0, min(16, (a.cols - c) * 8));
    const float2* src = in + row * row_pitch + (bytes > 0 ? c : c0);
    const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(stage + row * S::cols + (c - c0)));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N, bool Inverse>
__global__ void __launch_bounds__(StagedShape<N>::threads, 1) staged_column_kernel(const __grid_constant__ StagedArgs a) {
  using S = StagedShape<N>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  auto* stage = reinterpret_cast<float2*>(smem_raw);
  auto* exchange = reinterpret_cast<C32*>(smem_raw + S::stage_bytes);
  const int first = static_cast<int>(blockIdx.x), step = static_cast<int>(gridDim.x);
  if (first < a.tiles) stage_tile<N>(stage, a, first);
  for (int t = first; t < a.tiles; t += step) {
    C32 v[S::E];
    {
      const int th = opaque_thread(), g = th % S::cols, tid = th / S::cols;
      asm volatile("cp.async.wait_group 0;" ::: "memory");
      __syncthreads();  // the stage holds tile t
#pragma unroll
      for (int q = 0; q < S::E; ++q) {
        const float2 e = stage[(tid + q * S::T) * S::cols + g];
        v[q] = Inverse ? C32{e.x, -e.y} : C32{e.x, e.y};  // inverse = conj . forward . conj, unnormalised
      }
      __syncthreads();  // every thread has read the stage
    }
    if (t + step < a.tiles) stage_tile<N>(stage, a, t + step);
    {
      const int th = opaque_thread(), g = th % S::cols, tid = th / S::cols;
      fft::block_fft_forward<N, S::E>(v, exchange + g * S::Exchange::slots, a.tw, tid);
    }
    const int th = opaque_thread(), g = th % S::cols, tid = th / S::cols;
    const int col = (t % a.tiles_x) * S::cols + g;
    if (col < a.cols) {
      const std::size_t row_pitch = static_cast<std::size_t>(a.out_pitch) * (a.out_interleave ? a.out_interleave : 1);
      float2* out = a.out + static_cast<std::size_t>(t / a.tiles_x) * (a.out_interleave ? 1 : N) * a.out_pitch + col;
#pragma unroll
      for (int q = 0; q < S::E; ++q) {
        const C32 y = Inverse ? fft::conj(v[q]) : v[q];
        out[(tid + q * S::T) * row_pitch] = fft::to_float2(y);
      }
    }
  }
}

template <int N>
void launch_staged(const StagedArgs& a, bool inverse, cudaStream_t stream) {
  using S = StagedShape<N>;
  int device = 0, sms = 0;
  SARFUSE_CUDA(cudaGetDevice(&device));
  SARFUSE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const void* k = inverse ? reinterpret_cast<const void*>(&staged_column_kernel<N, true>)
                          : reinterpret_cast<const void*>(&staged_column_kernel<N, false>);
  SARFUSE_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
  const unsigned blocks = static_cast<unsigned>(std::min(sms, a.tiles));
  if (inverse) staged_column_kernel<N, true><<<blocks, S::threads, S::smem_bytes, stream>>>(a);
  else staged_column_kernel<N, false><<<blocks, S::threads, S::smem_bytes, stream>>>(a);
  SARFUSE_LAUNCHED("staged_column_fft");
}

}  // namespace

int staged_column_fft_cols(int lines) {
  int cols = 0;
  if (!fft::dispatch_listed<fft::kOddColumnSizes>(lines, [&]<int N>() { cols = StagedShape<N>::cols; })) return 0;
  return cols;
}

void launch_staged_column_fft(int lines, const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                              bool inverse, const float2* twiddles, const ColumnScaling& scaling, int groups,
                              cudaStream_t stream) {
  if (!odd_column_fft_supports(lines))
    throw Error("staged column FFT: lines must be one of the odd column lengths, not " + std::to_string(lines));
  // cp.async copies 16 aligned bytes: two columns from an even column of an even pitch.
  if (in_pitch % 2 != 0 || reinterpret_cast<std::uintptr_t>(in) % 16 != 0)
    throw Error("staged column FFT: the input must be 16-byte aligned with an even pitch (got pitch " +
                std::to_string(in_pitch) + ")");
  if (scaling.in_row_factor || scaling.out_bound || scaling.twiddle_n || scaling.half_math)
    throw Error("staged column FFT: complex64 without row factors, output bounds or twiddles");
  const int tiles_x = (cols + staged_column_fft_cols(lines) - 1) / staged_column_fft_cols(lines);
  const StagedArgs a{in, out, twiddles, in_pitch, out_pitch, cols, scaling.in_interleave, scaling.out_interleave,
                     tiles_x, tiles_x * groups};
  fft::dispatch_listed<fft::kOddColumnSizes>(lines, [&]<int N>() { launch_staged<N>(a, inverse, stream); });
}

}  // namespace sarfuse::cuda
