// Pass 1 of the FP32 chain (and precision tf32x3): launch_range_spectrum, to the module of its length.
#include "cuda/range_passes_sized.hpp"
#include "cuda/steps/dispatch.cuh"

namespace sarfuse::cuda {

void launch_range_spectrum(int nfft, SampleType type, const void* raw, int lines, int nr, const float2* filter,
                           const float2* tw, float2* out, cudaStream_t stream, bool tensor) {
  steps::dispatch_row_size(nfft, [&]<int N>() {
    launch_range_spectrum_sized<N>(type, raw, lines, nr, filter, tw, out, stream, tensor);
  });
}

bool range_spectrum_first_step_fits(int nfft) {
  bool fits = false;
  steps::dispatch_row_size(nfft, [&]<int N>() { fits = range_spectrum_first_step_fits_sized<N>(); });
  return fits;
}

void launch_range_spectrum_first_step(int nfft, SampleType type, const void* raw, int lines, int nr,
                                      const float2* filter, const float2* twiddles, const float2* az_twiddles,
                                      float2* out, cudaStream_t stream) {
  steps::dispatch_row_size(nfft, [&]<int N>() {
    launch_range_spectrum_first_step_sized<N>(type, raw, lines, nr, filter, twiddles, az_twiddles, out, stream);
  });
}

}  // namespace sarfuse::cuda
