// Pass 3 of the FP32 chain (and precision tf32x3): launch_range_doppler_rows.
#include "cuda/range_pass_kernels.cuh"

namespace sarfuse::cuda {

void launch_range_doppler_rows(int nfft, float2* work, int lines, int nr, const core::DopplerRow* rows, double df,
                               SincTableView sinc, AzimuthBandView band, const float2* tw, cudaStream_t stream,
                               bool tensor) {
  steps::dispatch_row_size(nfft, [&]<int N>() {
    steps::with_butterflies<N, steps::TensorButterflies>(tensor, [&]<class B>() {
      const auto kernel = &range_doppler_kernel<N, B, steps::Fp32Rows>;
      steps::set_smem<N>(reinterpret_cast<const void*>(kernel));
      kernel<<<steps::grid_for<N>(lines), steps::block_for<N>(), BlockShape<N>::smem_bytes, stream>>>(
          work, lines, nr, rows, df, sinc, band, tw, nullptr, nullptr);
      SARFUSE_LAUNCHED("range_doppler_rows");
    });
  });
}

}  // namespace sarfuse::cuda
