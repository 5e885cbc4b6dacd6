// Pass 3 of the FP32 chain (and precision tf32x3): launch_range_doppler_rows, to the module of its length.
#include "cuda/range_passes_sized.hpp"
#include "cuda/steps/dispatch.cuh"

namespace sarfuse::cuda {

void launch_range_doppler_rows(int nfft, float2* work, int lines, int nr, const core::DopplerRow* rows, double df,
                               SincTableView sinc, AzimuthBandView band, const float2* tw, cudaStream_t stream,
                               bool tensor) {
  steps::dispatch_row_size(nfft, [&]<int N>() {
    launch_range_doppler_rows_sized<N>(work, lines, nr, rows, df, sinc, band, tw, stream, tensor);
  });
}

}  // namespace sarfuse::cuda
