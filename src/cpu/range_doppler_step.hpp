// CPU step 3, the range-Doppler step: per Doppler row, x SRC, range IFFT, RCMC (windowed-sinc
// interpolation at the row's shift), x the azimuth filter; the constants from core/filters (float64).
#pragma once
#include <vector>

#include "core/fft.hpp"
#include "core/filters.hpp"
#include "cpu/azimuth_fft.hpp"
#include "cpu/scene_rows.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::cpu {

template <class T>
class RangeDopplerStep {
 public:
  RangeDopplerStep(const RadarParams& radar, const FocusOptions& options, SceneRows<T>& scene);
  // Only the rows the azimuth filter passes are computed and stored (the IFFT reads zeros for the rest).
  void run(SceneRows<T>& scene) const;
  const RowRuns& passed_rows() const { return passed_; }
  const std::string& note() const { return azimuth_.note; }

 private:
  using cplx = std::complex<T>;
  void apply_src(cplx* r, double q, double df, std::size_t nfft) const;

  double range_sampling_rate_hz_;
  core::AzimuthFilter azimuth_;
  RowRuns passed_;  // the rows of nonzero weight
  core::SincTable sinc_;
  // Per fraction row: its weights, then their differences to the next row's, each value twice (to
  // multiply interleaved (re, im) samples as one vector).
  std::vector<T> sinc_rows_;
  core::FftPlan<T> inverse_;
};

}  // namespace sarfuse::cpu
