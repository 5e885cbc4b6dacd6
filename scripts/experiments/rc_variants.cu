// Experiment (issue 20): range compression of 4096 lines of 4096 (RC_N) points, circular, as variants of the
// fused kernel, against the bench's cuFFTDx kernel of the same fusion, in one process; every output
// checked against a float64 FFT on the host. Built here (no GPU needed), run on the GPU machine:
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src -I .deps/mathdx-25.6.0/mathdx/include \
//     -I .deps/mathdx-25.6.0/mathdx/external/cutlass/include --expt-relaxed-constexpr \
//     -DSARFUSE_HAVE_CUFFTDX=1 -DSARFUSE_CUFFTDX_SM=900 scripts/experiments/rc_variants.cu \
//     src/bench/cufftdx_range.cu -o rc_variants
// Without MathDx (on the GPU machine, where its headers are not carried): drop the -DSARFUSE_HAVE_CUFFTDX,
// the cuFFTDx -I paths and src/bench/cufftdx_range.cu; the cuFFTDx rows are left out.
// (docs/bench/range_compression/variants_run1..3.txt came from this file at commit a976455,
// with its own copy of that kernel and its variants launched one by one; variants_run4.txt from this one;
// variants_run5.txt from commit 72635d5, whose chained-twiddle variants the product then took: the
// "plain" kernels here are that now; variants_run6/7.txt from commit cf432fe, whose double-buffered and
// 32-points-a-thread variants the product then took (its persistent TMA, predicated-body and
// uniform-path variants, measured since stop 28, are gone with them).) variants_run8.txt (stop 34): the staged
// (persistent, cp.async) and L2-prefetch variants below, none faster (docs/performance.md); stop41_rc_no_l1.txt:
// the line loads bypassing L1 (NoL1), no faster.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
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
#define RC_N 4096  // the line length: -DRC_N=8192 for other powers of two
#endif
#ifndef RC_E
#define RC_E 16  // points a thread in the variants: -DRC_E=8 for twice the threads a line
#endif
constexpr int N = RC_N, E = RC_E, T = N / E, LINES = 4096;
// Below 4096 points the variants still put one line in a block (the product's shorter lines share one).

// FFT, x H, conj, FFT: the fused kernel's compute on a line held as v (the caller stores conj(v)).
__device__ __forceinline__ void compress_line(C32 (&v)[E], C32* s, const float2* __restrict__ filter,
                                              const float2* __restrict__ tw, int tid) {
  steps::Fp32Butterflies::forward<N, E>(v, s, tw, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
  steps::conjugate(v);
  steps::Fp32Butterflies::forward<N, E>(v, s, tw, tid);
}

// ---- variants: the exchanges double-buffered (one barrier each instead of two), and the twiddles of
// every power read from a per-pass table (one load each instead of a product each) ----
// Double: pass p writes buffer (Base + p) % 2 and reads the one pass p - 1 wrote; the buffer a pass
// writes was last read before the barrier that opened this pass, so no barrier is needed before the
// write. FFT 2 starts at Base = (passes - 1) % 2, the buffer FFT 1's last pass did not read.
// Table: pass P's w^r for butterfly j at tab[offset(P) + (r - 1) ns + j mod ns].
constexpr int kDbPasses = fft::pass_count(N, E);
constexpr int pass_table_offset(int p) {
  int o = 0;
  for (int q = 1; q < p; ++q) o += (fft::pass_radix(N, E, q) - 1) * fft::ipow(E, q);
  return o;
}
constexpr int kPassTableSize = pass_table_offset(kDbPasses);
template <int P, int Base, bool Double, bool Table>
__device__ __forceinline__ void db_passes(C32 (&v)[E], C32* s, const float2* __restrict__ tw,
                                          const float2* __restrict__ ptab, int tid) {
  if constexpr (P < kDbPasses) {
    constexpr int R = fft::pass_radix(N, E, P), ns = fft::ipow(E, P), B = E / R, S = fft::smem_size(N);
    constexpr int wb = Double ? (Base + P) % 2 : 0, rb = Double ? 1 - wb : 0;
    if constexpr (P > 0) {
      __syncthreads();  // pass P - 1's stores are visible
#pragma unroll
      for (int q = 0; q < E; ++q) v[q] = s[rb * S + fft::smem_index(tid + q * T)];
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
      C32 x[R];
#pragma unroll
      for (int r = 0; r < R; ++r) x[r] = v[b + r * B];
      if constexpr (Table && P > 0) {
        const float2* t = ptab + pass_table_offset(P) + (tid + b * T) % ns;
#pragma unroll
        for (int r = 1; r < R; ++r) x[r] = x[r] * fft::to_c32(__ldg(t + (r - 1) * ns));
      } else {
        fft::stockham_twiddle_mul<N, R, ns>(x, tid + b * T, tw);
      }
      fft::butterfly<R>(x);
#pragma unroll
      for (int r = 0; r < R; ++r) v[b + r * B] = x[r];
    }
    if constexpr (P + 1 < kDbPasses) {
      if constexpr (!Double) __syncthreads();  // every thread has read this pass's inputs
#pragma unroll
      for (int b = 0; b < B; ++b)
#pragma unroll
        for (int r = 0; r < R; ++r) s[wb * S + fft::smem_index(fft::stockham_output(tid + b * T, r, ns, R))] = v[b + r * B];
    }
    db_passes<P + 1, Base, Double, Table>(v, s, tw, ptab, tid);
  }
}

std::vector<float2> pass_table() {
  std::vector<float2> t(kPassTableSize > 0 ? kPassTableSize : 1);
  for (int p = 1; p < kDbPasses; ++p) {
    const int R = fft::pass_radix(N, E, p), ns = fft::ipow(E, p);
    for (int r = 1; r < R; ++r)
      for (int jm = 0; jm < ns; ++jm) {
        const double a = -2.0 * M_PI * r * jm / (static_cast<double>(R) * ns);
        t[pass_table_offset(p) + (r - 1) * ns + jm] = make_float2(std::cos(a), std::sin(a));
      }
  }
  return t;
}

// FFT, x H, conj, FFT on the line in v through db_passes, then conj(v) stored as output line `line`.
template <bool Double, bool Table>
__device__ __forceinline__ void passes_and_store(C32 (&v)[E], C32* smem, const float2* __restrict__ filter,
                                                 const float2* __restrict__ tw, const float2* __restrict__ ptab,
                                                 float2* __restrict__ out, int line, int tid) {
  db_passes<0, 0, Double, Table>(v, smem, tw, ptab, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
  steps::conjugate(v);
  db_passes<0, (kDbPasses - 1) % 2, Double, Table>(v, smem, tw, ptab, tid);
  float2* dst = out + static_cast<std::size_t>(line) * N;
#pragma unroll
  for (int q = 0; q < E; ++q) dst[tid + q * T] = fft::to_float2(fft::conj(v[q]));
}

// NoL1 (stop 41): the line's loads bypass L1 (ld.global.nc.L1::no_allocate), so L1 keeps the filter and
// the twiddles while lines stream through.
__device__ __forceinline__ float2 load_no_l1(const float2* p) {
  float2 r;
  asm volatile("ld.global.nc.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "l"(p));
  return r;
}
template <int MinBlocks, bool Double, bool Table, bool NoL1 = false>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_passes(const float2* __restrict__ raw, const float2* __restrict__ filter, const float2* __restrict__ tw,
              const float2* __restrict__ ptab, float2* __restrict__ out) {
  extern __shared__ __align__(32) C32 smem[];
  const int tid = threadIdx.x, line = blockIdx.x;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const float2* p = raw + static_cast<std::size_t>(line) * N + tid + q * T;
    v[q] = fft::to_c32(NoL1 ? load_no_l1(p) : __ldg(p));
  }
  passes_and_store<Double, Table>(v, smem, filter, tw, ptab, out, line, tid);
}

// The current kernel's body with another register budget (MinBlocks resident blocks per SM).
template <int MinBlocks>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_plain(const float2* __restrict__ raw, const float2* __restrict__ filter, const float2* __restrict__ tw,
             float2* __restrict__ out) {
  extern __shared__ __align__(32) C32 smem[];
  const int tid = threadIdx.x, line = blockIdx.x;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::to_c32(__ldg(raw + static_cast<std::size_t>(line) * N + tid + q * T));
  compress_line(v, smem, filter, tw, tid);
  float2* dst = out + static_cast<std::size_t>(line) * N;
#pragma unroll
  for (int q = 0; q < E; ++q) dst[tid + q * T] = fft::to_float2(fft::conj(v[q]));
}

// ---- variants: persistent blocks whose next line is copied into shared memory (cp.async, 16 B a
// copy) while this one is computed, so the line's DRAM latency is off the critical path; and the
// non-persistent kernel asking L2 for the line one resident wave ahead. Staging: one buffer (a barrier
// after the line is read from it, before the next copy) or two (the copy of line i + 1 goes to the
// buffer line i - 1 used, issued after the barrier that opens line i). ----
__device__ __forceinline__ void cp_async16(void* smem_dst, const void* gsrc) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gsrc) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

template <int MinBlocks, bool Double, int Stages>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_staged(const float2* __restrict__ raw, const float2* __restrict__ filter, const float2* __restrict__ tw,
              float2* __restrict__ out) {
  static_assert(Stages == 1 || Stages == 2, "one or two staging buffers");
  extern __shared__ __align__(32) C32 smem[];
  constexpr int kQuads = N / 2 / T;  // 16-byte copies a thread
  float4* stage = reinterpret_cast<float4*>(smem + (Double ? 2 : 1) * fft::smem_size(N));
  const int tid = threadIdx.x;
  auto copy_line = [&](int l, int buf) {
    const float4* src = reinterpret_cast<const float4*>(raw + static_cast<std::size_t>(l) * N);
    float4* dst = stage + buf * (N / 2);
#pragma unroll
    for (int k = 0; k < kQuads; ++k) cp_async16(dst + tid + k * T, src + tid + k * T);
    cp_async_commit();
  };
  int buf = 0;
  if (blockIdx.x < LINES) copy_line(blockIdx.x, 0);
  for (int line = blockIdx.x; line < LINES; line += gridDim.x) {
    cp_async_wait_all();
    __syncthreads();  // the line is in `stage`; every thread is done with the previous line's smem
    const int next = line + gridDim.x;
    if (Stages == 2 && next < LINES) copy_line(next, buf ^ 1);
    C32 v[E];
    const float2* st = reinterpret_cast<const float2*>(stage + buf * (N / 2));
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = fft::to_c32(st[tid + q * T]);
    if constexpr (Stages == 1) {
      __syncthreads();  // every thread has read the buffer
      if (next < LINES) copy_line(next, 0);
    } else {
      buf ^= 1;
    }
    passes_and_store<Double, false>(v, smem, filter, tw, nullptr, out, line, tid);
  }
}

template <int MinBlocks>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_l2_ahead(const float2* __restrict__ raw, const float2* __restrict__ filter, const float2* __restrict__ tw,
                float2* __restrict__ out, int ahead) {
  extern __shared__ __align__(32) C32 smem[];
  const int tid = threadIdx.x, line = blockIdx.x;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::to_c32(__ldg(raw + static_cast<std::size_t>(line) * N + tid + q * T));
  if (line + ahead < LINES) {
    const char* p = reinterpret_cast<const char*>(raw + static_cast<std::size_t>(line + ahead) * N);
    for (int b = tid * 128; b < N * 8; b += T * 128) asm volatile("prefetch.global.L2 [%0];" ::"l"(p + b));
  }
  passes_and_store<true, false>(v, smem, filter, tw, nullptr, out, line, tid);
}

// ---- host ----

int main() {
  RangeCase rc(LINES, N);
  rc.set_checked_lines({0, 1, 777, 2048, LINES - 1}, [](auto& a, bool inv) { fft_host(a, inv); });
  const std::size_t n = rc.size;
  float2 *dx = rc.dx, *dy = rc.dy, *dh = rc.dh, *dtw = rc.dtw;
  auto check = [&](const char* name) { rc.check(name); };
  auto poison = [&] { rc.poison(); };
  Bench bench(dy, dx, n * 8);
  Timer& tm = bench.tm;
  const int sms = bench.sms;
  auto report = [&](const char* name, double ms) { bench.report(name, ms); };


  // Times a kernel launched `go` after checking its poisoned output (when the output is the reference's).
  auto measure = [&](const void* kernel, int smem, int threads, bool blocks_per_sm_grid, const char* name,
                     auto&& launch, bool checked = true) {
    measure_kernel(bench, rc, kernel, smem, threads, LINES, blocks_per_sm_grid, name, launch, checked);
  };
  const int row_smem = BlockShape<N>::smem_bytes;
  // The product kernel in its own launch shape (FusedShape<N, Whole>::lines lines a block).
  auto fused = [&]<bool Whole>(const char* name) {
    using Shape = FusedShape<N, Whole>;
    const int smem = FusedSlot<N, Whole>::smem_bytes;
    measure(reinterpret_cast<const void*>(&range_compress_kernel<N, SampleType::complex64, Whole>), smem,
            Shape::threads * Shape::lines, false, name, [&](unsigned g) {
              range_compress_kernel<N, SampleType::complex64, Whole>
                  <<<g / Shape::lines, dim3(Shape::threads, Shape::lines), smem>>>(dx, LINES, N, dh, dtw, dy, N, N);
            });
  };
  fused.template operator()<true>("sarfuse fused (whole lines)");
  fused.template operator()<false>("sarfuse fused (predicated)");
  auto plain = [&]<int MinBlocks>(const char* name) {
    measure(reinterpret_cast<const void*>(&rc_plain<MinBlocks>), row_smem, T, false, name,
            [&](unsigned g) { rc_plain<MinBlocks><<<g, T, row_smem>>>(dx, dh, dtw, dy); });
  };
  plain.template operator()<3>("plain, 3 blocks of registers");
  plain.template operator()<2>("plain, 2 blocks of registers");
  float2* dptab;
  const std::vector<float2> ptab = pass_table();
  CK(cudaMalloc(&dptab, ptab.size() * 8));
  CK(cudaMemcpy(dptab, ptab.data(), ptab.size() * 8, cudaMemcpyHostToDevice));
  auto passes = [&]<int MinBlocks, bool Double, bool Table, bool NoL1 = false>(const char* name) {
    const int smem = (Double ? 2 : 1) * row_smem;
    measure(reinterpret_cast<const void*>(&rc_passes<MinBlocks, Double, Table, NoL1>), smem, T, false, name,
            [&](unsigned g) { rc_passes<MinBlocks, Double, Table, NoL1><<<g, T, smem>>>(dx, dh, dtw, dptab, dy); });
  };
  passes.template operator()<2, true, false, true>("double-buffered, line loads L1::no_allocate, 2 blocks");
  passes.template operator()<2, false, false>("passes as the product, 2 blocks of registers");
  passes.template operator()<2, true, false>("double-buffered exchange, 2 blocks");
  passes.template operator()<3, true, false>("double-buffered exchange, 3 blocks");
  passes.template operator()<2, false, true>("per-pass twiddle table, 2 blocks");
  passes.template operator()<3, false, true>("per-pass twiddle table, 3 blocks");
  passes.template operator()<2, true, true>("double-buffered + twiddle table, 2 blocks");
  passes.template operator()<3, true, true>("double-buffered + twiddle table, 3 blocks");
  auto staged = [&]<int MinBlocks, bool Double, int Stages>(const char* name) {
    const int smem = (Double ? 2 : 1) * row_smem + Stages * N * 8;
    measure(reinterpret_cast<const void*>(&rc_staged<MinBlocks, Double, Stages>), smem, T, true, name,
            [&](unsigned g) { rc_staged<MinBlocks, Double, Stages><<<g, T, smem>>>(dx, dh, dtw, dy); });
  };
  staged.template operator()<2, true, 1>("persistent, cp.async staging, double exchange, 2 blocks");
  staged.template operator()<2, false, 1>("persistent, cp.async staging, one exchange, 2 blocks");
  staged.template operator()<2, false, 2>("persistent, two cp.async stages, one exchange, 2 blocks");
  staged.template operator()<3, false, 1>("persistent, cp.async staging, one exchange, 3 blocks");
  {
    const int smem = 2 * row_smem;
    int per_sm = 0;
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(&rc_l2_ahead<2>), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(&rc_l2_ahead<2>), T, smem));
    const int ahead = per_sm * sms;
    measure(reinterpret_cast<const void*>(&rc_l2_ahead<2>), smem, T, false, "L2 prefetch one wave ahead, double exchange",
            [&](unsigned g) { rc_l2_ahead<2><<<g, T, smem>>>(dx, dh, dtw, dy, ahead); });
  }
#if SARFUSE_HAVE_CUFFTDX
  for (const bench::CufftdxRange& c : bench::cufftdx_range_configs(N)) {
    measure_run(bench, rc, "cuFFTDx " + c.config, [&] { c.run(dx, dy, dh, LINES, nullptr); });
  }
#endif
  return 0;
}
