// The CUDA backend as the rest of the library sees it (plain C++: no CUDA headers).
#pragma once
#include <memory>
#include <vector>

#include "core/plan_impl.hpp"

namespace sarfuse::cuda {
int device_count();
std::vector<DeviceInfo> devices();
std::unique_ptr<PlanImpl> make_cuda_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                         const FocusOptions& resolved_options, std::size_t nfft);
std::size_t required_device_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                                  const FocusOptions& resolved_options);
}  // namespace sarfuse::cuda
