#pragma once
#include <memory>

#include "plan/plan_impl.hpp"

namespace sarfuse::cpu {
// The CPU Range-Doppler plan (float or double arithmetic per options.precision).
std::unique_ptr<PlanImpl> make_cpu_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                        const FocusOptions& resolved_options, std::size_t nfft);
// Host bytes the plan allocates (work rows, per-thread scratch, filters and tables).
std::size_t required_host_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                                const FocusOptions& resolved_options);
}  // namespace sarfuse::cpu
