// Pass 1 of the FP32 chain (and --precision tf32x3): launch_range_spectrum.
#include "cuda/row_kernels.cuh"

namespace sarfuse::cuda {

void launch_range_spectrum(int nfft, SampleType type, const void* raw, int lines, int nr, const float2* filter,
                           const float2* tw, float2* out, cudaStream_t stream, bool tensor) {
  dispatch_row_size(nfft, [&]<int N>() {
    dispatch_type(type, [&]<SampleType S>() {
      auto go = [&]<bool Tc>() {
        const void* k = reinterpret_cast<const void*>(&range_kernel<N, S, false, float2, false, Tc>);
        set_smem<N>(k);
        range_kernel<N, S, false, float2, false, Tc><<<grid_for<N>(lines), block_for<N>(), BlockShape<N>::smem_bytes, stream>>>(
            raw, lines, nr, filter, tw, out, N, N);
        SARFUSE_LAUNCHED("range_spectrum");
      };
      with_tensor_flag<N>(tensor, go);
    });
  });
}

}  // namespace sarfuse::cuda
