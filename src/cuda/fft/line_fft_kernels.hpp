// Host launchers of the GPU FFT plans' own kernels (line_fft_kernels.cu), for the planner
// (fft_plan.cpp). All take a stream, check the launch, and never synchronise.
#pragma once
#include <cuda_runtime.h>

#include "sarfuse/gpu_fft.hpp"

namespace sarfuse::gpu {

// Stockham, radix 16, 8 or 4, one thread group per line; columns (stride > 1, dist 1) at radix 16 through
// the column-tile kernel (cuda/fft/column_fft.cu). Powers of two 64..16384.
void launch_stockham_lines(int radix, const float2* in, float2* out, const FftDesc& d, const float2* tw,
                           cudaStream_t stream);
// n = 2^a 3^b 5^c 7^d up to 12288, one block per line (the nice row lengths register-resident).
void launch_mixed_radix(const float2* in, float2* out, const FftDesc& d, const float2* tw, cudaStream_t stream);
// In-place Cooley-Tukey DIF, the line in split (re, im) layout.
void launch_ct_dif_split(const float2* in, float2* out, const FftDesc& d, const float2* tw, cudaStream_t stream);

// Four-step, lines of 2^15..2^22 points: n = N1 x N2, x[n1 N2 + n2]: (A) N1-point FFTs down the N2 columns
// of each line, x W_n^(k1 n2), into scratch row k1; (B) N2-point FFTs along the rows (X[k1 + N1 k2] lands
// at row k1, column k2); (C) transpose each line's N1 x N2 block into natural order. N1 = n / 4096 (8 or
// 16, an in-register DFT per column: launch_four_step_small_columns) up to 2^16, else N1 = 256 (the
// column-tile kernel) and N2 = n / 256.
struct FourStepSplit {
  int n1, n2;
};
FourStepSplit four_step_split(int n);
void launch_four_step_small_columns(int n1, const float2* in, float2* scratch, int batch, int n2, bool inverse,
                                    cudaStream_t stream);

}  // namespace sarfuse::gpu
