// Experiment (issue 20): the azimuth FFTs (FFTs down every column of a row-major array, what the RDA's
// passes 2 and 4 do) as variants of a column-tile kernel, against cuFFT strided and the product's column
// kernel, in one process; every output checked against a float64 FFT on the host. Run on the GPU machine:
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr \
//     scripts/experiments/column_variants.cu -lcufft -o colv && ./colv 5120
// -DCOL_N=8192 for other column lengths (powers of two, 16 points a thread); the argument is the column
// count (= the row pitch).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cuda/fft/block_fft.cuh"
#include "column_case.hpp"

using namespace sarfuse::cuda;
using fft::C32;

#ifndef COL_N
#define COL_N 4096
#endif
constexpr int N = COL_N, E = 16, T = N / E;

enum class Load { plain, l2_128, l2_256 };

// One element, read-only path, with the L2 told how much to fetch around it.
template <Load L>
__device__ __forceinline__ float2 load(const float2* p) {
  float2 v;
  if constexpr (L == Load::plain) {
    v = __ldg(p);
  } else if constexpr (L == Load::l2_128) {
    asm("ld.global.nc.L2::128B.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
  } else {
    asm("ld.global.nc.L2::256B.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
  }
  return v;
}

template <int Cols>
struct Shape {
  static constexpr int threads = Cols * T;
  static constexpr int min_blocks = threads >= 1024 ? 1 : 1024 / threads;
  static constexpr int slots = fft::smem_size(N) + (Cols >= 16 ? 1 : 16 / Cols);
  static constexpr int smem_bytes = Cols * slots * 8;
};

// Cols adjacent columns a tile, one group of T threads a column, threads numbered column-fastest.
// Persistent: gridDim.x blocks loop over the tiles. Prefetch: after its own loads, a block pulls the
// tile `ahead` tiles later into L2 (the tile the SM takes next, for a persistent grid).
template <int Cols, Load L, bool Persistent, bool Prefetch, int MinBlocks = Shape<Cols>::min_blocks>
__global__ void __launch_bounds__(Shape<Cols>::threads, MinBlocks)
    column_tiles(const float2* __restrict__ in, float2* __restrict__ out, int pitch, int tiles, int ahead,
                 const float2* __restrict__ tw) {
  extern __shared__ C32 smem[];
  const int g = static_cast<int>(threadIdx.x) % Cols, tid = static_cast<int>(threadIdx.x) / Cols;
  C32* s = smem + g * Shape<Cols>::slots;
  for (int tile = blockIdx.x; tile < tiles; tile += Persistent ? gridDim.x : tiles) {
    const int col = tile * Cols + g;
    C32 v[E];
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = fft::to_c32(load<L>(in + static_cast<std::size_t>(tid + q * T) * pitch + col));
    if constexpr (Prefetch) {
      const int next = tile + ahead;
      if (next < tiles)
        for (int r = threadIdx.x; r < N; r += blockDim.x)
          asm volatile("prefetch.global.L2 [%0];" ::"l"(in + static_cast<std::size_t>(r) * pitch + next * Cols));
    }
    fft::block_fft_forward<N, E>(v, s, tw, tid);
#pragma unroll
    for (int q = 0; q < E; ++q) out[static_cast<std::size_t>(tid + q * T) * pitch + col] = fft::to_float2(v[q]);
  }
}

// Persistent, two columns a tile, double-buffered: while a tile is transformed, the next one streams
// into the other buffer by cp.async (8 bytes an element, rows interleaved: element e of the tile is row
// e / 2, column e % 2), which then serves as that tile's exchange buffer.
constexpr int kStagedCols = 2;
constexpr int kStagedSlots = fft::smem_size(N) + 8;
constexpr int kStagedBuffer = kStagedCols * kStagedSlots;  // C32 elements, >= 2 N
__device__ __forceinline__ void stage_tile(C32* buf, const float2* in, int pitch, int tile) {
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(buf));
  for (int e = threadIdx.x; e < kStagedCols * N; e += blockDim.x) {
    const float2* src = in + static_cast<std::size_t>(e / kStagedCols) * pitch + tile * kStagedCols + e % kStagedCols;
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8;" ::"r"(base + e * 8), "l"(src) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <bool Dummy>
__global__ void __launch_bounds__(kStagedCols * T, 1)
    column_staged(const float2* __restrict__ in, float2* __restrict__ out, int pitch, int tiles, int,
                  const float2* __restrict__ tw) {
  extern __shared__ C32 smem[];
  const int g = static_cast<int>(threadIdx.x) % kStagedCols, tid = static_cast<int>(threadIdx.x) / kStagedCols;
  int tile = blockIdx.x;
  if (tile < tiles) stage_tile(smem, in, pitch, tile);
  for (int it = 0; tile < tiles; ++it, tile += gridDim.x) {
    C32* cur = smem + (it & 1) * kStagedBuffer;
    __syncthreads();  // the last tile's reads of the other buffer are done
    if (tile + gridDim.x < tiles) {
      stage_tile(smem + ((it + 1) & 1) * kStagedBuffer, in, pitch, tile + gridDim.x);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();  // every thread's copies of this tile have landed
    C32 v[E];
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = cur[(tid + q * T) * kStagedCols + g];
    fft::block_fft_forward<N, E>(v, cur + g * kStagedSlots, tw, tid);
    const int col = tile * kStagedCols + g;
#pragma unroll
    for (int q = 0; q < E; ++q) out[static_cast<std::size_t>(tid + q * T) * pitch + col] = fft::to_float2(v[q]);
  }
}

int main(int argc, char** argv) {
  const int cols = argc > 1 ? std::atoi(argv[1]) : 5120;
  const ColumnCase cc(N, cols, {0, 1, 2, 3, 5, 777, cols / 2 + 1, cols - 1});
  float2 *dx = cc.dx, *dy = cc.dy;
  const float2* dtw = cc.dtw;
  const std::size_t n = cc.size;
  auto check = [&](const char* name) { cc.check(name); };
  auto poison = [&] { cc.poison(); };
  std::printf("%d columns of %d\n", cols, N);
  Bench bench(dy, dx, n * 8);
  Timer& tm = bench.tm;
  const int sms = bench.sms;
  auto report = [&](const char* name, double ms) { bench.report(name, ms); };
  cc.cufft_strided(bench);

  // Checks a kernel's poisoned output, then times it; every variant has column_tiles' parameters.
  using Kernel = void (*)(const float2*, float2*, int, int, int, const float2*);
  auto run = [&](Kernel kernel, const char* name, int cols_a_tile, bool persistent, int threads, int smem) {
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, kernel));
    char label[200];
    std::snprintf(label, sizeof label, "%s (%d cols, %d/SM, %d regs, %zu B local)", name, cols_a_tile, per_sm, fa.numRegs,
                  fa.localSizeBytes);
    const int tiles = cols / cols_a_tile;
    const int grid = persistent ? std::min(tiles, sms * per_sm) : tiles;
    const int ahead = persistent ? grid : sms * per_sm;
    auto go = [&] {
      kernel<<<grid, threads, smem>>>(dx, dy, cols, tiles, ahead, dtw);
      CK(cudaGetLastError());
    };
    poison();
    go();
    CK(cudaDeviceSynchronize());
    check(label);
    report(label, tm.median_ms(go));
  };
  auto variant = [&]<int Cols, Load L, bool Persistent, bool Prefetch, int MinBlocks = Shape<Cols>::min_blocks>(
                     const char* name) {
    run(&column_tiles<Cols, L, Persistent, Prefetch, MinBlocks>, name, Cols, Persistent, Shape<Cols>::threads,
        Shape<Cols>::smem_bytes);
  };
  if constexpr (4 * T <= 1024) {
    variant.template operator()<4, Load::plain, false, false>("tiles, plain loads");
    variant.template operator()<4, Load::l2_128, false, false>("tiles, L2::128B");
    variant.template operator()<4, Load::l2_256, false, false>("tiles, L2::256B");
    variant.template operator()<4, Load::plain, false, true>("tiles, L2 prefetch a wave ahead");
    variant.template operator()<4, Load::plain, true, false>("persistent");
    variant.template operator()<4, Load::plain, true, true>("persistent, L2 prefetch of the next tile");
    variant.template operator()<4, Load::l2_128, true, true>("persistent, L2::128B + prefetch");
  }
  if constexpr (T <= 512) {
    variant.template operator()<2, Load::plain, false, false>("tiles, plain loads");
    variant.template operator()<2, Load::l2_128, false, false>("tiles, L2::128B");
    variant.template operator()<2, Load::l2_256, false, false>("tiles, L2::256B");
    variant.template operator()<2, Load::l2_128, true, true>("persistent, L2::128B + prefetch");
    variant.template operator()<2, Load::l2_128, false, false, 1>("tiles, L2::128B, registers for 1 block");
  }
  if constexpr (T <= 256) {
    variant.template operator()<1, Load::l2_128, false, false>("tiles, L2::128B");
    variant.template operator()<1, Load::l2_256, false, false>("tiles, L2::256B");
  }
  run(&column_staged<true>, "persistent, next tile by cp.async", kStagedCols, true, kStagedCols * T, 2 * kStagedBuffer * 8);
  // The L2's fetch granularity as a device limit (a hint), then the plain tiles again.
  CK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 128));
  if constexpr (4 * T <= 1024) variant.template operator()<4, Load::plain, false, false>("tiles, plain loads, L2 fetch granularity 128");
  if constexpr (T <= 512) variant.template operator()<2, Load::plain, false, false>("tiles, plain loads, L2 fetch granularity 128");
  return 0;
}
