// The CUDA backend as the rest of the library sees it (plain C++: no CUDA headers).
#pragma once
#include <memory>

#include "core/plan_impl.hpp"

namespace sarfuse::cuda {
int device_count();
std::unique_ptr<PlanImpl> make_cuda_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                         const FocusOptions& resolved_options, std::size_t nfft);
}  // namespace sarfuse::cuda
