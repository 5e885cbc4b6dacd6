#include "cuda/range_compress.hpp"

#include <string>

#include "cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

namespace {

DeviceBuffer<float2> upload(const std::vector<float2>& h) {
  DeviceBuffer<float2> d(h.size());
  SARFUSE_CUDA(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(float2), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

bool RangeCompressor::supports(int n) { return n >= 256 && n <= kMaxFourStep && (n & (n - 1)) == 0; }

RangeCompressor::RangeCompressor(int nfft, int max_lines, const std::vector<std::complex<double>>& filter,
                                 int row_length)
    : nfft_(nfft), n1_(1), n2_(nfft), max_lines_(max_lines) {
  if (!supports(nfft))
    throw Error("range compression: FFT length " + std::to_string(nfft) + " is not a power of two in [256, " +
                std::to_string(kMaxFourStep) + "]");
  if (filter.size() != static_cast<std::size_t>(nfft))
    throw Error("range compression: filter has " + std::to_string(filter.size()) + " values, expected " +
                std::to_string(nfft));
  if (nfft > kMaxOneBlock) {
    n2_ = row_length ? row_length : default_row_length(nfft);
    n1_ = nfft / n2_;
    if (n2_ < 256 || n2_ > kMaxOneBlock || n1_ < 2 || n1_ > 16 || n1_ * n2_ != nfft)
      throw Error("range compression: four-step rows of " + std::to_string(n2_) + " points do not split " +
                  std::to_string(nfft) + " into 2..16 columns of one-block rows");
  }
  // The one-block kernels read H[k]; the four-step row kernel reads row k1 of n1 x n2, H[k1 + n1 k2].
  std::vector<float2> h(filter.size());
  for (int k1 = 0; k1 < n1_; ++k1)
    for (int k2 = 0; k2 < n2_; ++k2) {
      const auto v = filter[static_cast<std::size_t>(k1) + static_cast<std::size_t>(n1_) * k2];
      h[static_cast<std::size_t>(k1) * n2_ + k2] = make_float2(static_cast<float>(v.real()), static_cast<float>(v.imag()));
    }
  filter_ = upload(h);
  tw_ = upload(fft_twiddle_table(n2_));
  if (four_step()) {
    tw_n_ = upload(fft_twiddle_table(nfft_));
    scratch_.resize(static_cast<std::size_t>(max_lines) * nfft_);
  }
}

void RangeCompressor::run(SampleType type, const void* raw, int lines, int nr, float2* out, int out_cols,
                          int out_pitch, cudaStream_t stream) const {
  if (lines > max_lines_ && four_step())
    throw Error("range compression: " + std::to_string(lines) + " lines, planned for at most " +
                std::to_string(max_lines_));
  if (!four_step()) {
    launch_range_compress_fused(nfft_, type, raw, lines, nr, filter_.get(), tw_.get(), out, out_cols, out_pitch, stream);
    return;
  }
  launch_four_step_columns_in(n1_, n2_, type, raw, lines, nr, tw_n_.get(), scratch_.get(), stream);
  launch_four_step_rows(n1_, n2_, scratch_.get(), lines, filter_.get(), tw_.get(), tw_n_.get(), stream);
  launch_four_step_columns_out(n1_, n2_, scratch_.get(), lines, out, out_cols, out_pitch, stream);
}

}  // namespace sarfuse::cuda
