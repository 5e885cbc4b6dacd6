// Pass 3 of the FP32 chain (and --precision tf32x3): launch_range_doppler_rows.
#include "cuda/row_kernels.cuh"

namespace sarfuse::cuda {

void launch_range_doppler_rows(int nfft, float2* work, int lines, int nr, const core::DopplerRow* rows, double df,
                               SincTableView sinc, AzimuthBandView band, const float2* tw, cudaStream_t stream,
                               bool tensor) {
  dispatch_row_size(nfft, [&]<int N>() {
    auto go = [&]<bool Tc>() {
      set_smem<N>(reinterpret_cast<const void*>(&range_doppler_kernel<N, float2, false, Tc>));
      range_doppler_kernel<N, float2, false, Tc><<<grid_for<N>(lines), block_for<N>(), BlockShape<N>::smem_bytes, stream>>>(
          work, lines, nr, rows, df, sinc, band, tw);
      SARFUSE_LAUNCHED("range_doppler_rows");
    };
    with_tensor_flag<N>(tensor, go);
  });
}

}  // namespace sarfuse::cuda
