// The bodies of range_passes_sized.hpp, included by each length's generated translation unit only.
#pragma once
#include "cuda/range_pass_kernels.cuh"
#include "cuda/range_passes_sized.hpp"

namespace sarfuse::cuda {

template <int N>
void launch_range_spectrum_sized(SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                 const float2* tw, float2* out, cudaStream_t stream, bool tensor) {
  steps::dispatch_type(type, [&]<SampleType S>() {
    steps::with_butterflies<N, steps::TensorButterflies>(tensor, [&]<class B>() {
      constexpr int E = spectrum_row_elems<N, B, steps::Fp32Rows>;
      const auto kernel = &range_spectrum_kernel<N, S, B, steps::Fp32Rows>;
      steps::set_smem<N, 1, E>(reinterpret_cast<const void*>(kernel));
      kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes, stream>>>(
          raw, lines, nr, filter, tw, out, nullptr, nullptr);
      SARFUSE_LAUNCHED("range_spectrum");
    });
  });
}

template <int N>
void launch_range_doppler_rows_sized(float2* work, int lines, int nr, const core::DopplerRow* rows, double df,
                                     SincTableView sinc, AzimuthBandView band, const float2* tw,
                                     cudaStream_t stream, bool tensor) {
  steps::with_butterflies<N, steps::TensorButterflies>(tensor, [&]<class B>() {
    const auto kernel = &range_doppler_kernel<N, B, steps::Fp32Rows>;
    constexpr int E = doppler_row_elems<N, B, steps::Fp32Rows>;
    steps::set_smem<N, 1, E>(reinterpret_cast<const void*>(kernel));
    kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes, stream>>>(
        work, lines, nr, rows, df, sinc, band, tw, nullptr, nullptr);
    SARFUSE_LAUNCHED("range_doppler_rows");
  });
}

}  // namespace sarfuse::cuda
