// The backends this build has: the one place that knows src/cpu/ and src/cuda/.
#include <algorithm>
#include <filesystem>
#include <utility>

#include "cpu/rda_cpu.hpp"
#include "plan/backend.hpp"
#include "sarfuse/error.hpp"
#if SARFUSE_HAVE_CUDA
#include "cuda/backend.hpp"
#endif

namespace sarfuse {

namespace {

class CpuBackend final : public BackendKind {
 public:
  bool supports(const FocusOptions&, std::size_t) const override { return true; }
  std::size_t range_fft_length(std::size_t linear, const FocusOptions&) const override {
    return fft_friendly_size(linear);
  }
  PlanMemory required_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                            const FocusOptions& options) const override {
    return {cpu::required_host_bytes(lines, samples, nfft, options), 0};
  }
  std::unique_ptr<PlanImpl> make(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                 const FocusOptions& options, std::size_t nfft) const override {
    return cpu::make_cpu_plan(radar, lines, samples, options, nfft);
  }
};

#if SARFUSE_HAVE_CUDA
class CudaBackend final : public BackendKind {
 public:
  // Not fp64 (the CPU reference), a range FFT length the chain runs, and a device.
  bool supports(const FocusOptions& options, std::size_t range_fft_size) const override {
    return options.precision != Precision::fp64 &&
           (range_fft_size == 0 || cuda::range_length_runs(range_fft_size, options)) && cuda::device_count() > 0;
  }
  std::size_t range_fft_length(std::size_t linear, const FocusOptions& options) const override {
    return cuda::range_fft_length(linear, options);
  }
  PlanMemory required_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                            const FocusOptions& options) const override {
    return {0, cuda::required_device_bytes(lines, samples, nfft, options)};
  }
  std::unique_ptr<PlanImpl> make(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                 const FocusOptions& options, std::size_t nfft) const override {
    std::string length_note;  // --plan measure: the range FFT length timed (nice vs power of two)
    if (options.range_fft_size == 0 && options.fft_planning == FftPlanning::measure)
      nfft = cuda::measure_range_fft_length(radar, lines, samples, options, &length_note);
    auto impl = cuda::make_cuda_plan(radar, lines, samples, options, nfft);
    impl->notes = length_note + impl->notes;
    return impl;
  }
};
#else
class CudaBackend final : public BackendKind {
 public:
  bool supports(const FocusOptions&, std::size_t) const override { return false; }
  std::size_t range_fft_length(std::size_t linear, const FocusOptions&) const override {
    std::size_t p = 1;
    while (p < linear) p *= 2;
    return p;
  }
  PlanMemory required_bytes(std::size_t, std::size_t, std::size_t, const FocusOptions&) const override { return {}; }
  std::unique_ptr<PlanImpl> make(const RadarParams&, std::size_t, std::size_t, const FocusOptions&,
                                 std::size_t) const override {
    throw Error("backend cuda: this build has no CUDA backend (nvcc was not found at build time)");
  }
};
#endif

}  // namespace

const BackendKind& backend_kind(Backend b) {
  static const CpuBackend cpu_backend;
  static const CudaBackend cuda_backend;
  return b == Backend::cuda ? static_cast<const BackendKind&>(cuda_backend) : cpu_backend;
}

std::vector<DeviceInfo> cuda_devices() {
#if SARFUSE_HAVE_CUDA
  return cuda::devices();
#else
  return {};
#endif
}

bool cuda_device_likely() {
#if SARFUSE_HAVE_CUDA
  std::error_code ec;
  return std::filesystem::exists("/dev/nvidia0", ec) || std::filesystem::exists("/dev/dxg", ec);  // Linux, WSL
#else
  return false;
#endif
}

bool cuda_initialize() {
#if SARFUSE_HAVE_CUDA
  return cuda::initialize_device();
#else
  return false;
#endif
}

DeviceImage::DeviceImage(std::size_t lines, std::size_t samples) : lines_(lines), samples_(samples) {
#if SARFUSE_HAVE_CUDA
  data_ = static_cast<std::complex<float>*>(cuda::allocate_device(std::max<std::size_t>(1, lines * samples) * 8));
#else
  throw Error("device arrays: this build of sarfuse has no CUDA backend");
#endif
}
DeviceImage::DeviceImage(DeviceImage&& o) noexcept : data_(o.data_), lines_(o.lines_), samples_(o.samples_) {
  o.data_ = nullptr;
}
DeviceImage& DeviceImage::operator=(DeviceImage&& o) noexcept {
  std::swap(data_, o.data_);
  lines_ = o.lines_;
  samples_ = o.samples_;
  return *this;
}
DeviceImage::~DeviceImage() {
#if SARFUSE_HAVE_CUDA
  cuda::free_device(data_);
#endif
}

bool cuda_release_device() {
#if SARFUSE_HAVE_CUDA
  return cuda::release_device();
#else
  return false;
#endif
}

int cuda_device_count() {
#if SARFUSE_HAVE_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

}  // namespace sarfuse
