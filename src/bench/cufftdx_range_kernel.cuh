// The cuFFTDx range-compression kernel and one configuration of it (a block FFT of N points, EPT
// elements a thread, FPB lines a block; EPT 0: cuFFTDx's suggested elements per thread), for the bench's
// peer (cufftdx_range.cu) and the experiments that time it at other lengths. Needs MathDx's headers.
#pragma once
#include <cstdio>
#include <cufftdx.hpp>
#include <memory>

#include "bench/cufftdx_range.hpp"
#include "cuda/check.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::bench::cufftdx_peer {

template <int N, int FPB, cufftdx::fft_direction Dir>
using BlockFftBase = decltype(cufftdx::Size<N>() + cufftdx::Precision<float>() + cufftdx::Type<cufftdx::fft_type::c2c>() +
                              cufftdx::Direction<Dir>() + cufftdx::SM<SARFUSE_CUFFTDX_SM>() + cufftdx::Block() +
                              cufftdx::FFTsPerBlock<FPB>());
template <int N, int EPT, int FPB, cufftdx::fft_direction Dir>
struct BlockFftOf {
  using type = decltype(BlockFftBase<N, FPB, Dir>() + cufftdx::ElementsPerThread<EPT>());
};
template <int N, int FPB, cufftdx::fft_direction Dir>
struct BlockFftOf<N, 0, FPB, Dir> {
  using type = BlockFftBase<N, FPB, Dir>;
};
template <int N, int EPT, int FPB, cufftdx::fft_direction Dir>
using BlockFft = typename BlockFftOf<N, EPT, FPB, Dir>::type;

// Element i of a thread holds line index threadIdx.x + i * stride, before and after the transforms
// (cuFFTDx's register layout for a complex-to-complex block FFT); H is read in the same order. Where
// elements x threads exceed N (some non-power-of-two sizes) the indices past N are neither read nor
// written. Sizes cuFFTDx has no kernel of its own for run as Bluestein FFTs with a workspace (empty
// otherwise).
template <class Fwd, class Inv>
__global__ void __launch_bounds__(Fwd::max_threads_per_block)
    range_kernel(const float2* __restrict__ in, float2* __restrict__ out, const float2* __restrict__ filter,
                 typename Fwd::workspace_type fwd_ws, typename Inv::workspace_type inv_ws) {
  using complex_type = typename Fwd::value_type;
  extern __shared__ __align__(alignof(float4)) unsigned char shared[];
  constexpr unsigned n = cufftdx::size_of<Fwd>::value, stride = Fwd::stride;
  const std::size_t line = static_cast<std::size_t>(blockIdx.x) * Fwd::ffts_per_block + threadIdx.y;
  const float2* src = in + line * n;
  constexpr bool kEven = stride * Fwd::elements_per_thread == n;
  auto in_line = [](unsigned i) { return kEven || threadIdx.x + i * stride < n; };
  complex_type x[Fwd::storage_size];
#pragma unroll
  for (unsigned i = 0; i < Fwd::elements_per_thread; ++i) {
    const float2 v = in_line(i) ? src[threadIdx.x + i * stride] : make_float2(0.f, 0.f);
    x[i] = complex_type{v.x, v.y};
  }
  Fwd().execute(x, shared, fwd_ws);
#pragma unroll
  for (unsigned i = 0; i < Fwd::elements_per_thread; ++i) {
    const float2 h = in_line(i) ? filter[threadIdx.x + i * stride] : make_float2(0.f, 0.f);
    x[i] = complex_type{x[i].x * h.x - x[i].y * h.y, x[i].x * h.y + x[i].y * h.x};
  }
  Inv().execute(x, shared, inv_ws);
  float2* dst = out + line * n;
#pragma unroll
  for (unsigned i = 0; i < Fwd::elements_per_thread; ++i)
    if (in_line(i)) dst[threadIdx.x + i * stride] = make_float2(x[i].x, x[i].y);
}

template <int N, int EPT, int FPB>
inline CufftdxRange make_config() {
  using Fwd = BlockFft<N, EPT, FPB, cufftdx::fft_direction::forward>;
  using Inv = BlockFft<N, EPT, FPB, cufftdx::fft_direction::inverse>;
  const unsigned shared = Fwd::shared_memory_size > Inv::shared_memory_size ? Fwd::shared_memory_size
                                                                             : Inv::shared_memory_size;
  SARFUSE_CUDA(cudaFuncSetAttribute(range_kernel<Fwd, Inv>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  char text[200];
  std::snprintf(text, sizeof text, "%u threads x %u elements, %d FFT%s per block, %u B shared%s",
                Fwd::block_dim.x * Fwd::block_dim.y, static_cast<unsigned>(Fwd::elements_per_thread), FPB,
                FPB > 1 ? "s" : "", shared, Fwd::requires_workspace ? ", Bluestein (workspace)" : "");
  cudaError_t err = cudaSuccess;
  auto fwd_ws = std::make_shared<decltype(cufftdx::make_workspace<Fwd>(err))>(cufftdx::make_workspace<Fwd>(err));
  SARFUSE_CUDA(err);
  auto inv_ws = std::make_shared<decltype(cufftdx::make_workspace<Inv>(err))>(cufftdx::make_workspace<Inv>(err));
  SARFUSE_CUDA(err);
  return {text, [shared, fwd_ws, inv_ws](const float2* in, float2* out, const float2* filter, int lines, cudaStream_t s) {
            if (lines % FPB) throw Error("cufftdx range: lines must be a multiple of " + std::to_string(FPB));
            range_kernel<Fwd, Inv><<<lines / FPB, Fwd::block_dim, shared, s>>>(in, out, filter, *fwd_ws, *inv_ws);
            SARFUSE_CUDA(cudaGetLastError());
          }};
}

}  // namespace sarfuse::bench::cufftdx_peer
