#pragma once
#include <memory>

#include "core/plan_impl.hpp"

namespace sarfuse::cpu {
// The CPU Range-Doppler plan (float or double arithmetic per options.precision).
std::unique_ptr<PlanImpl> make_cpu_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                        const FocusOptions& resolved_options, std::size_t nfft);
}
