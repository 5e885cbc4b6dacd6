// The vkfft-conv baseline, seen from the library: loads libsarfuse_vkfft.so on first use (it links
// libcuda, which machines without a GPU driver lack) and runs VkFFT's convolution for range
// compression with the plan's own range filter.
#pragma once
#include <cuda_runtime.h>

#include <complex>
#include <string>
#include <vector>

namespace sarfuse::cuda {

class VkfftConv {
 public:
  // Range compression of `lines` lines at pitch n in place. `filter` is the plan's range filter (n
  // values, 1/n folded in), so VkFFT applies exactly the same weights. zero_pad_columns: VkFFT's own
  // zero padding (columns >= nr neither read nor written: only the first nr output columns are valid);
  // otherwise the caller zero-pads and all n output columns are valid (what the azimuth chain needs).
  VkfftConv(int n, int lines, int nr, bool zero_pad_columns, const std::vector<std::complex<double>>& filter,
            cudaStream_t stream);
  VkfftConv(const VkfftConv&) = delete;
  VkfftConv& operator=(const VkfftConv&) = delete;
  ~VkfftConv();
  void run(float2* data);

  // Where the module was found, or why it cannot be used (empty when available).
  static std::string unavailable_reason();

 private:
  void* handle_ = nullptr;
};

}  // namespace sarfuse::cuda
