#include "cpu/range_compression.hpp"

#include <algorithm>

#include "core/filters.hpp"
#include "core/raw_rows.hpp"
#include "core/simd_clones.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse::cpu {

template <class T>
RangeCompression<T>::RangeCompression(const RadarParams& radar, const FocusOptions& options, SceneRows<T>& scene) {
  const auto hr = core::range_matched_filter(radar, scene.nfft, options.range_window);
  filter_.resize(scene.nfft);
  for (std::size_t m = 0; m < scene.nfft; ++m) filter_[m] = std::complex<T>(hr[m]);
  std::complex<T>* row0 = scene.work.data();
  forward_ = core::FftPlan<T>({static_cast<int>(scene.nfft)}, core::FftDirection::forward, row0, row0,
                              options.fft_planning);
}

template <class T>
SARFUSE_SIMD_CLONES void RangeCompression<T>::run(const RawView& raw, SceneRows<T>& scene) const {
  const std::size_t nfft = scene.nfft;
  std::size_t bad_line = scene.lines, bad_sample = 0;  // the first line with a non-finite sample
#pragma omp parallel for num_threads(scene.threads) schedule(static)
  for (std::size_t i = 0; i < scene.lines; ++i) {
    if (interrupted()) continue;
    // Checked here, as the line is converted, rather than by a pass of its own over the input.
    std::complex<T>* r = scene.row(i);
    if (!core::convert_row_finite<T>(raw, i, r)) {
      const std::size_t j = core::first_non_finite(raw, i);
#pragma omp critical(sarfuse_non_finite)
      if (i < bad_line) {
        bad_line = i;
        bad_sample = j;
      }
      continue;
    }
    // A linear block's padding lines are zero, and so are their spectra: no FFT (the same bits).
    if (std::all_of(r, r + scene.samples, [](const std::complex<T>& v) { return v == std::complex<T>(0); })) {
      std::fill(r + scene.samples, r + nfft, std::complex<T>(0));
      continue;
    }
    std::fill(r + scene.samples, r + nfft, std::complex<T>(0));
    forward_.execute(r, r);
    const std::complex<T>* h = filter_.data();
    for (std::size_t m = 0; m < nfft; ++m) r[m] *= h[m];
  }
  if (bad_line < scene.lines) throw NonFiniteSample(bad_line, bad_sample, core::sample_is_nan(raw, bad_line, bad_sample));
}

template class RangeCompression<float>;
template class RangeCompression<double>;

}  // namespace sarfuse::cpu
