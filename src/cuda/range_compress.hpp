// Fused range compression as a reusable object: the filter in the layout its kernels read, the
// twiddle tables and (above one block's size) the four-step scratch, made once; run() only launches.
#pragma once
#include <cuda_runtime.h>

#include <complex>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "sarfuse/image.hpp"

namespace sarfuse::cuda {

class RangeCompressor {
 public:
  // Largest line length of the one-kernel path; longer (up to kMaxFourStep) take three passes.
  static constexpr int kMaxOneBlock = 16384;
  static constexpr int kMaxFourStep = 16 * kMaxOneBlock;
  static bool supports(int nfft);

  // filter: the range filter, nfft values (1/nfft folded in). max_lines: the most lines a run() may
  // have (sizes the four-step scratch; unused for one-block lengths). row_length: the four-step's n2
  // (0: default_row_length(nfft); the benchmark times the others).
  RangeCompressor(int nfft, int max_lines, const std::vector<std::complex<double>>& filter, int row_length = 0);
  // 4096-point rows (the one-block kernel's best size, docs/performance.md) while the columns stay <= 16 points.
  static int default_row_length(int nfft) { return nfft / 16 > 4096 ? nfft / 16 : 4096; }
  int row_length() const { return n2_; }

  // out[l][c] = IFFT(FFT(zero-padded raw[l]) x H)[c] for c < out_cols; raw is lines x nr of `type`.
  void run(SampleType type, const void* raw, int lines, int nr, float2* out, int out_cols, int out_pitch,
           cudaStream_t stream) const;

  int nfft() const { return nfft_; }
  bool four_step() const { return n1_ > 1; }
  std::size_t device_bytes() const { return filter_.bytes() + tw_.bytes() + tw_n_.bytes() + scratch_.bytes(); }

 private:
  int nfft_, n1_, n2_, max_lines_;
  DeviceBuffer<float2> filter_, tw_, tw_n_;
  DeviceBuffer<float2> scratch_;
};

}  // namespace sarfuse::cuda
