// sarfuse::gpu::FftPlan: the Stockham kernels (radix 16 / 8 / 4, one thread group per line, strided
// lines allowed) and cuFFT behind one plan; the variant from the built-in table, the caller, the wisdom
// file, or timing the candidates. (`sarfuse bench fft` times them: src/bench/bench_fft.cu.)
#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <type_traits>
#include <utility>
#include <cuda_fp16.h>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "core/fft.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/storage.cuh"
#include "cuda/fft/tensor_fft.cuh"
#include "cuda/backend.hpp"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "sarfuse/io.hpp"

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

// Threads per block of the column-tile kernel (cuda/fft/column_fft.cu) for n-point columns.
int column_threads(int n) { return n >= 1024 ? 1024 : 512; }

template <int E>
void dispatch_stockham(const float2* in, float2* out, const FftDesc& d, const float2* tw, cudaStream_t stream) {
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

// ---- four-step, lines of 2^15..2^22 points (FftVariant::four_step) ----
// n = N1 x N2, x[n1 N2 + n2]: (A) N1-point FFTs down the N2 columns of each line, x W_n^(k1 n2), into
// scratch row k1; (B) N2-point FFTs along the rows (X[k1 + N1 k2] lands at row k1, column k2);
// (C) transpose each line's N1 x N2 block into natural order. N1 = n / 4096 (8 or 16, an in-register
// DFT per column) up to 2^16, else N1 = 256 (the column-tile kernel) and N2 = n / 256.
struct FourStepSplit {
  int n1, n2;
};
FourStepSplit four_step_split(int n) { return n <= (1 << 16) ? FourStepSplit{n / 4096, 4096} : FourStepSplit{256, n / 256}; }

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

// Built-in choice (FftPlanning::estimate), from `sarfuse bench fft` (docs/performance.md, "Choices
// made from measurements"): our radix-8 Stockham at 256 points, cuFFT above.
FftVariant estimated_variant(const FftDesc& d) {
  const auto v = fft_variants_for(d);
  if (d.n == 256 && std::find(v.begin(), v.end(), FftVariant::stockham8) != v.end()) return FftVariant::stockham8;
  return FftVariant::cufft;
}

std::string device_name() {
  int dev = 0;
  SARFUSE_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  SARFUSE_CUDA(cudaGetDeviceProperties(&p, dev));
  return p.name;
}

}  // namespace

class FftPlan::Impl {
 public:
  Impl(const FftDesc& desc, const FftPlanOptions& o) : d(desc) {
    if (d.n < 2 || d.batch < 1 || d.stride < 1) throw Error("GPU FFT: expected n >= 2, batch >= 1, stride >= 1 (" + d.key() + ")");
    if (d.dist == 0) d.dist = d.stride == 1 ? d.n : 1;
    if (cuda::device_count() == 0) throw Error("GPU FFT: no CUDA device found");
    const auto candidates = fft_variants_for(d);
    const auto tensor = tensor_variants_for(d);
    if (o.variant != FftVariant::automatic) {
      if (std::find(candidates.begin(), candidates.end(), o.variant) == candidates.end() &&
          std::find(tensor.begin(), tensor.end(), o.variant) == tensor.end())
        throw Error(std::string("GPU FFT: variant ") + to_string(o.variant) + " cannot run " + d.key());
      set_variant(o.variant);
      how = "requested";
    } else if (o.planning == FftPlanning::estimate) {
      set_variant(estimated_variant(d));
      how = "estimate (built-in table)";
    } else {
      const bool use_wisdom = o.wisdom_path != "-";
      FftWisdom wisdom(use_wisdom ? (o.wisdom_path.empty() ? FftWisdom::default_path() : o.wisdom_path) : "");
      const std::string dev = device_name();
      FftVariant remembered;
      if (use_wisdom && wisdom.lookup(dev, d, &remembered)) {
        set_variant(remembered);
        how = "wisdom " + wisdom.path();
      } else {
        measure(candidates);
        if (use_wisdom) {
          wisdom.remember(dev, d, variant, best_ms);
          wisdom.save();
        }
      }
    }
  }
  ~Impl() {
    if (have_cufft) cufftDestroy(cufft);
  }

  void set_variant(FftVariant v) {
    variant = v;
    if (v == FftVariant::cufft) {
      if (!have_cufft) {
        int n[1] = {d.n};
        SARFUSE_CUFFT(cufftPlanMany(&cufft, 1, n, n, d.stride, d.dist, n, d.stride, d.dist, CUFFT_C2C, d.batch));
        have_cufft = true;
      }
    } else if (v == FftVariant::four_step) {
      if (scratch.size() == 0) {
        const FourStepSplit sp = four_step_split(d.n);
        scratch.resize(static_cast<std::size_t>(d.n) * d.batch);
        upload_table(row_twiddles, sp.n2);
        if (sp.n1 > 16) upload_table(column_twiddles, sp.n1);
      }
    } else if (twiddles.size() == 0) {
      upload_table(twiddles, d.n);
    }
  }

  static void upload_table(cuda::DeviceBuffer<float2>& b, int n) {
    const auto t = cuda::fft_twiddle_table(n);
    b.resize(t.size());
    SARFUSE_CUDA(cudaMemcpy(b.get(), t.data(), t.size() * sizeof(float2), cudaMemcpyHostToDevice));
  }

  void run_four_step(const float2* in, float2* out, cudaStream_t stream) const {
    const FourStepSplit sp = four_step_split(d.n);
    float2* w = scratch.get();
    const std::size_t n = static_cast<std::size_t>(d.n);
    if (sp.n1 <= 16) {
      const unsigned blocks = static_cast<unsigned>((static_cast<std::size_t>(d.batch) * sp.n2 + 255) / 256);
      if (sp.n1 == 8) four_step_small_columns_kernel<8><<<blocks, 256, 0, stream>>>(in, w, d.batch, sp.n2, d.inverse);
      else four_step_small_columns_kernel<16><<<blocks, 256, 0, stream>>>(in, w, d.batch, sp.n2, d.inverse);
      SARFUSE_LAUNCHED("four_step_small_columns");
    } else {
      cuda::ColumnScaling tw;
      tw.twiddle_n = d.n;
      tw.twiddle_sign = d.inverse ? 1.0f : -1.0f;
      for (int line = 0; line < d.batch; ++line)
        cuda::launch_column_fft(sp.n1, 1024, in + line * n, sp.n2, w + line * n, sp.n2, sp.n2, d.inverse,
                                column_twiddles.get(), stream, tw);
    }
    FftDesc rows;
    rows.n = sp.n2;
    rows.batch = d.batch * sp.n1;
    rows.dist = sp.n2;
    rows.inverse = d.inverse;
    dispatch_stockham<16>(w, w, rows, row_twiddles.get(), stream);
    for (int line = 0; line < d.batch; ++line)
      cuda::launch_transpose(w + line * n, sp.n1, sp.n2, sp.n2, out + line * n, sp.n1, stream);
  }

  void run(const float2* in, float2* out, cudaStream_t stream) const {
    switch (variant) {
      case FftVariant::stockham16: dispatch_stockham<16>(in, out, d, twiddles.get(), stream); break;
      case FftVariant::stockham8: dispatch_stockham<8>(in, out, d, twiddles.get(), stream); break;
      case FftVariant::stockham4: dispatch_stockham<4>(in, out, d, twiddles.get(), stream); break;
      case FftVariant::mixed_radix: launch_mixed_radix(in, out, d, twiddles.get(), stream); break;
      case FftVariant::ct_dif_split: launch_ct_dif_split(in, out, d, twiddles.get(), stream); break;
      case FftVariant::four_step: run_four_step(in, out, stream); break;
      case FftVariant::tensor_fp16:
      case FftVariant::tensor_bf16:
      case FftVariant::tensor_tf32:
      case FftVariant::tensor_tf32x3:
      case FftVariant::tensor_fp64: {
        const auto mode = variant == FftVariant::tensor_fp16    ? cuda::fft::TensorMode::fp16
                          : variant == FftVariant::tensor_bf16  ? cuda::fft::TensorMode::bf16
                          : variant == FftVariant::tensor_tf32  ? cuda::fft::TensorMode::tf32
                          : variant == FftVariant::tensor_fp64  ? cuda::fft::TensorMode::fp64
                                                                : cuda::fft::TensorMode::tf32x3;
        cuda::fft::launch_tensor_fft256(mode, in, out, d.batch, d.inverse, twiddles.get(), stream);
        break;
      }
      case FftVariant::cufft:
        SARFUSE_CUFFT(cufftSetStream(cufft, stream));
        SARFUSE_CUFFT(cufftExecC2C(cufft, reinterpret_cast<cufftComplex*>(const_cast<float2*>(in)),
                                   reinterpret_cast<cufftComplex*>(out), d.inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
        break;
      case FftVariant::automatic: throw Error("GPU FFT: no variant chosen");
    }
  }

  // Times every candidate on random data in scratch buffers (median of 7 after a warm-up), keeps the fastest.
  void measure(const std::vector<FftVariant>& candidates) {
    const std::size_t span = static_cast<std::size_t>(d.batch - 1) * d.dist + static_cast<std::size_t>(d.n - 1) * d.stride + 1;
    cuda::DeviceBuffer<float2> a(span), b(span);
    std::vector<float2> host(span);
    std::mt19937 g(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : host) x = make_float2(u(g), u(g));
    SARFUSE_CUDA(cudaMemcpy(a.get(), host.data(), span * sizeof(float2), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    SARFUSE_CUDA(cudaEventCreate(&e0));
    SARFUSE_CUDA(cudaEventCreate(&e1));
    std::ostringstream log;
    best_ms = 1e300;
    FftVariant best = candidates.front();
    for (FftVariant v : candidates) {
      set_variant(v);
      run(a.get(), b.get(), nullptr);
      std::vector<float> t(7);
      for (float& ms : t) {
        SARFUSE_CUDA(cudaEventRecord(e0));
        run(a.get(), b.get(), nullptr);
        SARFUSE_CUDA(cudaEventRecord(e1));
        SARFUSE_CUDA(cudaEventSynchronize(e1));
        SARFUSE_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      }
      std::sort(t.begin(), t.end());
      log << (log.tellp() > 0 ? ", " : "") << to_string(v) << " " << t[3] << " ms";
      if (t[3] < best_ms) {
        best_ms = t[3];
        best = v;
      }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    set_variant(best);
    how = "measured: " + log.str();
  }

  FftDesc d;
  FftVariant variant = FftVariant::automatic;
  std::string how;
  double best_ms = 0;
  cufftHandle cufft = 0;
  bool have_cufft = false;
  cuda::DeviceBuffer<float2> twiddles;
  cuda::DeviceBuffer<float2> scratch, row_twiddles, column_twiddles;  // four_step
};

FftPlan::FftPlan(const FftDesc& desc, const FftPlanOptions& options) : impl_(std::make_unique<Impl>(desc, options)) {}
FftPlan::FftPlan(FftPlan&&) noexcept = default;
FftPlan& FftPlan::operator=(FftPlan&&) noexcept = default;
FftPlan::~FftPlan() = default;
void FftPlan::execute(const std::complex<float>* in, std::complex<float>* out, void* stream) const {
  impl_->run(reinterpret_cast<const float2*>(in), reinterpret_cast<float2*>(out), static_cast<cudaStream_t>(stream));
}
FftVariant FftPlan::variant() const { return impl_->variant; }
const FftDesc& FftPlan::desc() const { return impl_->d; }
const std::string& FftPlan::how_chosen() const { return impl_->how; }

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
