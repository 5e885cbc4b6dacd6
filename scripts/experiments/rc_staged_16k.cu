// Experiment (issue 20): fused range compression of 8192 lines of 16384 points (RC_N, RC_LINES), circular,
// where one block fills a SM (512 threads x 32 points, the whole register file) so no other block hides
// its loads. Here the
// blocks are persistent and the next line is copied into shared memory by the bulk-copy engine (one
// thread issues it, an mbarrier counts its bytes; no registers held) while this line is computed:
//   slabs 0..QS-1 (4 KB each: element q of every thread) into a staging buffer S, issued once the line's
//   registers are loaded, so they overlap the whole compute;
//   slabs QS..31 into the exchange buffer X, issued after the second FFT's last exchange is read, so they
//   overlap the last pass and the stores.
// Against the product kernel and the cuFFTDx kernel of the same fusion, in one process; outputs checked
// against a float64 FFT. Built here (no GPU needed), run on the GPU machine:
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src -I .deps/mathdx-25.6.0/mathdx/include \
//     -I .deps/mathdx-25.6.0/mathdx/external/cutlass/include --expt-relaxed-constexpr \
//     -DSARFUSE_HAVE_CUFFTDX=1 -DSARFUSE_CUFFTDX_SM=900 scripts/experiments/rc_staged_16k.cu \
//     src/bench/cufftdx_range.cu -o rc_staged_16k
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#if SARFUSE_HAVE_CUFFTDX
#include "bench/cufftdx_range.hpp"
#endif
#include "cuda/range_pass_kernels.cuh"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;
using fft::C32;

#ifndef RC_N
#define RC_N 16384
#endif
#ifndef RC_LINES
#define RC_LINES 8192
#endif
constexpr int N = RC_N, LINES = RC_LINES;
constexpr int E = fused_elems<N, true>, T = N / E;
using X1 = FusedExchange<N, true>;
using X2 = FusedSecondExchange<N, true>;
constexpr int kXSlots = X1::buffers * fft::smem_size(N);
constexpr unsigned kSlabBytes = T * 8;  // element q of every thread
constexpr int kMinBlocks = fused_min_blocks<N, true>;
// Slabs that fit in a staging buffer beside the exchange, kMinBlocks blocks a SM.
constexpr int kMaxQS = std::min(E, (227 * 1024 / kMinBlocks - 64 - kXSlots * 8) / static_cast<int>(kSlabBytes));

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// The one thread that issues (`leader`) by predicate, not by a branch: a branch around the issue made the
// compiler keep 500 B more of the line's registers spilled.
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, bool leader) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; @p mbarrier.init.shared::cta.b64 [%0], 1; }" ::"r"(smem_addr(bar)),
               "r"(static_cast<unsigned>(leader))
               : "memory");
}
__device__ __forceinline__ void mbar_expect(std::uint64_t* bar, unsigned bytes, bool leader) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1; }" ::"r"(
                   smem_addr(bar)),
               "r"(bytes), "r"(static_cast<unsigned>(leader))
               : "memory");
}
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, std::uint64_t* bar, bool leader) {
  asm volatile(
      "{ .reg .pred p; setp.ne.u32 p, %4, 0; @p cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], "
      "[%1], %2, [%3]; }" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar)), "r"(static_cast<unsigned>(leader))
      : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
__device__ __forceinline__ void fence_async_shared(bool leader) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p fence.proxy.async.shared::cta; }" ::"r"(static_cast<unsigned>(leader))
               : "memory");
}
__device__ __forceinline__ void fence_barrier_init(bool leader) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p fence.mbarrier_init.release.cluster; }" ::"r"(
                   static_cast<unsigned>(leader))
               : "memory");
}

// Slabs [q0, q1) of line `line` (contiguous in global memory: slab q is columns q T .. q T + T - 1) to dst.
template <int Q0, int Q1>
__device__ __forceinline__ void copy_slabs(C32* dst, const float2* raw, int line, std::uint64_t* bar, bool leader) {
  constexpr unsigned bytes = static_cast<unsigned>(Q1 - Q0) * kSlabBytes, kChunk = 16384;
  fence_async_shared(leader);  // this thread's view: earlier generic accesses of dst come first
  mbar_expect(bar, bytes, leader);
  const char* src = reinterpret_cast<const char*>(raw + static_cast<std::size_t>(line) * N + Q0 * T);
#pragma unroll
  for (unsigned off = 0; off < bytes; off += kChunk)
    bulk_copy(reinterpret_cast<char*>(dst) + off, src + off, bytes - off < kChunk ? bytes - off : kChunk, bar, leader);
}

// A value the compiler cannot hoist out of the line loop: what is computed from it is computed in each
// line, not kept live across all of them (at 16384: 680 -> 608 B spilled a thread; the copy-issuing code
// itself costs the rest, see docs/performance.md, stop 35).
template <class V>
__device__ __forceinline__ V opaque(V v) {
  if constexpr (sizeof(V) == 8) asm volatile("mov.b64 %0, %0;" : "+l"(v));
  else asm volatile("mov.b32 %0, %0;" : "+r"(v));
  return v;
}

template <int QS>
__global__ void __launch_bounds__(T, kMinBlocks)
    rc_staged(const float2* __restrict__ raw, const float2* __restrict__ filter_, const float2* __restrict__ tw_,
              float2* __restrict__ out) {
  extern __shared__ __align__(128) C32 smem[];
  C32* x = smem;                // the exchange; slabs QS.. of the next line between lines
  C32* stage = smem + kXSlots;  // slabs 0..QS-1 of the next line
  __shared__ std::uint64_t bar[2];  // [0]: the slabs in X, [1]: those in S
  int line = blockIdx.x;  // < LINES: the grid is at most a wave
  const bool leader = threadIdx.x == 0;
  mbar_init(&bar[0], leader);
  mbar_init(&bar[1], leader);
  fence_barrier_init(leader);
  if constexpr (QS > 0) copy_slabs<0, QS>(stage, raw, line, &bar[1], leader);
  if constexpr (QS < E) copy_slabs<QS, E>(x, raw, line, &bar[0], leader);
  __syncthreads();
#pragma unroll 1
  for (unsigned k = 0; line < LINES; line += gridDim.x, ++k) {
    const int next = line + gridDim.x;
    const int tid = opaque(static_cast<int>(threadIdx.x));
    const float2* tw = opaque(tw_);
    const float2* filter = opaque(filter_);
    C32 v[E];
    if constexpr (QS > 0) mbar_wait(&bar[1], k & 1);
    if constexpr (QS < E) mbar_wait(&bar[0], k & 1);
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = q < QS ? stage[tid + q * T] : x[tid + (q - QS) * T];
    __syncthreads();  // S and X are read (a double exchange's first pass writes X with no barrier before)
    if constexpr (QS > 0) copy_slabs<0, QS>(stage, raw, next, &bar[1], leader && next < LINES);
    steps::Fp32Butterflies::forward<N, E, X1>(v, x, tw, tid);
    steps::multiply_by_filter<N>(v, filter, tid);
    steps::conjugate(v);
    steps::Fp32Butterflies::forward<N, E, X2>(v, x, tw, tid);
    if constexpr (QS < E) {
      __syncthreads();  // X is read
      copy_slabs<QS, E>(x, raw, next, &bar[0], leader && next < LINES);
    }
    float2* dst = out + static_cast<std::size_t>(line) * N + tid;
#pragma unroll
    for (int q = 0; q < E; ++q) dst[q * T] = fft::to_float2(fft::conj(v[q]));
  }
}


int main() {
  RangeCase rc(LINES, N);
  rc.set_checked_lines({0, 1, 131, 132, 777, LINES / 2, LINES - 1}, [](auto& a, bool inv) { fft_host(a, inv); });
  const std::size_t n = rc.size;
  float2 *dx = rc.dx, *dy = rc.dy, *dh = rc.dh, *dtw = rc.dtw;
  auto check = [&](const char* name) { rc.check(name); };
  auto poison = [&] { rc.poison(); };
  Bench bench(dy, dx, n * 8);
  std::printf("%d lines of %d points, %d threads x %d points a line\n", LINES, N, T, E);
  auto measure = [&](const void* kernel, int smem, int threads, bool persistent, const char* name, auto&& launch) {
    measure_kernel(bench, rc, kernel, smem, threads, LINES, persistent, name, launch);
  };
  {
    using Shape = FusedShape<N, true>;
    const int smem = FusedSlot<N, true>::smem_bytes;
    measure(reinterpret_cast<const void*>(&range_compress_kernel<N, SampleType::complex64, true>), smem,
            Shape::threads * Shape::lines, false, "sarfuse fused (product kernel)", [&](unsigned gr) {
              range_compress_kernel<N, SampleType::complex64, true>
                  <<<gr / Shape::lines, dim3(Shape::threads, Shape::lines), smem>>>(dx, LINES, N, dh, dtw, dy, N, N);
            });
  }
  auto staged = [&]<int QS>(const char* name) {
    const int smem = (kXSlots + QS * T) * 8;
    measure(reinterpret_cast<const void*>(&rc_staged<QS>), smem, T, true, name,
            [&](unsigned gr) { rc_staged<QS><<<gr, T, smem>>>(dx, dh, dtw, dy); });
  };
  staged.template operator()<0>("persistent, next line bulk-copied into X after the last exchange");
  if constexpr (kMaxQS >= E / 2)
    staged.template operator()<E / 2>("persistent, half the next line into S during compute, half into X");
  if constexpr (kMaxQS > E / 2)
    staged.template operator()<kMaxQS>(kMaxQS == E ? "persistent, the next line into S during compute" : "persistent, most of the next line into S");
#if SARFUSE_HAVE_CUFFTDX
  for (const bench::CufftdxRange& c : bench::cufftdx_range_configs(N)) {
    measure_run(bench, rc, "cuFFTDx " + c.config, [&] { c.run(dx, dy, dh, LINES, nullptr); });
  }
#endif
  return 0;
}
