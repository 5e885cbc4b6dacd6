// CPU steps 2 and 4, the azimuth FFT and IFFT: columns [0, ncols) of the scene in cache-sized column
// blocks (gather, FFT along azimuth, scatter), back into the scene or, for the IFFT, into SLC rows.
#pragma once
#include <vector>

#include "core/fft.hpp"
#include "cpu/scene_rows.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse::cpu {

// Where the IFFT's rows go: `count` scene rows from row `first`, wrapping past the last (a linear
// block's kept rows), packed from `data` at `pitch` samples a row; the other rows are not stored.
struct SlcRows {
  std::complex<float>* data = nullptr;
  std::size_t first = 0, count = 0, pitch = 0;
};

// Doppler rows [first, end) of the scene: the azimuth filter passes them (the rest it zeroes, so the
// FFT need not store them and the IFFT reads zeros there instead).
struct RowRun {
  std::size_t first = 0, end = 0;
};
using RowRuns = std::vector<RowRun>;

template <class T>
class AzimuthFft {
 public:
  AzimuthFft(core::FftDirection direction, FftPlanning planning, SceneRows<T>& scene);
  // The FFT stores the Doppler rows of `passed` only; the IFFT reads only those (zeros elsewhere) and,
  // with `out`, puts the result in those SLC rows instead of back into the scene.
  void run(SceneRows<T>& scene, std::size_t ncols, const RowRuns& passed, const SlcRows* out) const;

 private:
  static constexpr std::size_t kPrefetchRows = 16;
  core::FftPlan<T> plan_;
};

}  // namespace sarfuse::cpu
