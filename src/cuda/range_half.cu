// Passes 1 and 3 with FP16 storage (precision fp16-storage / fp16; fp16-storage also at the nice lengths).
#include "cuda/range_pass_kernels.cuh"

namespace sarfuse::cuda {

void launch_range_spectrum_half(int nfft, SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                const float2* tw, __half2* out, float* row_factor, unsigned* max_bits, bool half_math,
                                cudaStream_t stream) {
  steps::dispatch_row_size(nfft, [&]<int N>() {
    steps::dispatch_type(type, [&]<SampleType S>() {
      steps::with_butterflies<N, steps::Fp16Butterflies>(half_math, [&]<class B>() {
        constexpr int E = spectrum_row_elems<N, B, steps::Fp16Rows>;
        const auto kernel = &range_spectrum_kernel<N, S, B, steps::Fp16Rows>;
        steps::set_smem<N, 1, E>(reinterpret_cast<const void*>(kernel));
        kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes, stream>>>(
            raw, lines, nr, filter, tw, out, row_factor, max_bits);
        SARFUSE_LAUNCHED("range_spectrum_half");
      });
    });
  });
}

void launch_range_doppler_rows_half(int nfft, __half2* work, int lines, int nr, const core::DopplerRow* rows,
                                    double df, SincTableView sinc, AzimuthBandView band, const float2* tw,
                                    const unsigned* spectrum_max_bits, float* row_factor, bool half_math,
                                    cudaStream_t stream) {
  steps::dispatch_row_size(nfft, [&]<int N>() {
    steps::with_butterflies<N, steps::Fp16Butterflies>(half_math, [&]<class B>() {
      const auto kernel = &range_doppler_kernel<N, B, steps::Fp16Rows>;
      constexpr int E = doppler_row_elems<N, B, steps::Fp16Rows>;
      steps::set_smem<N, 1, E>(reinterpret_cast<const void*>(kernel));
      kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes, stream>>>(
          work, lines, nr, rows, df, sinc, band, tw, spectrum_max_bits, row_factor);
      SARFUSE_LAUNCHED("range_doppler_rows_half");
    });
  });
}

}  // namespace sarfuse::cuda
