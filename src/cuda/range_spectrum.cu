// Pass 1 of the FP32 chain (and precision tf32x3): launch_range_spectrum.
#include "cuda/range_pass_kernels.cuh"

namespace sarfuse::cuda {

void launch_range_spectrum(int nfft, SampleType type, const void* raw, int lines, int nr, const float2* filter,
                           const float2* tw, float2* out, cudaStream_t stream, bool tensor) {
  steps::dispatch_row_size(nfft, [&]<int N>() {
    steps::dispatch_type(type, [&]<SampleType S>() {
      steps::with_butterflies<N, steps::TensorButterflies>(tensor, [&]<class B>() {
        const auto kernel = &range_spectrum_kernel<N, S, B, steps::Fp32Rows>;
        steps::set_smem<N>(reinterpret_cast<const void*>(kernel));
        kernel<<<steps::grid_for<N>(lines), steps::block_for<N>(), BlockShape<N>::smem_bytes, stream>>>(
            raw, lines, nr, filter, tw, out, nullptr, nullptr);
        SARFUSE_LAUNCHED("range_spectrum");
      });
    });
  });
}

}  // namespace sarfuse::cuda
