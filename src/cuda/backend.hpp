// The CUDA backend as the rest of the library sees it (plain C++: no CUDA headers).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "plan/plan_impl.hpp"

namespace sarfuse::cuda {
int device_count();
bool initialize_device();  // creates the primary context of device 0; false without a device
bool release_device();     // destroys it (cudaDeviceReset); false when that fails
void* allocate_device(std::size_t bytes);  // cudaMalloc; throws Error saying why
void free_device(void* p);
std::vector<DeviceInfo> devices();
std::unique_ptr<PlanImpl> make_cuda_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                         const FocusOptions& resolved_options, std::size_t nfft);
// The range FFT length the CUDA chain uses for a linear convolution of `linear` points when the user
// names none: the smallest power of two >= linear, or the smallest nice length (fft_math.hpp) when that
// is at most 0.8 of it (shorter by less measured slower) and the FP32 fused or cuFFT pipelines run it.
std::size_t range_fft_length(std::size_t linear, const FocusOptions& resolved_options);
// The smallest nice length >= linear that is shorter than the power of two and runs with these options;
// 0 when there is none.
std::size_t smallest_nice_length(std::size_t linear, const FocusOptions& resolved_options);
// --plan measure: times the chain at the nice length and at the power of two (when both run), keeps the
// faster, remembers it in the wisdom file (options.wisdom_path; "-": none) and says so in *note.
std::size_t measure_range_fft_length(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                     const FocusOptions& resolved_options, std::string* note);
// The nice lengths the row kernels are compiled for, as text for messages.
std::string nice_sizes_text();
// Whether the chain runs a range FFT of n points (a power of two >= 256, or a nice length as above).
bool range_length_runs(std::size_t n, const FocusOptions& resolved_options);
std::size_t required_device_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                                  const FocusOptions& resolved_options);
}  // namespace sarfuse::cuda
