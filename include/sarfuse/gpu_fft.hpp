// sarfuse: batched 1-D complex FFTs on the GPU, on their own (like cuFFT) and as the family the
// focusing kernels are built from. Like FFTW: make the plan once (the variant chosen from a built-in
// table, or by timing the candidates: FftPlanning::measure, remembered in a wisdom file), execute many
// times on device pointers.
#pragma once
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sarfuse/plan.hpp"  // FftPlanning

namespace sarfuse::gpu {

// The kernels: one thread group per line, radix-16 / radix-8 / radix-4 Stockham passes with
// register-resident butterflies exchanged through shared memory (n = 64..16384; the radix-r variant
// needs n / r <= 1024 threads); mixed radix for n = 2^a 3^b 5^c 7^d (not a power of two): the nice
// lengths 2^a x {3, 5, 9, 15} in 1280..15360 (the ones the focusing chain's range FFT may take) by the same
// register-resident kernel structure (radix-16 passes, then the odd part), any other such n up to 12288 by a
// generic kernel (the line twice in shared memory, passes of radix 7, 5, 3, then 16 and the rest); or cuFFT.
// Reduced precision, on the tensor cores (256 points, contiguous lines only; never chosen by the
// planner): tensor_fp16 (FP16 operands), tensor_bf16 (BF16 operands), tensor_tf32, tensor_tf32x3 (split TF32: FP32-class accuracy),
// tensor_fp64 (DMMA: FP64 operands and accumulation; complex64 in and out).
// ct_dif_split: in-place Cooley-Tukey decimation in frequency, radix-8 stages (then 4 or 2), the line in
// shared memory in split real / imaginary layout (the structure of the Apple M1 system's matrix-unit kernel), output
// digit-reversed on the way out. four_step: lines longer than one block holds (2^15..2^22): an N1-point
// column FFT (x twiddles), N2-point row FFTs and a transpose, three passes over memory.
enum class FftVariant { automatic, stockham16, stockham8, stockham4, mixed_radix, cufft, tensor_fp16, tensor_tf32,
                        tensor_tf32x3, ct_dif_split, four_step, tensor_fp64, tensor_bf16 };
const char* to_string(FftVariant v);
FftVariant parse_fft_variant(const std::string& s);  // "auto", "stockham16", ... ; throws Error

struct FftDesc {
  int n = 0;          // points per transform
  int batch = 1;      // transforms
  int stride = 1;     // between a transform's elements
  int dist = 0;       // between transforms' first elements (0: n x stride when stride is 1, else 1)
  bool inverse = false;  // unnormalised, like cuFFT and FFTW
  std::string key() const;  // "n=4096 batch=... stride=1 dist=4096 inverse=0" (wisdom key)
};

// The FP32-accurate variants that can run `d` (the planner's candidates; they differ in speed).
std::vector<FftVariant> fft_variants_for(const FftDesc& d);
// The reduced-precision tensor-core variants that can run `d` (n = 256, contiguous).
std::vector<FftVariant> tensor_variants_for(const FftDesc& d);

// Remembered choices: JSON {"device name": {"<FftDesc::key()>": {"variant": ..., "ms": ...}}}; and the
// focusing chain's measured range FFT length, {"range-fft <shape>": {"length": ..., "ms": ...}}.
class FftWisdom {
 public:
  static std::string default_path();  // $XDG_CACHE_HOME or ~/.cache, then sarfuse/wisdom.json
  explicit FftWisdom(std::string path);  // reads it when it exists (a broken file is an Error naming it)
  bool lookup(const std::string& device, const FftDesc& d, FftVariant* variant) const;
  void remember(const std::string& device, const FftDesc& d, FftVariant variant, double ms);
  bool lookup_length(const std::string& device, const std::string& key, int* length) const;
  void remember_length(const std::string& device, const std::string& key, int length, double ms);
  void save() const;  // atomically
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string json_;  // the document, kept as text so this header needs no JSON library
};

struct FftPlanOptions {
  FftVariant variant = FftVariant::automatic;
  FftPlanning planning = FftPlanning::estimate;  // automatic variant: built-in table, or time the candidates
  std::string wisdom_path;                       // measure: "" = FftWisdom::default_path(); "-" = none
};

class FftPlan {
 public:
  FftPlan(const FftDesc& desc, const FftPlanOptions& options = {});
  FftPlan(FftPlan&&) noexcept;
  FftPlan& operator=(FftPlan&&) noexcept;
  ~FftPlan();
  // Device pointers; in == out is allowed for the Stockham variants and cuFFT. `stream`: a
  // cudaStream_t (nullptr: the default stream). Asynchronous, launch errors checked.
  void execute(const std::complex<float>* in, std::complex<float>* out, void* stream = nullptr) const;
  FftVariant variant() const;
  const FftDesc& desc() const;
  // How the variant was chosen: "requested", "estimate (built-in table)", "measured: ...", "wisdom".
  const std::string& how_chosen() const;
  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sarfuse::gpu
