#include "cuda/fft/tensor_fft.cuh"
#include "cuda/fft/tensor_dft.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <type_traits>

#include "cuda/check.hpp"

namespace sarfuse::cuda::fft {

namespace {

using namespace nvcuda;

constexpr int kWarps = 4;  // lines per block

// The 16-bit operand modes: FP16 (10-bit mantissa, 5-bit exponent) and BF16 (7-bit mantissa, FP32's
// 8-bit exponent: no overflow to guard against, three bits less precision).
template <TensorMode M>
constexpr bool kSixteenBit = M == TensorMode::fp16 || M == TensorMode::bf16;

template <TensorMode M>
struct Frag {
  static constexpr int K = kSixteenBit<M> ? 16 : 8;
  using Acc = wmma::fragment<wmma::accumulator, 16, 16, K, float>;
  using Low = std::conditional_t<M == TensorMode::bf16, __nv_bfloat16, half>;  // the 16-bit operand copies
};

template <TensorMode M>
__device__ __forceinline__ typename Frag<M>::Low to_low(float x) {
  if constexpr (M == TensorMode::bf16) return __float2bfloat16(x);
  else return __float2half(x);
}

// acc += A B for 16 x 16 row-major operands in shared memory (float, and their 16-bit copies).
template <TensorMode M, class Low = typename Frag<M>::Low>
__device__ __forceinline__ void mma_acc(typename Frag<M>::Acc& acc, const float* a, const Low* ah, const float* b,
                                        const Low* bh) {
  if constexpr (kSixteenBit<M>) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, Low, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, Low, wmma::row_major> fb;
    wmma::load_matrix_sync(fa, ah, 16);
    wmma::load_matrix_sync(fb, bh, 16);
    wmma::mma_sync(acc, fa, fb, acc);
  } else {
    mma16_tf32<M == TensorMode::tf32x3>(acc, a, 16, b, 16);
  }
}

template <TensorMode M>
__global__ void __launch_bounds__(32 * kWarps) tensor_fft256_kernel(const float2* __restrict__ in, float2* __restrict__ out,
                                                                   int batch, bool inverse, const float2* __restrict__ tw) {
  // The 16-point DFT matrix F[r][c] = exp(-2 pi i r c / 16), its imaginary part negated (for the
  // subtractions), in float and half; per warp the line as a 16 x 16 row-major matrix x[16 a + b].
  __shared__ __align__(32) float fr[256], fi[256], fn[256];
  using Low = typename Frag<M>::Low;
  __shared__ __align__(32) Low hfr[256], hfi[256], hfn[256];
  __shared__ __align__(32) float xr_all[kWarps][256], xi_all[kWarps][256];
  __shared__ __align__(32) Low hxr_all[kWarps][256], hxi_all[kWarps][256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    const float2 w = tw[((i / 16) * (i % 16) & 15) * 16];
    fr[i] = w.x;
    fi[i] = w.y;
    fn[i] = -w.y;
    hfr[i] = to_low<M>(w.x);
    hfi[i] = to_low<M>(w.y);
    hfn[i] = to_low<M>(-w.y);
  }
  __syncthreads();  // the last block-wide barrier: warps without a line may leave below
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int line = blockIdx.x * kWarps + warp;
  if (line >= batch) return;
  float* xr = xr_all[warp];
  float* xi = xi_all[warp];
  Low* hxr = hxr_all[warp];
  Low* hxi = hxi_all[warp];
  const float2* src = in + static_cast<std::size_t>(line) * 256;
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    const int i = lane + 32 * t;
    const float2 v = src[i];
    xr[i] = v.x;
    xi[i] = inverse ? -v.y : v.y;
    if constexpr (kSixteenBit<M>) {
      hxr[i] = to_low<M>(xr[i]);
      hxi[i] = to_low<M>(xi[i]);
    }
  }
  __syncwarp();
  typename Frag<M>::Acc re, im;
  // Stage 1: C = F X (16-point DFTs down the columns: over a), four real products:
  // Cr = Fr Xr + (-Fi) Xi, Ci = Fr Xi + Fi Xr.
  wmma::fill_fragment(re, 0.f);
  wmma::fill_fragment(im, 0.f);
  mma_acc<M>(re, fr, hfr, xr, hxr);
  mma_acc<M>(re, fn, hfn, xi, hxi);
  mma_acc<M>(im, fr, hfr, xi, hxi);
  mma_acc<M>(im, fi, hfi, xr, hxr);
  __syncwarp();
  wmma::store_matrix_sync(xr, re, 16, wmma::mem_row_major);
  wmma::store_matrix_sync(xi, im, 16, wmma::mem_row_major);
  __syncwarp();
  // Twiddle C[k1][b] x exp(-2 pi i k1 b / 256).
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    const int i = lane + 32 * t;
    const float2 w = tw[(i / 16) * (i % 16)];
    const float a = xr[i], b = xi[i];
    xr[i] = a * w.x - b * w.y;
    xi[i] = a * w.y + b * w.x;
    if constexpr (kSixteenBit<M>) {
      hxr[i] = to_low<M>(xr[i]);
      hxi[i] = to_low<M>(xi[i]);
    }
  }
  __syncwarp();
  // Stage 2: Y = C F (16-point DFTs along the rows: over b); Y[k1][k2] = X[k1 + 16 k2]:
  // Yr = Cr Fr + Ci (-Fi), Yi = Cr Fi + Ci Fr.
  wmma::fill_fragment(re, 0.f);
  wmma::fill_fragment(im, 0.f);
  mma_acc<M>(re, xr, hxr, fr, hfr);
  mma_acc<M>(re, xi, hxi, fn, hfn);
  mma_acc<M>(im, xr, hxr, fi, hfi);
  mma_acc<M>(im, xi, hxi, fr, hfr);
  __syncwarp();
  wmma::store_matrix_sync(xr, re, 16, wmma::mem_row_major);
  wmma::store_matrix_sync(xi, im, 16, wmma::mem_row_major);
  __syncwarp();
  float2* dst = out + static_cast<std::size_t>(line) * 256;
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    const int o = lane + 32 * t;  // output index k1 + 16 k2: coalesced stores, transposed smem reads
    const int s = (o % 16) * 16 + o / 16;
    dst[o] = make_float2(xr[s], inverse ? -xi[s] : xi[s]);
  }
}

// ---- FP64 (DMMA) ----
// c = a1 b1 + a2 b2 for 16 x 16 row-major double matrices in shared memory: 2 x 2 output tiles of 8 x 8,
// each accumulating eight 8 x 8 x 4 products (the double-precision tensor-core shape).
__device__ __forceinline__ void dmma16(double* c, const double* a1, const double* b1, const double* a2,
                                       const double* b2) {
#pragma unroll
  for (int ti = 0; ti < 2; ++ti)
#pragma unroll
    for (int tj = 0; tj < 2; ++tj) {
      wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
      wmma::fill_fragment(acc, 0.0);
#pragma unroll
      for (int k = 0; k < 16; k += 4) {
        wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, a1 + ti * 8 * 16 + k, 16);
        wmma::load_matrix_sync(fb, b1 + k * 16 + tj * 8, 16);
        wmma::mma_sync(acc, fa, fb, acc);
        wmma::load_matrix_sync(fa, a2 + ti * 8 * 16 + k, 16);
        wmma::load_matrix_sync(fb, b2 + k * 16 + tj * 8, 16);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(c + ti * 8 * 16 + tj * 8, acc, 16, wmma::mem_row_major);
    }
}

__global__ void __launch_bounds__(32 * kWarps) tensor_fft256_fp64_kernel(const float2* __restrict__ in,
                                                                        float2* __restrict__ out, int batch,
                                                                        bool inverse) {
  // F[r][c] = exp(-2 pi i r c / 16) in double (real, imaginary, negated imaginary); per warp the line
  // X (16 x 16, x[16 a + b]) and the product, real and imaginary parts.
  __shared__ __align__(32) double fr[256], fi[256], fn[256];
  __shared__ __align__(32) double xr_all[kWarps][256], xi_all[kWarps][256], yr_all[kWarps][256], yi_all[kWarps][256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    double sn, cs;
    sincospi(-2.0 * static_cast<double>(((i / 16) * (i % 16)) & 15) / 16.0, &sn, &cs);
    fr[i] = cs;
    fi[i] = sn;
    fn[i] = -sn;
  }
  __syncthreads();  // the last block-wide barrier: warps without a line may leave below
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int line = blockIdx.x * kWarps + warp;
  if (line >= batch) return;
  double* xr = xr_all[warp];
  double* xi = xi_all[warp];
  double* yr = yr_all[warp];
  double* yi = yi_all[warp];
  const float2* src = in + static_cast<std::size_t>(line) * 256;
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    const int i = lane + 32 * t;
    const float2 v = src[i];
    xr[i] = v.x;
    xi[i] = inverse ? -v.y : v.y;
  }
  __syncwarp();
  dmma16(yr, fr, xr, fn, xi);  // C = F X: Cr = Fr Xr + (-Fi) Xi, Ci = Fr Xi + Fi Xr
  dmma16(yi, fr, xi, fi, xr);
  __syncwarp();
#pragma unroll
  for (int t = 0; t < 8; ++t) {  // C[k1][b] x exp(-2 pi i k1 b / 256), in double
    const int i = lane + 32 * t;
    double sn, cs;
    sincospi(-2.0 * static_cast<double>((i / 16) * (i % 16)) / 256.0, &sn, &cs);
    const double a = yr[i], b = yi[i];
    xr[i] = a * cs - b * sn;
    xi[i] = a * sn + b * cs;
  }
  __syncwarp();
  dmma16(yr, xr, fr, xi, fn);  // Y = C F: Yr = Cr Fr + Ci (-Fi), Yi = Cr Fi + Ci Fr
  dmma16(yi, xr, fi, xi, fr);
  __syncwarp();
  float2* dst = out + static_cast<std::size_t>(line) * 256;
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    const int o = lane + 32 * t;
    const int s = (o % 16) * 16 + o / 16;
    dst[o] = make_float2(static_cast<float>(yr[s]), static_cast<float>(inverse ? -yi[s] : yi[s]));
  }
}

}  // namespace

void launch_tensor_fft256(TensorMode mode, const float2* in, float2* out, int batch, bool inverse, const float2* tw,
                          cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((batch + kWarps - 1) / kWarps)), block(32 * kWarps);
  switch (mode) {
    case TensorMode::fp16: tensor_fft256_kernel<TensorMode::fp16><<<grid, block, 0, stream>>>(in, out, batch, inverse, tw); break;
    case TensorMode::bf16: tensor_fft256_kernel<TensorMode::bf16><<<grid, block, 0, stream>>>(in, out, batch, inverse, tw); break;
    case TensorMode::tf32: tensor_fft256_kernel<TensorMode::tf32><<<grid, block, 0, stream>>>(in, out, batch, inverse, tw); break;
    case TensorMode::tf32x3:
      tensor_fft256_kernel<TensorMode::tf32x3><<<grid, block, 0, stream>>>(in, out, batch, inverse, tw);
      break;
    case TensorMode::fp64: tensor_fft256_fp64_kernel<<<grid, block, 0, stream>>>(in, out, batch, inverse); break;
  }
  SARFUSE_LAUNCHED("tensor_fft256_kernel");
}

}  // namespace sarfuse::cuda::fft
