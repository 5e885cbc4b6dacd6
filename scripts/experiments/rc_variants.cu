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
// "plain" kernels here are that now.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
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
constexpr int N = RC_N, E = 16, T = N / E, LINES = 4096;
// Below 4096 points the variants still put one line in a block (the product's shorter lines share one).

// FFT, x H, conj, FFT: the fused kernel's compute on a line held as v (the caller stores conj(v)).
__device__ __forceinline__ void compress_line(C32 (&v)[E], C32* s, const float2* __restrict__ filter,
                                              const float2* __restrict__ tw, int tid) {
  steps::Fp32Butterflies::forward<N, E>(v, s, tw, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
  steps::conjugate(v);
  steps::Fp32Butterflies::forward<N, E>(v, s, tw, tid);
}

// ---- variant: persistent blocks, the next line fetched into shared memory by a bulk copy (TMA) ----
__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bar_init(unsigned long long* b) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(b)));
}
__device__ __forceinline__ void bulk_fetch(void* dst, const void* src, unsigned bytes, unsigned long long* b) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(b))
               : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned long long* b, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(smem_addr(b)),
      "r"(parity)
      : "memory");
}

// Alias: the FFT's exchange uses the slot the line arrived in (2 slots a block) instead of its own.
template <bool Alias, int MinBlocks>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_persistent(const float2* __restrict__ raw, int lines, const float2* __restrict__ filter,
                  const float2* __restrict__ tw, float2* __restrict__ out) {
  extern __shared__ __align__(128) unsigned char sm[];
  constexpr int kSlot = (fft::smem_size(N) * 8 + 127) / 128 * 128;
  __shared__ unsigned long long bar[2];
  C32* own = reinterpret_cast<C32*>(sm + 2 * kSlot);
  const int tid = threadIdx.x;
  if (tid == 0) {
    bar_init(&bar[0]);
    bar_init(&bar[1]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  int line = blockIdx.x;
  if (tid == 0 && line < lines) bulk_fetch(sm, raw + static_cast<std::size_t>(line) * N, N * 8, &bar[0]);
  for (int it = 0; line < lines; ++it, line += gridDim.x) {
    const int b = it & 1;
    const int next = line + gridDim.x;
    __syncthreads();  // every read of the other slot (the last line's exchange) is done
    float2* cur = reinterpret_cast<float2*>(sm + b * kSlot);
    if (tid == 0 && next < lines) bulk_fetch(sm + (b ^ 1) * kSlot, raw + static_cast<std::size_t>(next) * N, N * 8, &bar[b ^ 1]);
    bar_wait(&bar[b], (it >> 1) & 1);
    C32 v[E];
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = fft::to_c32(cur[tid + q * T]);
    C32* s = Alias ? reinterpret_cast<C32*>(cur) : own;
    compress_line(v, s, filter, tw, tid);
    float2* dst = out + static_cast<std::size_t>(line) * N;
#pragma unroll
    for (int q = 0; q < E; ++q) dst[tid + q * T] = fft::to_float2(fft::conj(v[q]));
  }
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

template <int MinBlocks, bool Double, bool Table>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_passes(const float2* __restrict__ raw, const float2* __restrict__ filter, const float2* __restrict__ tw,
              const float2* __restrict__ ptab, float2* __restrict__ out) {
  extern __shared__ __align__(32) C32 smem[];
  const int tid = threadIdx.x, line = blockIdx.x;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = fft::to_c32(__ldg(raw + static_cast<std::size_t>(line) * N + tid + q * T));
  db_passes<0, 0, Double, Table>(v, smem, tw, ptab, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
  steps::conjugate(v);
  db_passes<0, (kDbPasses - 1) % 2, Double, Table>(v, smem, tw, ptab, tid);
  float2* dst = out + static_cast<std::size_t>(line) * N;
#pragma unroll
  for (int q = 0; q < E; ++q) dst[tid + q * T] = fft::to_float2(fft::conj(v[q]));
}

// ---- variant: 32 points a thread (N / 32 threads a line; radix-32 passes, the last what remains) ----
constexpr int E2 = 32, T2 = N / E2;
constexpr int kWidePasses = fft::pass_count(N, E2);
// x * exp(-2 pi i k / 32), k = 0..15.
__device__ __forceinline__ C32 rotate32(C32 x, int k) {
  constexpr float c[16] = {1.0f, 0.98078528040323044913f, 0.92387953251128675613f, 0.83146961230254523708f,
                           0.70710678118654752440f, 0.55557023301960222474f, 0.38268343236508977173f,
                           0.19509032201612826785f, 0.0f, -0.19509032201612826785f, -0.38268343236508977173f,
                           -0.55557023301960222474f, -0.70710678118654752440f, -0.83146961230254523708f,
                           -0.92387953251128675613f, -0.98078528040323044913f};
  if (k == 0) return x;
  if (k == 8) return fft::mul_minus_i(x);
  const C32 w{c[k], c[(k + 8) % 16] * (k < 8 ? 1.0f : -1.0f)};  // -sin(2 pi k / 32) = cos(2 pi (k + 8) / 32)
  return x * w;
}
__device__ __forceinline__ void dft32(C32* x) {
  C32 e[16], o[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    e[k] = x[2 * k];
    o[k] = x[2 * k + 1];
  }
  fft::dft<16>(e);
  fft::dft<16>(o);
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const C32 t = rotate32(o[k], k);
    x[k] = e[k] + t;
    x[k + 16] = e[k] - t;
  }
}
template <int P, int Base, bool Double>
__device__ __forceinline__ void wide_passes(C32 (&v)[E2], C32* s, const float2* __restrict__ tw, int tid) {
  if constexpr (P < kWidePasses) {
    constexpr int R = fft::pass_radix(N, E2, P), ns = fft::ipow(E2, P), B = E2 / R, S = fft::smem_size(N);
    constexpr int wb = Double ? (Base + P) % 2 : 0, rb = Double ? 1 - wb : 0;
    if constexpr (P > 0) {
      __syncthreads();
#pragma unroll
      for (int q = 0; q < E2; ++q) v[q] = s[rb * S + fft::smem_index(tid + q * T2)];
    }
#pragma unroll
    for (int b = 0; b < B; ++b) {
      C32 x[R];
#pragma unroll
      for (int r = 0; r < R; ++r) x[r] = v[b + r * B];
      fft::stockham_twiddle_mul<N, R, ns>(x, tid + b * T2, tw);
      if constexpr (R == 32) dft32(x);
      else fft::butterfly<R>(x);
#pragma unroll
      for (int r = 0; r < R; ++r) v[b + r * B] = x[r];
    }
    if constexpr (P + 1 < kWidePasses) {
      if constexpr (!Double) __syncthreads();
#pragma unroll
      for (int b = 0; b < B; ++b)
#pragma unroll
        for (int r = 0; r < R; ++r) s[wb * S + fft::smem_index(fft::stockham_output(tid + b * T2, r, ns, R))] = v[b + r * B];
    }
    wide_passes<P + 1, Base, Double>(v, s, tw, tid);
  }
}
template <int MinBlocks, bool Double>
__global__ void __launch_bounds__(T2, MinBlocks)
    rc_wide(const float2* __restrict__ raw, const float2* __restrict__ filter, const float2* __restrict__ tw,
            float2* __restrict__ out) {
  extern __shared__ __align__(32) C32 smem[];
  const int tid = threadIdx.x, line = blockIdx.x;
  C32 v[E2];
#pragma unroll
  for (int q = 0; q < E2; ++q) v[q] = fft::to_c32(__ldg(raw + static_cast<std::size_t>(line) * N + tid + q * T2));
  wide_passes<0, 0, Double>(v, smem, tw, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
  steps::conjugate(v);
  wide_passes<0, (kWidePasses - 1) % 2, Double>(v, smem, tw, tid);
  float2* dst = out + static_cast<std::size_t>(line) * N;
#pragma unroll
  for (int q = 0; q < E2; ++q) dst[tid + q * T2] = fft::to_float2(fft::conj(v[q]));
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

// The product kernel's body (predicated loads of any sample type, pitched stores, the L2 prefetch
// optional) with another register budget.
template <int MinBlocks, bool Prefetch>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_product(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
               const float2* __restrict__ tw, float2* __restrict__ out, int out_cols, int out_pitch) {
  extern __shared__ __align__(32) C32 smem[];
  const steps::LineSlot<N> slot(smem, lines);
  C32 v[E];
  steps::load_raw_line<N, SampleType::complex64>(v, raw, slot.line, nr, slot.tid, slot.active);
  if constexpr (Prefetch)
    steps::prefetch_ahead_l2<N>(raw, slot.line, lines, static_cast<std::size_t>(nr) * sizeof(float2), slot.tid);
  compress_line(v, slot.s, filter, tw, slot.tid);
  if (!slot.active) return;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const int col = slot.tid + q * T;
    if (col < out_cols) out[static_cast<std::size_t>(slot.line) * out_pitch + col] = fft::to_float2(fft::conj(v[q]));
  }
}

// The product body with block-uniform fast paths: whole lines (nr >= N, out_cols >= N, active) load and
// store without per-element predicates.
template <int MinBlocks>
__global__ void __launch_bounds__(T, MinBlocks)
    rc_uniform(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
               const float2* __restrict__ tw, float2* __restrict__ out, int out_cols, int out_pitch) {
  extern __shared__ __align__(32) C32 smem[];
  const steps::LineSlot<N> slot(smem, lines);
  C32 v[E];
  if (slot.active && nr >= N) {
    const float2* src = static_cast<const float2*>(raw) + static_cast<std::size_t>(slot.line) * nr + slot.tid;
#pragma unroll
    for (int q = 0; q < E; ++q) v[q] = fft::to_c32(__ldg(src + q * T));
  } else {
    steps::load_raw_line<N, SampleType::complex64>(v, raw, slot.line, nr, slot.tid, slot.active);
  }
  compress_line(v, slot.s, filter, tw, slot.tid);
  if (!slot.active) return;
  float2* dst = out + static_cast<std::size_t>(slot.line) * out_pitch + slot.tid;
  if (out_cols >= N) {
#pragma unroll
    for (int q = 0; q < E; ++q) dst[q * T] = fft::to_float2(fft::conj(v[q]));
  } else {
#pragma unroll
    for (int q = 0; q < E; ++q)
      if (slot.tid + q * T < out_cols) dst[q * T] = fft::to_float2(fft::conj(v[q]));
  }
}

// ---- host ----

int main() {
  const std::size_t n = static_cast<std::size_t>(LINES) * N;
  std::mt19937 rng(7);
  std::normal_distribution<float> g;
  std::vector<float2> x(n), h(N), tw(N);
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  for (auto& v : h) v = make_float2(g(rng) / N, g(rng) / N);
  for (int k = 0; k < N; ++k) tw[k] = make_float2(std::cos(-2 * M_PI * k / N), std::sin(-2 * M_PI * k / N));
  float2 *dx, *dy, *dh, *dtw;
  CK(cudaMalloc(&dx, n * 8));
  CK(cudaMalloc(&dy, n * 8));
  CK(cudaMalloc(&dh, N * 8));
  CK(cudaMalloc(&dtw, N * 8));
  CK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dh, h.data(), N * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dtw, tw.data(), N * 8, cudaMemcpyHostToDevice));
  const int check_lines[] = {0, 1, 777, 2048, LINES - 1};
  std::vector<std::vector<std::complex<double>>> ref;
  for (int l : check_lines) {
    std::vector<std::complex<double>> a(N);
    for (int k = 0; k < N; ++k) a[k] = {x[l * N + k].x, x[l * N + k].y};
    fft_host(a, false);
    for (int k = 0; k < N; ++k) a[k] *= std::complex<double>(h[k].x, h[k].y);
    fft_host(a, true);
    ref.push_back(a);
  }
  auto check = [&](const char* name) {
    std::vector<float2> y(n);
    CK(cudaMemcpy(y.data(), dy, n * 8, cudaMemcpyDeviceToHost));
    double e2 = 0, r2 = 0;
    bool finite = true;
    for (std::size_t k = 0; k < n; ++k) finite &= std::isfinite(y[k].x) && std::isfinite(y[k].y);
    for (std::size_t i = 0; i < ref.size(); ++i)
      for (int k = 0; k < N; ++k) {
        const auto d = std::complex<double>(y[check_lines[i] * N + k].x, y[check_lines[i] * N + k].y) - ref[i][k];
        e2 += std::norm(d);
        r2 += std::norm(ref[i][k]);
      }
    const double e = std::sqrt(e2 / r2);
    std::printf("  %-44s rel L2 vs float64 %.2e%s\n", name, e, finite && e < 1e-5 ? "" : "  ** WRONG **");
  };
  auto poison = [&] { CK(cudaMemset(dy, 0xff, n * 8)); };
  Timer tm;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double bytes = 2.0 * n * 8;
  const double copy_ms = tm.median_ms([&] { CK(cudaMemcpyAsync(dy, dx, n * 8, cudaMemcpyDeviceToDevice)); });
  std::printf("copy %zu MB device to device: %.4f ms (%.0f GB/s)\n", n * 8 >> 20, copy_ms, bytes / copy_ms / 1e6);
  auto report = [&](const char* name, double ms) {
    std::printf("%-46s %.4f ms  %.0f GB/s  %.0f %% of copy\n", name, ms, bytes / ms / 1e6, 100 * copy_ms / ms);
  };

  // Times a kernel launched `go` after checking its poisoned output (when the output is the reference's).
  auto measure = [&](const void* kernel, int smem, int threads, bool blocks_per_sm_grid, const char* name,
                     auto&& launch, bool checked = true) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, kernel));
    char label[160];
    std::snprintf(label, sizeof label, "%s (%d/SM, %d regs, %zu B local)", name, per_sm, fa.numRegs, fa.localSizeBytes);
    const unsigned grid = blocks_per_sm_grid ? static_cast<unsigned>(sms * per_sm) : LINES;
    auto go = [&] {
      launch(grid);
      CK(cudaGetLastError());
    };
    poison();
    go();
    CK(cudaDeviceSynchronize());
    if (checked) check(label);
    report(label, tm.median_ms(go));
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
  auto product = [&]<int MinBlocks, bool Prefetch>(const char* name) {
    measure(reinterpret_cast<const void*>(&rc_product<MinBlocks, Prefetch>), row_smem, T, false, name, [&](unsigned g) {
      rc_product<MinBlocks, Prefetch><<<g, dim3(T, 1), row_smem>>>(dx, LINES, N, dh, dtw, dy, N, N);
    });
  };
  product.template operator()<3, true>("product body, 3 blocks, L2 prefetch");
  product.template operator()<2, false>("product body, 2 blocks, no prefetch");
  auto uniform = [&]<int MinBlocks>(const char* name, int nr, int out_cols) {
    measure(reinterpret_cast<const void*>(&rc_uniform<MinBlocks>), row_smem, T, false, name, [&](unsigned g) {
      rc_uniform<MinBlocks><<<g, dim3(T, 1), row_smem>>>(dx, LINES, nr, dh, dtw, dy, out_cols, N);
    }, nr == N && out_cols == N);
  };
  uniform.template operator()<2>("uniform fast paths, 2 blocks", N, N);
  uniform.template operator()<2>("uniform, 2 blocks, padded (nr 4000, out 3000)", 4000, 3000);
  float2* dptab;
  const std::vector<float2> ptab = pass_table();
  CK(cudaMalloc(&dptab, ptab.size() * 8));
  CK(cudaMemcpy(dptab, ptab.data(), ptab.size() * 8, cudaMemcpyHostToDevice));
  auto passes = [&]<int MinBlocks, bool Double, bool Table>(const char* name) {
    const int smem = (Double ? 2 : 1) * row_smem;
    measure(reinterpret_cast<const void*>(&rc_passes<MinBlocks, Double, Table>), smem, T, false, name,
            [&](unsigned g) { rc_passes<MinBlocks, Double, Table><<<g, T, smem>>>(dx, dh, dtw, dptab, dy); });
  };
  auto wide = [&]<int MinBlocks, bool Double>(const char* name) {
    const int smem = (Double ? 2 : 1) * row_smem;
    measure(reinterpret_cast<const void*>(&rc_wide<MinBlocks, Double>), smem, T2, false, name,
            [&](unsigned g) { rc_wide<MinBlocks, Double><<<g, T2, smem>>>(dx, dh, dtw, dy); });
  };
  wide.template operator()<1, false>("32 points a thread, 1 block of registers");
  wide.template operator()<1, true>("32 points a thread, double-buffered, 1 block");
  if constexpr (T2 <= 256) {
    wide.template operator()<2, false>("32 points a thread, 2 blocks of registers");
    wide.template operator()<2, true>("32 points a thread, double-buffered, 2 blocks");
  }
  passes.template operator()<1, true, false>("double-buffered exchange, 1 block");
  passes.template operator()<2, false, false>("passes as the product, 2 blocks of registers");
  passes.template operator()<2, true, false>("double-buffered exchange, 2 blocks");
  passes.template operator()<3, true, false>("double-buffered exchange, 3 blocks");
  passes.template operator()<2, false, true>("per-pass twiddle table, 2 blocks");
  passes.template operator()<3, false, true>("per-pass twiddle table, 3 blocks");
  passes.template operator()<2, true, true>("double-buffered + twiddle table, 2 blocks");
  passes.template operator()<3, true, true>("double-buffered + twiddle table, 3 blocks");
  constexpr int kSlot = (fft::smem_size(N) * 8 + 127) / 128 * 128;
  measure(reinterpret_cast<const void*>(&rc_persistent<false, 2>), 3 * kSlot, T, true,
          "persistent, bulk prefetch, own exchange",
          [&](unsigned g) { rc_persistent<false, 2><<<g, T, 3 * kSlot>>>(dx, LINES, dh, dtw, dy); });
#if SARFUSE_HAVE_CUFFTDX
  for (const bench::CufftdxRange& c : bench::cufftdx_range_configs(N)) {
    poison();
    c.run(dx, dy, dh, LINES, nullptr);
    CK(cudaDeviceSynchronize());
    const std::string label = "cuFFTDx " + c.config;
    check(label.c_str());
    report(label.c_str(), tm.median_ms([&] { c.run(dx, dy, dh, LINES, nullptr); }));
  }
#endif
  return 0;
}
