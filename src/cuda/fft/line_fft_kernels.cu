// The GPU FFT plans' own kernels (sarfuse::gpu::FftPlan, fft_plan.cpp): Stockham lines (radix 16 / 8 /
// 4, one thread group per line, strided lines allowed), mixed radix, in-place Cooley-Tukey DIF in split
// layout, and the four-step path's column DFTs; the launchers of line_fft_kernels.hpp.
#include "cuda/fft/line_fft_kernels.hpp"

#include <cuda_fp16.h>

#include <string>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/storage.cuh"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::gpu {

namespace {

using cuda::fft::BlockShape;
using cuda::fft::C32;
using cuda::fft::to_c32;
using cuda::fft::to_float2;

// Io: float2, or __half2 (FP16 rows in and out, FP32 butterflies: the fp16-storage passes' FFT alone,
// unscaled, so the input must keep N sqrt(2) max|x| below FP16's 65504; `sarfuse bench fft` and a GPU
// test use it).
template <int N, int E, class Io = float2>
__global__ void __launch_bounds__(BlockShape<N, E>::threads * BlockShape<N, E>::lines)
    stockham_lines_kernel(const Io* __restrict__ in, Io* __restrict__ out, int batch, int stride, int dist,
                          bool inverse, const float2* __restrict__ tw) {
  extern __shared__ C32 smem[];
  constexpr int T = N / E;
  const int tid = threadIdx.x;
  const int line = static_cast<int>(blockIdx.x) * BlockShape<N, E>::lines + static_cast<int>(threadIdx.y);
  const bool active = line < batch;
  C32* s = smem + threadIdx.y * cuda::fft::smem_size(N);
  const std::size_t base = static_cast<std::size_t>(active ? line : 0) * dist;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const C32 x =
        active ? cuda::fft::load_scaled(in + base + static_cast<std::size_t>(tid + q * T) * stride, 1.0f) : C32{0.f, 0.f};
    v[q] = inverse ? cuda::fft::conj(x) : x;  // inverse = conj . forward . conj
  }
  cuda::fft::block_fft_forward<N, E>(v, s, tw, tid);
  if (!active) return;
#pragma unroll
  for (int q = 0; q < E; ++q)
    cuda::fft::store_scaled(out + base + static_cast<std::size_t>(tid + q * T) * stride,
                            inverse ? cuda::fft::conj(v[q]) : v[q], 1.0f);
}

template <int N, int E, class Io = float2>
void launch_stockham(const Io* in, Io* out, const FftDesc& d, const float2* tw, cudaStream_t stream) {
  if constexpr (N / E <= 1024 && N / E >= 4) {
    using S = BlockShape<N, E>;
    const void* k = reinterpret_cast<const void*>(&stockham_lines_kernel<N, E, Io>);
    SARFUSE_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
    const dim3 grid(static_cast<unsigned>((d.batch + S::lines - 1) / S::lines)), block(S::threads, S::lines);
    stockham_lines_kernel<N, E, Io><<<grid, block, S::smem_bytes, stream>>>(in, out, d.batch, d.stride, d.dist, d.inverse, tw);
    SARFUSE_LAUNCHED("stockham_lines_kernel");
  } else {
    throw Error("GPU FFT: radix-" + std::to_string(E) + " Stockham cannot run " + std::to_string(N) + " points");
  }
}

// Mixed radix (n = 2^a 3^b 5^c 7^d): one thread block per line, the line in shared memory twice
// (ping-pong), the passes of mixed_radix_schedule (7s, 5s, 3s, then 16s and the rest of the power of
// two) with register butterflies per thread; the same schedule test_fft_math.cpp emulates on the CPU.
struct MixedSchedule {
  int radices[32];
  int passes;
};
constexpr int kMixedThreads = 256;
constexpr int kMixedMaxN = 12288;  // two complex64 copies in the 227 KiB of shared memory an SM gives a block

template <int R>
__device__ __forceinline__ void mixed_butterflies(const C32* __restrict__ a, C32* __restrict__ b, int n, int ns,
                                                  const float2* __restrict__ tw) {
  for (int j = threadIdx.x; j < n / R; j += blockDim.x) {
    C32 v[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      v[r] = a[cuda::fft::stockham_input(j, r, n, R)];
      if (r > 0 && ns > 1) v[r] = v[r] * to_c32(__ldg(tw + cuda::fft::stockham_twiddle(j, r, ns, n, R)));
    }
    if constexpr (R == 3 || R == 5 || R == 7) cuda::fft::dft_odd<R>(v);
    else cuda::fft::dft<R>(v);
#pragma unroll
    for (int r = 0; r < R; ++r) b[cuda::fft::stockham_output(j, r, ns, R)] = v[r];
  }
}

__global__ void __launch_bounds__(kMixedThreads) mixed_radix_lines_kernel(const float2* __restrict__ in,
                                                                          float2* __restrict__ out, int n, int stride,
                                                                          int dist, bool inverse, MixedSchedule sched,
                                                                          const float2* __restrict__ tw) {
  extern __shared__ C32 smem[];
  C32* a = smem;
  C32* b = smem + n;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * dist;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const C32 x = to_c32(in[base + static_cast<std::size_t>(i) * stride]);
    a[i] = inverse ? cuda::fft::conj(x) : x;
  }
  int ns = 1;
  for (int p = 0; p < sched.passes; ++p) {
    __syncthreads();
    const int radix = sched.radices[p];
    switch (radix) {
      case 2: mixed_butterflies<2>(a, b, n, ns, tw); break;
      case 3: mixed_butterflies<3>(a, b, n, ns, tw); break;
      case 4: mixed_butterflies<4>(a, b, n, ns, tw); break;
      case 5: mixed_butterflies<5>(a, b, n, ns, tw); break;
      case 7: mixed_butterflies<7>(a, b, n, ns, tw); break;
      case 8: mixed_butterflies<8>(a, b, n, ns, tw); break;
      default: mixed_butterflies<16>(a, b, n, ns, tw); break;
    }
    C32* t = a;
    a = b;
    b = t;
    ns *= radix;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[base + static_cast<std::size_t>(i) * stride] = to_float2(inverse ? cuda::fft::conj(a[i]) : a[i]);
}

}  // namespace

void launch_mixed_radix(const float2* in, float2* out, const FftDesc& d, const float2* tw, cudaStream_t stream) {
  // The nice lengths the row kernels are compiled for run register-resident (block_fft.cuh); the rest here.
  if (cuda::fft::dispatch_nice(d.n, [&]<int N>() { launch_stockham<N, cuda::fft::row_elems(N)>(in, out, d, tw, stream); }))
    return;
  MixedSchedule sched{};
  sched.passes = cuda::fft::mixed_radix_schedule(d.n, sched.radices);
  if (sched.passes == 0 || d.n > kMixedMaxN)
    throw Error("GPU FFT: the mixed-radix kernel takes n = 2^a 3^b 5^c 7^d up to " + std::to_string(kMixedMaxN) +
                ", not " + std::to_string(d.n));
  const int smem = 2 * d.n * static_cast<int>(sizeof(C32));
  SARFUSE_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(&mixed_radix_lines_kernel),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  mixed_radix_lines_kernel<<<d.batch, kMixedThreads, smem, stream>>>(in, out, d.n, d.stride, d.dist, d.inverse, sched, tw);
  SARFUSE_LAUNCHED("mixed_radix_lines_kernel");
}

namespace {

// Threads per block of the column-tile kernel (cuda/fft/column_fft.cu) for n-point columns.
int column_threads(int n) { return n >= 1024 ? 1024 : 512; }

template <int E>
void dispatch_stockham_radix(const float2* in, float2* out, const FftDesc& d, const float2* tw, cudaStream_t stream) {
  if (E == 16 && d.stride > 1 && d.dist == 1 && cuda::column_fft_supports(d.n)) {  // columns: the column-tile kernel
    cuda::launch_column_fft(d.n, column_threads(d.n), in, d.stride, out, d.stride, d.batch, d.inverse, tw, stream);
    return;
  }
  cuda::fft::dispatch_pow2<64, 16384>(d.n, "GPU FFT: Stockham kernels",
                                      [&]<int N>() { launch_stockham<N, E>(in, out, d, tw, stream); });
}

// ---- in-place Cooley-Tukey DIF, split layout (FftVariant::ct_dif_split) ----
template <int N>
struct CtShape {
  static constexpr int threads = N / 8 > 1024 ? 1024 : N / 8;  // per line: one radix-8 butterfly each
  static constexpr int lines = threads >= 256 ? 1 : 256 / threads;
  static constexpr int smem_bytes = lines * 2 * N * static_cast<int>(sizeof(float));
};

template <int N>
__global__ void __launch_bounds__(CtShape<N>::threads * CtShape<N>::lines)
    ct_dif_split_kernel(const float2* in, float2* out, int batch, int stride, int dist, bool inverse,
                        const float2* __restrict__ tw) {
  using S = CtShape<N>;
  extern __shared__ float split[];
  const int tid = threadIdx.x, line = static_cast<int>(blockIdx.x) * S::lines + static_cast<int>(threadIdx.y);
  const bool active = line < batch;
  float* re = split + threadIdx.y * 2 * N;  // the line as two arrays: real parts, then imaginary parts
  float* im = re + N;
  const std::size_t base = static_cast<std::size_t>(active ? line : 0) * dist;
  for (int i = tid; i < N; i += S::threads) {
    C32 x = active ? to_c32(in[base + static_cast<std::size_t>(i) * stride]) : C32{0.f, 0.f};
    if (inverse) x = cuda::fft::conj(x);
    re[i] = x.re;
    im[i] = x.im;
  }
  auto twiddle = [tw](int i) { return to_c32(__ldg(tw + i)); };
  for (int span = N; span > 1; span /= cuda::fft::ct_dif_radix(span)) {
    __syncthreads();
    const int r = cuda::fft::ct_dif_radix(span);
    for (int b = tid; b < N / r; b += S::threads) {
      if (r == 8) cuda::fft::ct_dif_butterfly<8>(re, im, span, b, N, twiddle);
      else if (r == 4) cuda::fft::ct_dif_butterfly<4>(re, im, span, b, N, twiddle);
      else cuda::fft::ct_dif_butterfly<2>(re, im, span, b, N, twiddle);
    }
  }
  __syncthreads();
  if (!active) return;
  for (int k = tid; k < N; k += S::threads) {  // natural order out: gather the digit-reversed spectrum
    const int p = cuda::fft::ct_dif_position(k, N);
    const C32 y{re[p], im[p]};
    out[base + static_cast<std::size_t>(k) * stride] = to_float2(inverse ? cuda::fft::conj(y) : y);
  }
}

}  // namespace

void launch_ct_dif_split(const float2* in, float2* out, const FftDesc& d, const float2* tw, cudaStream_t stream) {
  auto go = [&]<int N>() {
    using S = CtShape<N>;
    const void* k = reinterpret_cast<const void*>(&ct_dif_split_kernel<N>);
    SARFUSE_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
    const dim3 grid(static_cast<unsigned>((d.batch + S::lines - 1) / S::lines)), block(S::threads, S::lines);
    ct_dif_split_kernel<N><<<grid, block, S::smem_bytes, stream>>>(in, out, d.batch, d.stride, d.dist, d.inverse, tw);
    SARFUSE_LAUNCHED("ct_dif_split");
  };
  cuda::fft::dispatch_pow2<64, 16384>(d.n, "GPU FFT: ct-dif-split", go);
}

namespace {

// ---- four-step (FftVariant::four_step; line_fft_kernels.hpp): pass A's in-register column DFTs ----

template <int N1>
__global__ void four_step_small_columns_kernel(const float2* __restrict__ in, float2* __restrict__ scratch, int batch,
                                               int n2, bool inverse) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(batch) * n2) return;
  const std::size_t line = i / n2;
  const int c = static_cast<int>(i % n2), n = N1 * n2;
  const float2* src = in + line * n + c;
  C32 x[N1];
#pragma unroll
  for (int r = 0; r < N1; ++r) {
    x[r] = to_c32(src[static_cast<std::size_t>(r) * n2]);
    if (inverse) x[r] = cuda::fft::conj(x[r]);
  }
  cuda::fft::dft<N1>(x);
  float2* dst = scratch + line * n + c;
#pragma unroll
  for (int k1 = 0; k1 < N1; ++k1) {
    float sn, cs;
    sincospif(-2.0f * static_cast<float>(k1 * c) / static_cast<float>(n), &sn, &cs);  // k1 c < n: exact
    const C32 y = x[k1] * C32{cs, sn};
    dst[static_cast<std::size_t>(k1) * n2] = to_float2(inverse ? cuda::fft::conj(y) : y);
  }
}

}  // namespace

FourStepSplit four_step_split(int n) { return n <= (1 << 16) ? FourStepSplit{n / 4096, 4096} : FourStepSplit{256, n / 256}; }

void launch_stockham_lines(int radix, const float2* in, float2* out, const FftDesc& d, const float2* tw,
                           cudaStream_t stream) {
  switch (radix) {
    case 16: dispatch_stockham_radix<16>(in, out, d, tw, stream); break;
    case 8: dispatch_stockham_radix<8>(in, out, d, tw, stream); break;
    case 4: dispatch_stockham_radix<4>(in, out, d, tw, stream); break;
    default: throw Error("GPU FFT: no radix-" + std::to_string(radix) + " Stockham kernel");
  }
}

void launch_four_step_small_columns(int n1, const float2* in, float2* scratch, int batch, int n2, bool inverse,
                                    cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((static_cast<std::size_t>(batch) * n2 + 255) / 256);
  if (n1 == 8) four_step_small_columns_kernel<8><<<blocks, 256, 0, stream>>>(in, scratch, batch, n2, inverse);
  else if (n1 == 16) four_step_small_columns_kernel<16><<<blocks, 256, 0, stream>>>(in, scratch, batch, n2, inverse);
  else throw Error("GPU FFT: four-step columns of " + std::to_string(n1) + " points (expected 8 or 16)");
  SARFUSE_LAUNCHED("four_step_small_columns");
}

}  // namespace sarfuse::gpu

namespace sarfuse::cuda {

void launch_row_fft_fp16_storage(int n, const __half2* in, __half2* out, int batch, bool inverse,
                                 const float2* twiddles, cudaStream_t stream) {
  gpu::FftDesc d;
  d.n = n;
  d.batch = batch;
  d.dist = n;
  d.inverse = inverse;
  fft::dispatch_pow2<64, 16384>(n, "FP16-storage row FFT", [&]<int N>() {
    gpu::launch_stockham<N, 16, __half2>(in, out, d, twiddles, stream);
  });
}

}  // namespace sarfuse::cuda
