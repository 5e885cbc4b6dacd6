// Tensor-core FFT of 256 points (the Apple M1 system's matrix-unit FFT, on Hopper's tensor cores): 256 = 16 x 16 four-step, each
// 16-point DFT stage one complex 16 x 16 matrix product on the tensor cores (four real products), the
// twiddle between them on the CUDA cores. One warp per line. Operand precision per mode: FP16 or BF16 (FP32
// accumulate), TF32, or 3xTF32 (each operand split into a TF32 head and a TF32 tail, three products:
// FP32-class accuracy from TF32 units), or FP64 (DMMA: double operands and accumulation, 8 x 8 x 4 tiles;
// complex64 in and out, so the error is the input's and output's rounding).
#pragma once
#include <cuda_runtime.h>

namespace sarfuse::cuda::fft {

enum class TensorMode { fp16, bf16, tf32, tf32x3, fp64 };

// Forward (or, conjugated around it, inverse) 256-point FFTs of `batch` contiguous lines; `tw` the
// 256-entry table exp(-2 pi i k / 256).
void launch_tensor_fft256(TensorMode mode, const float2* in, float2* out, int batch, bool inverse, const float2* tw,
                          cudaStream_t stream);

}  // namespace sarfuse::cuda::fft
