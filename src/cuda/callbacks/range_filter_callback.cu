// cuFFT LTO store callback for the `cufft-callback` baseline: the range matched-filter multiply
// fused into the forward range FFT's store. Compiled to LTO-IR (nvcc -dlto -fatbin), embedded in
// the library, and linked into the cuFFT kernel at plan time (cufftXtSetJITCallback).
#include <cufftXt.h>

struct SarfuseFilterCallbackInfo {
  const float2* filter;          // nfft coefficients (1/nfft folded in)
  unsigned long long nfft;
};

extern "C" __device__ void sarfuse_store_times_filter(void* data_out, unsigned long long offset, cufftComplex element,
                                                       void* caller_info, void* /*shared*/) {
  const auto* info = static_cast<const SarfuseFilterCallbackInfo*>(caller_info);
  const float2 h = info->filter[offset % info->nfft];
  cufftComplex y;
  y.x = element.x * h.x - element.y * h.y;
  y.y = element.x * h.y + element.y * h.x;
  static_cast<cufftComplex*>(data_out)[offset] = y;
}
