// sarfuse::gpu::FftPlan in a build without CUDA: constructing one says so.
#include "sarfuse/error.hpp"
#include "sarfuse/gpu_fft.hpp"

namespace sarfuse::gpu {

class FftPlan::Impl {};
FftPlan::FftPlan(const FftDesc&, const FftPlanOptions&) {
  throw Error("GPU FFT plans: this build has no CUDA backend (nvcc was not found at build time)");
}
FftPlan::FftPlan(FftPlan&&) noexcept = default;
FftPlan& FftPlan::operator=(FftPlan&&) noexcept = default;
FftPlan::~FftPlan() = default;
void FftPlan::execute(const std::complex<float>*, std::complex<float>*, void*) const {
  throw Error("GPU FFT plans: no CUDA backend");
}
FftVariant FftPlan::variant() const { throw Error("GPU FFT plans: no CUDA backend"); }
const FftDesc& FftPlan::desc() const { throw Error("GPU FFT plans: no CUDA backend"); }
const std::string& FftPlan::how_chosen() const { throw Error("GPU FFT plans: no CUDA backend"); }

}  // namespace sarfuse::gpu
