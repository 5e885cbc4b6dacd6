// sarfuse::gpu FFT descriptors on the host: variant names, descriptor keys, the variants that can run a
// descriptor (the plans: fft_plan.cu; the kernels: line_fft_kernels.cu; the wisdom file: fft_wisdom.cpp).
#include "cuda/fft/fft_math.hpp"  // mixed_radix_schedule (host and device)
#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"

namespace sarfuse::gpu {

const char* to_string(FftVariant v) {
  switch (v) {
    case FftVariant::automatic: return "auto";
    case FftVariant::stockham16: return "stockham16";
    case FftVariant::stockham8: return "stockham8";
    case FftVariant::stockham4: return "stockham4";
    case FftVariant::mixed_radix: return "mixed";
    case FftVariant::cufft: return "cufft";
    case FftVariant::tensor_fp16: return "tensor-fp16";
    case FftVariant::tensor_tf32: return "tensor-tf32";
    case FftVariant::tensor_tf32x3: return "tensor-3xtf32";
    case FftVariant::ct_dif_split: return "ct-dif-split";
    case FftVariant::four_step: return "four-step";
    case FftVariant::tensor_fp64: return "tensor-fp64";
    case FftVariant::tensor_bf16: return "tensor-bf16";
  }
  return "?";
}

FftVariant parse_fft_variant(const std::string& s) {
  for (FftVariant v : {FftVariant::automatic, FftVariant::stockham16, FftVariant::stockham8, FftVariant::stockham4,
                       FftVariant::mixed_radix, FftVariant::cufft, FftVariant::tensor_fp16, FftVariant::tensor_tf32,
                       FftVariant::tensor_tf32x3, FftVariant::ct_dif_split, FftVariant::four_step, FftVariant::tensor_fp64,
                       FftVariant::tensor_bf16})
    if (s == to_string(v)) return v;
  throw Error("FFT variant '" + s +
              "': expected auto, stockham16, stockham8, stockham4, ct-dif-split, mixed, four-step, cufft, tensor-fp16, "
              "tensor-bf16, tensor-tf32, tensor-3xtf32 or tensor-fp64");
}

std::string FftDesc::key() const {
  return "n=" + std::to_string(n) + " batch=" + std::to_string(batch) + " stride=" + std::to_string(stride) +
         " dist=" + std::to_string(dist) + " inverse=" + std::to_string(inverse ? 1 : 0);
}

std::vector<FftVariant> fft_variants_for(const FftDesc& d) {
  std::vector<FftVariant> v;
  const bool pow2 = d.n >= 64 && d.n <= 16384 && (d.n & (d.n - 1)) == 0;
  if (pow2) {
    v.push_back(FftVariant::stockham16);
    if (d.n / 8 <= 1024) v.push_back(FftVariant::stockham8);
    if (d.n / 4 <= 1024) v.push_back(FftVariant::stockham4);
    v.push_back(FftVariant::ct_dif_split);
  } else if (d.n > 16384 && d.n <= (1 << 22) && (d.n & (d.n - 1)) == 0) {
    const int dist = d.dist ? d.dist : (d.stride == 1 ? d.n : 1);
    if (d.stride == 1 && dist == d.n) v.push_back(FftVariant::four_step);  // contiguous lines
  } else {
    int radices[32];
    if ((d.n >= 2 && d.n <= 12288 && cuda::fft::mixed_radix_schedule(d.n, radices) > 0) || cuda::fft::is_nice_row_size(d.n))
      v.push_back(FftVariant::mixed_radix);
  }
  v.push_back(FftVariant::cufft);
  return v;
}

std::vector<FftVariant> tensor_variants_for(const FftDesc& d) {
  const int dist = d.dist ? d.dist : d.n;
  if (d.n != 256 || d.stride != 1 || dist != 256) return {};
  return {FftVariant::tensor_fp16, FftVariant::tensor_bf16, FftVariant::tensor_tf32, FftVariant::tensor_tf32x3,
          FftVariant::tensor_fp64};
}

}  // namespace sarfuse::gpu
