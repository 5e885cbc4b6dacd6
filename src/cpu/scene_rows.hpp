// The CPU plan's scene in memory: Na rows of the range FFT length (64-byte aligned), and per-thread
// scratch; what every CPU step works on.
#pragma once
#include <omp.h>

#include <algorithm>
#include <complex>
#include <cstddef>

#include "sarfuse/image.hpp"

namespace sarfuse::cpu {

template <class T>
struct SceneRows {
  using cplx = std::complex<T>;
  static constexpr std::size_t kBlock = 256 / sizeof(cplx);  // columns per azimuth block: 4 cache lines a row
  static constexpr int kPhasorBlock = 32;                   // the range-Doppler step's phasor table

  SceneRows(std::size_t lines_, std::size_t samples_, std::size_t nfft_, int threads_)
      : lines(lines_), samples(samples_), nfft(nfft_), threads(threads_), stride(row_stride(nfft_)) {
    work.resize(lines * stride);
    scratch.resize(static_cast<std::size_t>(threads) * scratch_per_thread());
  }
  // Rows 64 samples apart (512 bytes at fp32): the plan's last step can leave the SLC's rows in the
  // scene and the disk take them from there by direct I/O (Plan::focus_held_rows).
  static std::size_t row_stride(std::size_t nfft) { return (nfft + 63) / 64 * 64; }
  cplx* row(std::size_t i) { return work.data() + i * stride; }
  // Per thread: a range row plus the phasor table, or an azimuth column block.
  std::size_t scratch_per_thread() const { return std::max(stride + kPhasorBlock, kBlock * lines); }
  cplx* thread_scratch() {
    return scratch.data() + static_cast<std::size_t>(omp_get_thread_num()) * scratch_per_thread();
  }

  std::size_t lines, samples, nfft;
  int threads;
  std::size_t stride;  // every row 512-byte aligned (the FFT plans want 64)
  AlignedBuffer<cplx> work, scratch;
};

}  // namespace sarfuse::cpu
