// CPU steps 2 and 4, the azimuth FFT and IFFT: columns [0, ncols) of the scene in cache-sized column
// blocks (gather, FFT along azimuth, scatter), back into the scene or, for the IFFT, into the SLC.
#pragma once
#include "core/fft.hpp"
#include "cpu/scene_rows.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::cpu {

template <class T>
class AzimuthFft {
 public:
  AzimuthFft(core::FftDirection direction, FftPlanning planning, SceneRows<T>& scene);
  // With `out`, the result goes to the SLC instead of back into the scene.
  void run(SceneRows<T>& scene, std::size_t ncols, ComplexImage* out) const;

 private:
  static constexpr std::size_t kPrefetchRows = 16;
  core::FftPlan<T> plan_;
};

}  // namespace sarfuse::cpu
