// CPU step 1, range compression: per pulse, check and convert the samples, zero-pad to nfft, FFT, x
// the range matched filter (core/filters, float64 rounded to T). A NaN or infinite sample: the first
// line's is thrown (NonFiniteSample) after the step.
#pragma once
#include "core/fft.hpp"
#include "cpu/scene_rows.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::cpu {

template <class T>
class RangeCompression {
 public:
  RangeCompression(const RadarParams& radar, const FocusOptions& options, SceneRows<T>& scene);
  void run(const RawView& raw, SceneRows<T>& scene) const;

 private:
  AlignedBuffer<std::complex<T>> filter_;
  core::FftPlan<T> forward_;
};

}  // namespace sarfuse::cpu
