#include "cpu/azimuth_fft.hpp"

#include "core/simd_clones.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse::cpu {

namespace {

template <class T>
void prefetch_block(const std::complex<T>* p, bool for_write) {
  const char* b = reinterpret_cast<const char*>(p);
  for (std::size_t off = 0; off < SceneRows<T>::kBlock * sizeof(std::complex<T>); off += 64) {
    if (for_write) __builtin_prefetch(b + off, 1);
    else __builtin_prefetch(b + off, 0);
  }
}

}  // namespace

template <class T>
AzimuthFft<T>::AzimuthFft(core::FftDirection direction, FftPlanning planning, SceneRows<T>& scene) {
  const int na = static_cast<int>(scene.lines);
  const core::FftShape az{na, static_cast<int>(SceneRows<T>::kBlock), 1, na};
  std::complex<T>* s0 = scene.scratch.data();
  plan_ = core::FftPlan<T>(az, direction, s0, s0, planning);
}

template <class T>
SARFUSE_SIMD_CLONES void AzimuthFft<T>::run(SceneRows<T>& scene, std::size_t ncols, const RowRuns& passed,
                                            const SlcRows* out) const {
  constexpr std::size_t kBlock = SceneRows<T>::kBlock;
  const std::size_t lines = scene.lines;
  const std::size_t nblocks = (ncols + kBlock - 1) / kBlock;
  // The IFFT reads the passed rows (the rest are zeros); the FFT reads every row.
  const RowRuns all{{0, lines}};
  const RowRuns& reads = out ? passed : all;
#pragma omp parallel for num_threads(scene.threads) schedule(static)
  for (std::size_t b = 0; b < nblocks; ++b) {
    if (interrupted()) continue;
    std::complex<T>* blk = scene.thread_scratch();
    const std::size_t c0 = b * kBlock;
    const std::size_t nb = std::min(kBlock, ncols - c0);
    std::size_t done = 0;  // rows of the block's columns gathered or zeroed
    for (const RowRun& run : reads) {
      for (std::size_t c = 0; c < nb; ++c) std::fill(blk + c * lines + done, blk + c * lines + run.first, std::complex<T>(0));
      for (std::size_t i = run.first; i < run.end; ++i) {
        // Rows are a page apart, out of reach of the hardware prefetcher: ask for the block's
        // cache lines some rows ahead so the misses overlap.
        if (i + kPrefetchRows < run.end) prefetch_block(scene.row(i + kPrefetchRows) + c0, false);
        const std::complex<T>* src = scene.row(i) + c0;
        for (std::size_t c = 0; c < nb; ++c) blk[c * lines + i] = src[c];
      }
      done = run.end;
    }
    for (std::size_t c = 0; c < nb; ++c) std::fill(blk + c * lines + done, blk + (c + 1) * lines, std::complex<T>(0));
    if (nb < kBlock) std::fill(blk + nb * lines, blk + kBlock * lines, std::complex<T>(0));
    plan_.execute(blk, blk);
    if (out) {
      for (std::size_t k = 0; k < out->count; ++k) {
        const std::size_t i = (out->first + k) % lines;
        std::complex<float>* dst = out->data + k * out->pitch + c0;
        for (std::size_t c = 0; c < nb; ++c) dst[c] = std::complex<float>(blk[c * lines + i]);
      }
      continue;
    }
    for (const RowRun& run : passed)
      for (std::size_t i = run.first; i < run.end; ++i) {
        if (i + kPrefetchRows < run.end) prefetch_block(scene.row(i + kPrefetchRows) + c0, true);
        std::complex<T>* dst = scene.row(i) + c0;
        for (std::size_t c = 0; c < nb; ++c) dst[c] = blk[c * lines + i];
      }
  }
}

template class AzimuthFft<float>;
template class AzimuthFft<double>;

}  // namespace sarfuse::cpu
