#include "bench/cufftdx_range.hpp"

#include <cstdio>

#include "cuda/check.hpp"

#if SARFUSE_HAVE_CUFFTDX
#include <cufftdx.hpp>
#endif

namespace sarfuse::bench {

#if SARFUSE_HAVE_CUFFTDX
namespace {

template <int N, int EPT, int FPB, cufftdx::fft_direction Dir>
using BlockFft = decltype(cufftdx::Size<N>() + cufftdx::Precision<float>() + cufftdx::Type<cufftdx::fft_type::c2c>() +
                          cufftdx::Direction<Dir>() + cufftdx::SM<SARFUSE_CUFFTDX_SM>() + cufftdx::Block() +
                          cufftdx::ElementsPerThread<EPT>() + cufftdx::FFTsPerBlock<FPB>());

// Element i of a thread holds line index threadIdx.x + i * stride, before and after the transforms
// (cuFFTDx's register layout for a complex-to-complex block FFT); H is read in the same order.
template <class Fwd, class Inv>
__global__ void __launch_bounds__(Fwd::max_threads_per_block) range_kernel(const float2* __restrict__ in,
                                                                          float2* __restrict__ out,
                                                                          const float2* __restrict__ filter) {
  using complex_type = typename Fwd::value_type;
  extern __shared__ __align__(alignof(float4)) unsigned char shared[];
  constexpr unsigned n = cufftdx::size_of<Fwd>::value, stride = Fwd::stride;
  const std::size_t line = static_cast<std::size_t>(blockIdx.x) * Fwd::ffts_per_block + threadIdx.y;
  const float2* src = in + line * n;
  complex_type x[Fwd::storage_size];
#pragma unroll
  for (unsigned i = 0; i < Fwd::elements_per_thread; ++i) {
    const float2 v = src[threadIdx.x + i * stride];
    x[i] = complex_type{v.x, v.y};
  }
  Fwd().execute(x, shared);
#pragma unroll
  for (unsigned i = 0; i < Fwd::elements_per_thread; ++i) {
    const float2 h = filter[threadIdx.x + i * stride];
    x[i] = complex_type{x[i].x * h.x - x[i].y * h.y, x[i].x * h.y + x[i].y * h.x};
  }
  Inv().execute(x, shared);
  float2* dst = out + line * n;
#pragma unroll
  for (unsigned i = 0; i < Fwd::elements_per_thread; ++i) dst[threadIdx.x + i * stride] = make_float2(x[i].x, x[i].y);
}

template <int N, int EPT, int FPB>
CufftdxRange make_config() {
  using Fwd = BlockFft<N, EPT, FPB, cufftdx::fft_direction::forward>;
  using Inv = BlockFft<N, EPT, FPB, cufftdx::fft_direction::inverse>;
  const unsigned shared = Fwd::shared_memory_size > Inv::shared_memory_size ? Fwd::shared_memory_size
                                                                             : Inv::shared_memory_size;
  SARFUSE_CUDA(cudaFuncSetAttribute(range_kernel<Fwd, Inv>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  char text[160];
  std::snprintf(text, sizeof text, "%u threads x %d elements, %d FFT%s per block, %u B shared",
                Fwd::block_dim.x * Fwd::block_dim.y, EPT, FPB, FPB > 1 ? "s" : "", shared);
  return {text, [shared](const float2* in, float2* out, const float2* filter, int lines, cudaStream_t s) {
            if (lines % FPB) throw Error("cufftdx range: lines must be a multiple of " + std::to_string(FPB));
            range_kernel<Fwd, Inv><<<lines / FPB, Fwd::block_dim, shared, s>>>(in, out, filter);
            SARFUSE_CUDA(cudaGetLastError());
          }};
}

}  // namespace

bool have_cufftdx() { return true; }

std::vector<CufftdxRange> cufftdx_range_configs(int n) {
  switch (n) {
    case 2048: return {make_config<2048, 8, 2>(), make_config<2048, 16, 1>(), make_config<2048, 16, 2>()};
    case 4096: return {make_config<4096, 16, 1>(), make_config<4096, 8, 1>(), make_config<4096, 32, 1>()};
    case 8192: return {make_config<8192, 32, 1>(), make_config<8192, 16, 1>()};
    case 16384: return {make_config<16384, 32, 1>(), make_config<16384, 16, 1>()};
    default: return {};
  }
}
#else
bool have_cufftdx() { return false; }
std::vector<CufftdxRange> cufftdx_range_configs(int) { return {}; }
#endif

}  // namespace sarfuse::bench
