// What make_plan asks of a backend. backend_registry.cpp is the one file that knows the backends
// (src/cpu/, src/cuda/); the plan layer and everything above it see only this.
#pragma once
#include <cstddef>
#include <memory>

#include "plan/plan_impl.hpp"

namespace sarfuse {

class BackendKind {
 public:
  virtual ~BackendKind() = default;
  // Whether this build and machine run a plan with these (resolved) options; range_fft_size 0 means
  // the backend's own choice.
  virtual bool supports(const FocusOptions& options, std::size_t range_fft_size) const = 0;
  // The range FFT length for a linear convolution of `linear` points when the user names none.
  virtual std::size_t range_fft_length(std::size_t linear, const FocusOptions& options) const = 0;
  // What a plan allocates: host bytes besides the SLC the caller holds, and device bytes.
  virtual PlanMemory required_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                                    const FocusOptions& options) const = 0;
  virtual std::unique_ptr<PlanImpl> make(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                         const FocusOptions& options, std::size_t nfft) const = 0;
};

// The backend behind `b` (cpu or cuda; a build without CUDA has a cuda backend that supports nothing
// and says so when asked for a plan).
const BackendKind& backend_kind(Backend b);

}  // namespace sarfuse
