// Passes 1 and 3 of the FP32 chain for one range FFT length N. Each length is a translation unit, so
// a CUDA module, of its own (CMake generates them from range_passes_sized.cu.in): a process loads only
// the module of the length it runs. CUDA loads a module whole at its first launch, and the one that
// held every length cost ~30 ms per pass there (docs/performance.md, "File to product").
#pragma once
#include <cuda_runtime.h>

#include "core/filters.hpp"
#include "cuda/kernels.hpp"
#include "sarfuse/image.hpp"

namespace sarfuse::cuda {

template <int N>
void launch_range_spectrum_sized(SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                 const float2* tw, float2* out, cudaStream_t stream, bool tensor);
template <int N>
bool range_spectrum_first_step_fits_sized();
template <int N>
void launch_range_spectrum_first_step_sized(SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                            const float2* tw, const float2* az_tw, float2* out, cudaStream_t stream);
template <int N>
void launch_range_doppler_rows_sized(float2* work, int lines, int nr, const core::DopplerRow* rows, double df,
                                     SincTableView sinc, AzimuthBandView band, const float2* tw,
                                     cudaStream_t stream, bool tensor);

}  // namespace sarfuse::cuda
