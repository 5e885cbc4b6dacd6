// sarfuse::gpu::FftPlan: the Stockham kernels (radix 16 / 8 / 4, one thread group per line, strided
// lines allowed) and cuFFT behind one plan; the variant from the built-in table, the caller, the wisdom
// file, or timing the candidates. And `sarfuse bench fft`.
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

namespace {

// cuFFT's own half-precision transform (CUDA_C_16F in, out and execution; powers of two only): the
// vendor's answer to "what does FP16 storage buy an FFT on this device", timed beside its FP32 one.
class CufftHalf {
 public:
  CufftHalf(long long n, long long batch, long long stride, long long dist) {
    SARFUSE_CUFFT(cufftCreate(&h_));
    std::size_t work = 0;
    long long dims[1] = {n};
    const cufftResult r = cufftXtMakePlanMany(h_, 1, dims, dims, stride, dist, CUDA_C_16F, dims, stride, dist,
                                              CUDA_C_16F, batch, &work, CUDA_C_16F);
    if (r != CUFFT_SUCCESS) {
      cufftDestroy(h_);
      SARFUSE_CUFFT(r);
    }
  }
  CufftHalf(const CufftHalf&) = delete;
  CufftHalf& operator=(const CufftHalf&) = delete;
  ~CufftHalf() { cufftDestroy(h_); }
  void forward(const __half2* in, __half2* out) const {
    SARFUSE_CUFFT(cufftXtExec(h_, const_cast<__half2*>(in), out, CUFFT_FORWARD));
  }

 private:
  cufftHandle h_ = 0;
};

}  // namespace

std::string bench_fft(const FftBenchOptions& o) {
  if (cuda::device_count() == 0) throw Error("bench fft: no CUDA device");
  std::ostringstream out;
  nlohmann::json js;
  const std::string dev = device_name();
  js["device"] = dev;
  out << "sarfuse bench fft on " << dev << ": batched forward complex64 FFTs, contiguous lines, data >= "
      << (o.min_bytes >> 20) << " MiB, median of " << o.repeats << " (CUDA events); relative L2 vs float64 on 4 lines\n";
  char line[256];
  std::snprintf(line, sizeof line, "%7s %8s %-11s %9s %9s %9s %10s %9s\n", "n", "batch", "variant", "ms", "GFLOPS",
                "GB/s", "rel L2", "vs cuFFT");
  out << line;
  cudaEvent_t e0, e1;
  SARFUSE_CUDA(cudaEventCreate(&e0));
  SARFUSE_CUDA(cudaEventCreate(&e1));
  // One warm-up run (which also fills the poisoned output), then the median of o.repeats.
  const auto median_ms = [&](const std::function<void()>& run) {
    run();
    std::vector<float> t(static_cast<std::size_t>(o.repeats));
    for (float& ms : t) {
      SARFUSE_CUDA(cudaEventRecord(e0));
      run();
      SARFUSE_CUDA(cudaEventRecord(e1));
      SARFUSE_CUDA(cudaEventSynchronize(e1));
      SARFUSE_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    }
    std::sort(t.begin(), t.end());
    return static_cast<double>(t[t.size() / 2]);
  };
  std::vector<int> sizes;
  for (int n = 256; n <= 16384; n *= 2) sizes.push_back(n);
  for (int n : {65536, 1048576, 4194304}) sizes.push_back(n);  // beyond one block: four-step
  for (int n : {1536, 6000, 7680}) sizes.push_back(n);         // non-powers of two
  for (int n : sizes) {
    const int batch = static_cast<int>((o.min_bytes + n * sizeof(float2) - 1) / (n * sizeof(float2)));
    const std::size_t total = static_cast<std::size_t>(n) * batch;
    cuda::DeviceBuffer<float2> a(total), b(total);
    std::vector<float2> host(total);
    std::mt19937 g(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : host) x = make_float2(u(g), u(g));
    SARFUSE_CUDA(cudaMemcpy(a.get(), host.data(), total * sizeof(float2), cudaMemcpyHostToDevice));
    // float64 reference of the first 4 lines.
    const int check = 4;
    std::vector<std::complex<double>> ref(static_cast<std::size_t>(n) * check);
    for (std::size_t k = 0; k < ref.size(); ++k) ref[k] = {host[k].x, host[k].y};
    core::FftPlan<double> f({n, check, 1, n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
    f.execute(ref.data(), ref.data());
    FftDesc d;
    d.n = n;
    d.batch = batch;
    double cufft_ms = 0;
    // Relative L2 of the first `check` lines of a device output against ref (NaN where one was not
    // written), and the table row + JSON entry of one timed variant.
    const auto rel_l2 = [&](const auto* d_out) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(d_out)>>;  // float2 or __half2
      std::vector<T> got(static_cast<std::size_t>(n) * check);
      SARFUSE_CUDA(cudaMemcpy(got.data(), d_out, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
      double err = 0, norm = 0;
      for (std::size_t k = 0; k < got.size(); ++k) {
        float2 v;
        if constexpr (std::is_same_v<T, __half2>) v = __half22float2(got[k]);
        else v = got[k];
        err += std::norm(std::complex<double>(v.x, v.y) - ref[k]);
        norm += std::norm(ref[k]);
      }
      return std::sqrt(err / norm);
    };
    const auto report = [&](const char* name, double ms, double rel, std::size_t element_bytes) {
      const double flops = 5.0 * n * std::log2(static_cast<double>(n)) * batch;
      const double bytes = 2.0 * static_cast<double>(total * element_bytes);
      std::snprintf(line, sizeof line, "%7d %8d %-11s %9.4f %9.0f %9.0f %10.2e %8.2fx\n", n, batch, name, ms,
                    flops / ms * 1e-6, bytes / ms * 1e-6, rel, cufft_ms / ms);
      out << line;
      js["results"].push_back({{"n", n}, {"batch", batch}, {"variant", name}, {"ms", ms},
                               {"gflops", flops / ms * 1e-6}, {"gb_s", bytes / ms * 1e-6}, {"relative_l2", rel},
                               {"speed_vs_cufft", cufft_ms / ms}});
    };
    std::vector<FftVariant> variants = fft_variants_for(d);
    std::rotate(variants.begin(), variants.end() - 1, variants.end());  // cuFFT first: the ratios need it
    for (FftVariant t : tensor_variants_for(d)) variants.push_back(t);  // reduced precision, after the exact ones
    for (FftVariant v : variants) {
      FftPlanOptions po;
      po.variant = v;
      const FftPlan plan(d, po);
      SARFUSE_CUDA(cudaMemset(b.get(), 0xFF, total * sizeof(float2)));  // poisoned: unwritten output shows
      const double ms = median_ms([&] {
        plan.execute(reinterpret_cast<const std::complex<float>*>(a.get()), reinterpret_cast<std::complex<float>*>(b.get()));
      });
      if (v == FftVariant::cufft) cufft_ms = ms;
      report(to_string(v), ms, rel_l2(b.get()), sizeof(float2));
    }
    if ((n & (n - 1)) == 0 && n <= 16384) {
      // FP16 rows, half the bytes: cuFFT's own FP16 transform (its arithmetic in FP16 too), and our block
      // FFT with FP32 butterflies (what the fp16-storage passes run): what FP16 storage buys an FFT pass.
      std::vector<__half2> hhost(total);
      for (std::size_t k = 0; k < total; ++k) hhost[k] = __floats2half2_rn(host[k].x, host[k].y);
      cuda::DeviceBuffer<__half2> ha(total), hb(total);
      SARFUSE_CUDA(cudaMemcpy(ha.get(), hhost.data(), total * sizeof(__half2), cudaMemcpyHostToDevice));
      const auto tw = cuda::fft_twiddle_table(n);
      cuda::DeviceBuffer<float2> dtw(tw.size());
      SARFUSE_CUDA(cudaMemcpy(dtw.get(), tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
      const CufftHalf half(n, batch, 1, n);
      const std::vector<std::pair<const char*, std::function<void()>>> cases = {
          {"cufft-fp16", [&] { half.forward(ha.get(), hb.get()); }},
          {"stockham16-fp16", [&] { cuda::launch_row_fft_fp16_storage(n, ha.get(), hb.get(), batch, false, dtw.get(), nullptr); }},
      };
      for (const auto& [name, run] : cases) {
        SARFUSE_CUDA(cudaMemset(hb.get(), 0xFF, total * sizeof(__half2)));  // poisoned: FP16 NaN
        const double ms = median_ms(run);
        report(name, ms, rel_l2(hb.get()), sizeof(__half2));
      }
    }
    FftPlanOptions measure;
    measure.planning = FftPlanning::measure;
    measure.wisdom_path = "-";
    const FftPlan chosen(d, measure);
    out << "        planner (measure): " << to_string(chosen.variant()) << " (" << chosen.how_chosen() << ")\n";
    js["planner"][std::to_string(n)] = to_string(chosen.variant());
  }
  // Columns of a row-major array: the RDA's azimuth FFTs (stride = the row length, dist 1).
  out << "\ncolumns of a row-major array (the azimuth FFTs): n-point FFTs down every column, stride = columns, "
         "dist 1, forward; own column-tile kernel at 512 and 1024 threads per block, and with FP16 storage; cuFFT in FP16\n";
  std::snprintf(line, sizeof line, "%7s %8s %-15s %9s %9s %10s %9s\n", "n", "columns", "variant", "ms", "GB/s",
                "rel L2", "vs cuFFT");
  out << line;
  for (int n = 1024; n <= 16384; n *= 2) {
    const int cols = static_cast<int>(std::max<std::size_t>(256, o.min_bytes / (n * sizeof(float2))));
    const std::size_t total = static_cast<std::size_t>(n) * cols;
    cuda::DeviceBuffer<float2> a(total), b(total);
    cuda::DeviceBuffer<__half2> ha(total), hb(total);
    std::vector<float2> host(total);
    std::vector<__half2> hhost(total);
    std::mt19937 g(static_cast<unsigned>(n) + 7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (std::size_t k = 0; k < total; ++k) {
      host[k] = make_float2(u(g), u(g));
      hhost[k] = __floats2half2_rn(host[k].x, host[k].y);
    }
    SARFUSE_CUDA(cudaMemcpy(a.get(), host.data(), total * sizeof(float2), cudaMemcpyHostToDevice));
    SARFUSE_CUDA(cudaMemcpy(ha.get(), hhost.data(), total * sizeof(__half2), cudaMemcpyHostToDevice));
    // float64 reference of the first 4 columns (of the complex64 input; the FP16 rows include its rounding).
    const int check = 4;
    std::vector<std::complex<double>> ref(static_cast<std::size_t>(n) * check);
    for (int c = 0; c < check; ++c)
      for (int r = 0; r < n; ++r) ref[static_cast<std::size_t>(c) * n + r] = {host[static_cast<std::size_t>(r) * cols + c].x, host[static_cast<std::size_t>(r) * cols + c].y};
    core::FftPlan<double> f({n, check, 1, n}, core::FftDirection::forward, ref.data(), ref.data(), FftPlanning::estimate);
    f.execute(ref.data(), ref.data());
    const auto tw = cuda::fft_twiddle_table(n);
    cuda::DeviceBuffer<float2> dtw(tw.size());
    SARFUSE_CUDA(cudaMemcpy(dtw.get(), tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
    FftDesc d;
    d.n = n;
    d.batch = cols;
    d.stride = cols;
    d.dist = 1;
    FftPlanOptions po;
    po.variant = FftVariant::cufft;
    const FftPlan cufft_plan(d, po);
    const CufftHalf cufft_half(n, cols, cols, 1);
    double cufft_ms = 0;
    struct Case {
      const char* name;
      bool half;
      std::function<void()> run;
    };
    const std::vector<Case> cases = {
        {"cufft", false, [&] { cufft_plan.execute(reinterpret_cast<const std::complex<float>*>(a.get()), reinterpret_cast<std::complex<float>*>(b.get())); }},
        {"columns-512", false, [&] { cuda::launch_column_fft(n, 512, a.get(), cols, b.get(), cols, cols, false, dtw.get(), nullptr); }},
        {"columns-1024", false, [&] { cuda::launch_column_fft(n, 1024, a.get(), cols, b.get(), cols, cols, false, dtw.get(), nullptr); }},
        {"columns-fp16-512", true, [&] { cuda::launch_column_fft(n, 512, ha.get(), cols, hb.get(), cols, cols, false, cuda::ColumnScaling{}, dtw.get(), nullptr); }},
        {"columns-fp16-1024", true, [&] { cuda::launch_column_fft(n, 1024, ha.get(), cols, hb.get(), cols, cols, false, cuda::ColumnScaling{}, dtw.get(), nullptr); }},
        {"cufft-fp16", true, [&] { cufft_half.forward(ha.get(), hb.get()); }},
    };
    for (const Case& cs : cases) {
      SARFUSE_CUDA(cudaMemset(b.get(), 0xFF, total * sizeof(float2)));
      SARFUSE_CUDA(cudaMemset(hb.get(), 0xFF, total * sizeof(__half2)));
      const double ms = median_ms(cs.run);
      double err = 0, norm = 0;
      for (int r = 0; r < n; ++r) {
        const std::size_t row = static_cast<std::size_t>(r) * cols;
        std::vector<float2> got(check);
        if (cs.half) {
          std::vector<__half2> hg(check);
          SARFUSE_CUDA(cudaMemcpy(hg.data(), hb.get() + row, check * sizeof(__half2), cudaMemcpyDeviceToHost));
          for (int c = 0; c < check; ++c) got[c] = __half22float2(hg[c]);
        } else {
          SARFUSE_CUDA(cudaMemcpy(got.data(), b.get() + row, check * sizeof(float2), cudaMemcpyDeviceToHost));
        }
        for (int c = 0; c < check; ++c) {
          const auto& want = ref[static_cast<std::size_t>(c) * n + r];
          err += std::norm(std::complex<double>(got[c].x, got[c].y) - want);
          norm += std::norm(want);
        }
      }
      const double rel = std::sqrt(err / norm);
      if (std::string(cs.name) == "cufft") cufft_ms = ms;
      const double bytes = 2.0 * total * (cs.half ? sizeof(__half2) : sizeof(float2));
      std::snprintf(line, sizeof line, "%7d %8d %-15s %9.4f %9.0f %10.2e %8.2fx\n", n, cols, cs.name, ms,
                    bytes / ms * 1e-6, rel, cufft_ms / ms);
      out << line;
      js["columns"].push_back({{"n", n}, {"columns", cols}, {"variant", cs.name}, {"ms", ms}, {"gb_s", bytes / ms * 1e-6},
                               {"relative_l2", rel}, {"speed_vs_cufft", cufft_ms / ms}});
    }
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (!o.json_path.empty()) write_text_file(o.json_path, js.dump(2) + "\n");
  return out.str();
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
