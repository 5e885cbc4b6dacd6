#include "cpu/azimuth_fft.hpp"

#include <cstring>
#include <type_traits>

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

// Four complex<float> samples as one 32-byte vector of 64-bit lanes (a sample a lane: the moves below
// copy bits, no arithmetic). One AVX register on the x86-64-v3 clone, two SSE halves on the baseline.
typedef long long Samples4 __attribute__((vector_size(32)));

// Vectors by reference: inlined into the clones, never passed in registers across targets.
[[gnu::always_inline]] inline void load4(Samples4& v, const std::complex<float>* p) { std::memcpy(&v, p, sizeof v); }
[[gnu::always_inline]] inline void store4(std::complex<float>* p, const Samples4& v) {
  std::memcpy(static_cast<void*>(p), &v, sizeof v);
}

// A 4 x 4 tile of samples transposed in registers: v[r] holds row r on entry, column r on return.
[[gnu::always_inline]] inline void transpose4(Samples4 (&v)[4]) {
  const Samples4 t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 2, 6);
  const Samples4 t1 = __builtin_shufflevector(v[0], v[1], 1, 5, 3, 7);
  const Samples4 t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 2, 6);
  const Samples4 t3 = __builtin_shufflevector(v[2], v[3], 1, 5, 3, 7);
  v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  v[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  v[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

// Rows src[0..3] (kBlock samples each) into the block's columns at rows i..i+3 (column c at
// blk + c * lines): 4 x 4 tiles, so each store writes 32 contiguous bytes of one column instead of
// one sample (scalar copies measured as most of the step's time: docs/performance.md).
constexpr std::size_t kColumns = SceneRows<float>::kBlock;
[[gnu::always_inline]] inline void rows_to_columns(const std::complex<float>* const (&src)[4], std::complex<float>* blk, std::size_t lines,
                            std::size_t i) {
  for (std::size_t c = 0; c < kColumns; c += 4) {
    Samples4 v[4];
    for (std::size_t r = 0; r < 4; ++r) load4(v[r], src[r] + c);
    transpose4(v);
    for (std::size_t j = 0; j < 4; ++j) store4(blk + (c + j) * lines + i, v[j]);
  }
}
// The reverse: the block's rows i..i+3 into dst[0..3].
[[gnu::always_inline]] inline void columns_to_rows(const std::complex<float>* blk, std::size_t lines, std::size_t i,
                            std::complex<float>* const (&dst)[4]) {
  for (std::size_t c = 0; c < kColumns; c += 4) {
    Samples4 v[4];
    for (std::size_t j = 0; j < 4; ++j) load4(v[j], blk + (c + j) * lines + i);
    transpose4(v);
    for (std::size_t r = 0; r < 4; ++r) store4(dst[r] + c, v[r]);
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
  // fp32 whole blocks move in 4 x 4 tiles; fp64 and a last, narrower block sample by sample.
  constexpr bool kTiles = std::is_same_v<T, float>;
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
    const bool tiles = kTiles && nb == kBlock;
    std::size_t done = 0;  // rows of the block's columns gathered or zeroed
    for (const RowRun& run : reads) {
      for (std::size_t c = 0; c < nb; ++c) std::fill(blk + c * lines + done, blk + c * lines + run.first, std::complex<T>(0));
      std::size_t i = run.first;
      if constexpr (kTiles) {
        for (; tiles && i + 4 <= run.end; i += 4) {
          // Rows are a page apart, out of reach of the hardware prefetcher: ask for the block's
          // cache lines some rows ahead so the misses overlap.
          for (std::size_t r = 0; r < 4; ++r)
            if (i + r + kPrefetchRows < run.end) prefetch_block(scene.row(i + r + kPrefetchRows) + c0, false);
          const std::complex<float>* src[4] = {scene.row(i) + c0, scene.row(i + 1) + c0, scene.row(i + 2) + c0,
                                               scene.row(i + 3) + c0};
          rows_to_columns(src, blk, lines, i);
        }
      }
      for (; i < run.end; ++i) {
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
      std::size_t k = 0;
      if constexpr (kTiles) {
        while (tiles && k + 4 <= out->count) {
          const std::size_t i = (out->first + k) % lines;
          if (i + 4 > lines) break;  // the four rows wrap: sample by sample from here
          std::complex<float>* const dst[4] = {out->data + k * out->pitch + c0, out->data + (k + 1) * out->pitch + c0,
                                               out->data + (k + 2) * out->pitch + c0,
                                               out->data + (k + 3) * out->pitch + c0};
          columns_to_rows(blk, lines, i, dst);
          k += 4;
        }
      }
      for (; k < out->count; ++k) {
        const std::size_t i = (out->first + k) % lines;
        std::complex<float>* dst = out->data + k * out->pitch + c0;
        for (std::size_t c = 0; c < nb; ++c) dst[c] = std::complex<float>(blk[c * lines + i]);
      }
      continue;
    }
    for (const RowRun& run : passed) {
      std::size_t i = run.first;
      if constexpr (kTiles) {
        for (; tiles && i + 4 <= run.end; i += 4) {
          for (std::size_t r = 0; r < 4; ++r)
            if (i + r + kPrefetchRows < run.end) prefetch_block(scene.row(i + r + kPrefetchRows) + c0, true);
          std::complex<float>* const dst[4] = {scene.row(i) + c0, scene.row(i + 1) + c0, scene.row(i + 2) + c0,
                                               scene.row(i + 3) + c0};
          columns_to_rows(blk, lines, i, dst);
        }
      }
      for (; i < run.end; ++i) {
        if (i + kPrefetchRows < run.end) prefetch_block(scene.row(i + kPrefetchRows) + c0, true);
        std::complex<T>* dst = scene.row(i) + c0;
        for (std::size_t c = 0; c < nb; ++c) dst[c] = blk[c * lines + i];
      }
    }
  }
}

template class AzimuthFft<float>;
template class AzimuthFft<double>;

}  // namespace sarfuse::cpu
