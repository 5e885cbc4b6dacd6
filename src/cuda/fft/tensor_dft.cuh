// Tensor-core building blocks: split-TF32 ("3xTF32") 16 x 16 x 16 products and the radix-16 DFT of a
// warp's 32 butterflies as one complex matrix product on the tensor cores (--precision tf32x3).
// 3xTF32: each FP32 operand x = hi + lo with hi = tf32(x), lo = tf32(x - hi); a b ~ hi_a hi_b + hi_a lo_b
// + lo_a hi_b (lo lo dropped, ~2^-22 relative): FP32-class accuracy from TF32 units, three products.
#pragma once
#include <mma.h>

#include "cuda/fft/fft_math.hpp"

namespace sarfuse::cuda::fft {

using Tf32Acc = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 8, float>;

// acc += A B for a 16 x 16 row-major A (leading dimension lda) and a 16 x 16 row-major B (ldb), both
// FP32 in shared memory (32-byte aligned, ld a multiple of 4); Split: 3xTF32, else plain TF32.
template <bool Split>
__device__ __forceinline__ void mma16_tf32(Tf32Acc& acc, const float* a, int lda, const float* b, int ldb) {
  using namespace nvcuda;
#pragma unroll
  for (int k0 = 0; k0 < 16; k0 += 8) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa, fa_lo;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb, fb_lo;
    wmma::load_matrix_sync(fa, a + k0, lda);
    wmma::load_matrix_sync(fb, b + k0 * ldb, ldb);
    if constexpr (Split) {
#pragma unroll
      for (int t = 0; t < fa.num_elements; ++t) {
        const float hi = wmma::__float_to_tf32(fa.x[t]);
        fa_lo.x[t] = wmma::__float_to_tf32(fa.x[t] - hi);
        fa.x[t] = hi;
      }
#pragma unroll
      for (int t = 0; t < fb.num_elements; ++t) {
        const float hi = wmma::__float_to_tf32(fb.x[t]);
        fb_lo.x[t] = wmma::__float_to_tf32(fb.x[t] - hi);
        fb.x[t] = hi;
      }
      wmma::mma_sync(acc, fa_lo, fb, acc);  // the small terms first
      wmma::mma_sync(acc, fa, fb_lo, acc);
    } else {
#pragma unroll
      for (int t = 0; t < fa.num_elements; ++t) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
#pragma unroll
      for (int t = 0; t < fb.num_elements; ++t) fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
    }
    wmma::mma_sync(acc, fa, fb, acc);
  }
}

// The 16-point DFT matrix F[r][k] = exp(-2 pi i r k / 16) in shared memory as three row-major 16 x 16
// FP32 matrices: Re F, Im F, -Im F. Every thread of the block calls it; a __syncthreads() must follow
// before the first use.
__device__ __forceinline__ const float* dft16_matrix(int thread, int threads) {
  __shared__ __align__(32) float f[3 * 256];
  for (int i = thread; i < 256; i += threads) {
    const int m = ((i / 16) * (i % 16)) & 15;
    const double sign = m < 8 ? 1.0 : -1.0;  // the tables cover half a turn: e^(-i pi) = -1 for the rest
    f[i] = static_cast<float>(sign * unit_cos16(m & 7));
    f[256 + i] = static_cast<float>(-sign * unit_sin16(m & 7));
    f[512 + i] = static_cast<float>(sign * unit_sin16(m & 7));
  }
  return f;
}

// DFT_16 of each lane's x[16] (one butterfly per lane, the whole warp together) as Y^T = F X^T on the
// tensor cores in 3xTF32: X^T (16 x 32, column = lane) staged in `stage` (1024 floats, 32-byte
// aligned, this warp's alone), Re Y^T = Re F Re X^T + (-Im F) Im X^T, Im Y^T = Re F Im X^T + Im F Re X^T,
// two 16-column tiles; the lane reads its column back. Lane-major staging (r * 32 + lane): no bank
// conflicts. The caller makes `stage` free (no other warp reading it) before the call.
__device__ __forceinline__ void dft16_tensor(Cx<float> (&x)[16], float* stage, const float* f, int lane) {
  using namespace nvcuda;
  float* xr = stage;
  float* xi = stage + 512;
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    xr[r * 32 + lane] = x[r].re;
    xi[r * 32 + lane] = x[r].im;
  }
  __syncwarp();
#pragma unroll
  for (int nt = 0; nt < 2; ++nt) {
    Tf32Acc re, im;
    wmma::fill_fragment(re, 0.f);
    wmma::fill_fragment(im, 0.f);
    mma16_tf32<true>(re, f, 16, xr + nt * 16, 32);
    mma16_tf32<true>(re, f + 512, 16, xi + nt * 16, 32);
    mma16_tf32<true>(im, f, 16, xi + nt * 16, 32);
    mma16_tf32<true>(im, f + 256, 16, xr + nt * 16, 32);
    __syncwarp();  // every lane's fragments are loaded before the tile is overwritten
    wmma::store_matrix_sync(xr + nt * 16, re, 32, wmma::mem_row_major);
    wmma::store_matrix_sync(xi + nt * 16, im, 32, wmma::mem_row_major);
  }
  __syncwarp();
#pragma unroll
  for (int r = 0; r < 16; ++r) x[r] = {xr[r * 32 + lane], xi[r * 32 + lane]};
}

}  // namespace sarfuse::cuda::fft
