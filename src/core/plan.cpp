// make_plan(): resolves options, validates, and hands the work to a backend.
#include <filesystem>
#include <cctype>
#include <complex>
#include <utility>
#include <cmath>
#include <cstdio>

#include "core/plan_impl.hpp"
#include "core/threads.hpp"
#include "cpu/rda_cpu.hpp"
#if SARFUSE_HAVE_CUDA
#include "cuda/backend.hpp"
#endif
#include "sarfuse/bench.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

Plan::Plan(std::unique_ptr<PlanImpl> impl) : impl_(std::move(impl)) {}
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;
Plan::~Plan() = default;

void Plan::focus(const RawView& raw, ComplexImage& slc) { impl_->focus(raw, slc); }
std::size_t Plan::lines() const { return impl_->lines; }
std::size_t Plan::samples() const { return impl_->samples; }
std::size_t Plan::range_fft_size() const { return impl_->nfft; }
Backend Plan::backend() const { return impl_->backend; }
const ProductGeometry& Plan::geometry() const { return impl_->geometry; }
const StageTimes& Plan::last_times() const { return impl_->times; }
const RadarParams& Plan::radar() const { return impl_->radar; }
const FocusOptions& Plan::options() const { return impl_->options; }
const std::string& Plan::notes() const { return impl_->notes; }
void Plan::pin_host(void* data, std::size_t bytes) { impl_->pin_host(data, bytes); }
void Plan::unpin_host(void* data) { impl_->unpin_host(data); }

std::pair<std::size_t, std::size_t> parse_size_pair(const std::string& text, const std::string& what,
                                                    const std::string& example) {
  const auto x = text.find('x');
  std::size_t a_end = 0, b_end = 0;
  try {
    if (x == std::string::npos || x == 0 || text[0] == '-' || text[x + 1] == '-') throw std::invalid_argument(text);
    const std::size_t a = std::stoul(text.substr(0, x), &a_end), b = std::stoul(text.substr(x + 1), &b_end);
    if (a_end != x || b_end != text.size() - x - 1) throw std::invalid_argument(text);
    return {a, b};
  } catch (const std::exception&) {
    throw Error(what + ": expected " + example + " (got '" + text + "')");
  }
}

std::size_t parse_byte_size(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "kib") scale = 1024.0;
  else if (unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else if (unit == "tb") scale = 1e12;
  if (used == 0 || scale == 0 || !(value > 0) || value * scale > 1e18)
    throw Error(what + ": expected a positive size such as 8GiB, 512MiB, 2GB or 4096 (got '" + text + "')");
  return static_cast<std::size_t>(value * scale);
}

std::string format_bytes(double bytes) {
  char buf[64];
  if (bytes >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024));
  return buf;
}

std::size_t fft_friendly_size(std::size_t n) {
  for (std::size_t m = std::max<std::size_t>(n, 1);; ++m) {
    std::size_t r = m;
    for (std::size_t p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

namespace {

// Options as a plan resolves them (threads, SRC, backend) and the range FFT length; validates.
std::pair<FocusOptions, std::size_t> resolve_options(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                                     const FocusOptions& options) {
  validate(radar, "parameters");
  validate_shape(radar, lines, samples, "raw data");
  FocusOptions opt = options;
  if (opt.rcmc_taps < 2 || opt.rcmc_taps > 32 || opt.rcmc_taps % 2)
    throw Error("--rcmc-taps: expected an even number in [2, 32] (got " + std::to_string(opt.rcmc_taps) + ")");
  if (opt.azimuth_bandwidth_hz < 0 || opt.azimuth_bandwidth_hz > radar.prf_hz)
    throw Error("--azimuth-bandwidth: expected a value in (0, PRF = " + std::to_string(radar.prf_hz) + " Hz]");
  opt.threads = core::resolve_threads(opt.threads);
  if (opt.src == SrcMode::automatic) opt.src = radar.doppler_centroid_hz != 0 ? SrcMode::on : SrcMode::off;

  const std::size_t linear = samples + static_cast<std::size_t>(radar.replica_length()) - 1;
  auto pow2_at_least = [](std::size_t n) {
    std::size_t p = 1;
    while (p < n) p *= 2;
    return p;
  };
  if (opt.range_fft_size != 0 && opt.range_fft_size < linear)
    throw Error("--range-fft-size " + std::to_string(opt.range_fft_size) + ": must be at least Nr + replica - 1 = " +
                std::to_string(linear) + " for a linear convolution");
  if (opt.backend == Backend::automatic) {
    // CUDA when a device is there and the plan fits it (a power-of-two or nice range FFT, not fp64);
    // the plan reports what it chose.
    bool fits = opt.precision != Precision::fp64;
#if SARFUSE_HAVE_CUDA
    fits = fits && (opt.range_fft_size == 0 || cuda::range_length_runs(opt.range_fft_size, opt));
#endif
    opt.backend = (fits && cuda_device_count() > 0) ? Backend::cuda : Backend::cpu;
  }
  std::size_t nfft = opt.range_fft_size ? opt.range_fft_size : fft_friendly_size(linear);
  if (opt.backend == Backend::cuda && opt.range_fft_size == 0) {
#if SARFUSE_HAVE_CUDA
    nfft = cuda::range_fft_length(linear, opt);
#else
    nfft = pow2_at_least(linear);
#endif
  }
  return {opt, nfft};
}

}  // namespace

Backend resolved_backend(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options) {
  return resolve_options(radar, lines, samples, options).first.backend;
}

PlanMemory plan_memory(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options) {
  const auto [opt, nfft] = resolve_options(radar, lines, samples, options);
  PlanMemory m;
  const std::size_t scene = lines * samples * sizeof(std::complex<float>);  // the SLC the caller holds
  m.host_bytes = scene;
  if (opt.backend == Backend::cuda) {
#if SARFUSE_HAVE_CUDA
    m.device_bytes = cuda::required_device_bytes(lines, samples, nfft, opt);
#endif
  } else {
    m.host_bytes += cpu::required_host_bytes(lines, samples, nfft, opt);
  }
  return m;
}

Plan make_plan(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options) {
  auto [opt, nfft] = resolve_options(radar, lines, samples, options);
  std::unique_ptr<PlanImpl> impl;
  if (opt.backend == Backend::cuda) {
#if SARFUSE_HAVE_CUDA
    std::string length_note;  // --plan measure: the range FFT length timed (nice vs power of two)
    if (options.range_fft_size == 0 && opt.fft_planning == FftPlanning::measure)
      nfft = cuda::measure_range_fft_length(radar, lines, samples, opt, &length_note);
    impl = cuda::make_cuda_plan(radar, lines, samples, opt, nfft);
    impl->notes = length_note + impl->notes;
#else
    throw Error("--backend cuda: this build has no CUDA backend (nvcc was not found at build time)");
#endif
  } else {
    impl = cpu::make_cpu_plan(radar, lines, samples, opt, nfft);
  }

  impl->options.range_fft_size = impl->nfft;  // as used, for the product's sidecar
  ProductGeometry& g = impl->geometry;
  g.eta_first_s = -static_cast<double>(lines) / (2.0 * radar.prf_hz);
  g.azimuth_spacing_s = 1.0 / radar.prf_hz;
  g.near_range_m = radar.near_range_m;
  g.range_spacing_m = radar.range_spacing_m();
  const std::size_t h = static_cast<std::size_t>(radar.replica_half_length());
  g.first_full_column = h;
  g.last_full_column = samples > h ? samples - h : h;
  g.src_applied = opt.src == SrcMode::on;
  return Plan(std::move(impl));
}

const char* to_string(Backend b) {
  switch (b) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "?";
}
const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::fp64: return "fp64";
    case Precision::fp16_storage: return "fp16-storage";
    case Precision::fp16: return "fp16";
    case Precision::tf32x3: return "tf32x3";
  }
  return "?";
}

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::automatic;
  if (s == "cpu") return Backend::cpu;
  if (s == "cuda") return Backend::cuda;
  throw Error("--backend: expected auto, cpu or cuda (got '" + s + "')");
}
Precision parse_precision(const std::string& s) {
  if (s == "fp32") return Precision::fp32;
  if (s == "fp64") return Precision::fp64;
  if (s == "fp16-storage") return Precision::fp16_storage;
  if (s == "fp16") return Precision::fp16;
  if (s == "tf32x3") return Precision::tf32x3;
  throw Error("--precision: expected fp32, fp64, fp16-storage, fp16 or tf32x3 (got '" + s + "')");
}
const char* to_string(Pipeline p) {
  switch (p) {
    case Pipeline::fused: return "fused";
    case Pipeline::cufft_unfused: return "cufft-unfused";
    case Pipeline::cufft_callback: return "cufft-callback";
    case Pipeline::vkfft_conv: return "vkfft-conv";
  }
  return "?";
}
Pipeline parse_pipeline(const std::string& s) {
  if (s == "fused") return Pipeline::fused;
  if (s == "cufft-unfused") return Pipeline::cufft_unfused;
  if (s == "cufft-callback") return Pipeline::cufft_callback;
  if (s == "vkfft-conv") return Pipeline::vkfft_conv;
  throw Error("--pipeline: expected fused, cufft-unfused, cufft-callback or vkfft-conv (got '" + s + "')");
}

#if !SARFUSE_HAVE_CUDA
std::string bench_cuda(const CudaBenchOptions&) {
  throw Error("bench --backend cuda: this build has no CUDA backend (nvcc was not found at build time)");
}
#endif

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

int cuda_device_count() {
#if SARFUSE_HAVE_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

SrcMode parse_src_mode(const std::string& s) {
  if (s == "auto") return SrcMode::automatic;
  if (s == "on") return SrcMode::on;
  if (s == "off") return SrcMode::off;
  throw Error("--src: expected auto, on or off (got '" + s + "')");
}

}  // namespace sarfuse
