// make_plan(): resolves the options, validates, and hands the work to the backend (plan/backend.hpp).
#include <complex>
#include <utility>

#include "core/threads.hpp"
#include "plan/backend.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

Plan::Plan(std::unique_ptr<PlanImpl> impl) : impl_(std::move(impl)) {}
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;
Plan::~Plan() = default;

void PlanImpl::focus_on_device(const RawView&, std::complex<float>*) {
  throw Error(std::string("focus_on_device: device arrays need a CUDA plan (this plan runs on the ") + to_string(backend) +
              " backend)");
}

HeldRows PlanImpl::focus_held_rows(const RawView&, RowSpan) {
  throw Error(std::string("focus_held_rows: a ") + to_string(backend) + " " + to_string(options.precision) +
              " plan hands rows back by copy (focus_rows); held rows need a CPU fp32 plan");
}

namespace {

void check_row_span(const char* call, RowSpan rows, std::size_t lines) {
  if (rows.count == 0 || rows.count > lines || rows.first >= lines)
    throw Error(std::string(call) + ": rows " + std::to_string(rows.first) + "+" + std::to_string(rows.count) +
                " of a plan of " + std::to_string(lines) + " lines; expected 1.." + std::to_string(lines) +
                " rows from a row below " + std::to_string(lines));
}

}  // namespace

void Plan::focus(const RawView& raw, ComplexImage& slc) { impl_->focus(raw, slc); }
void Plan::focus_rows(const RawView& raw, RowSpan rows, SampleFormat format, void* out) {
  check_row_span("focus_rows", rows, impl_->lines);
  if (format == SampleFormat::cint16)
    throw Error("focus_rows: cint16 needs the product's scale; ask for complex64 and let the product writer encode");
  impl_->focus_rows(raw, rows, format, out);
}
bool Plan::holds_rows(RowSpan rows) const { return impl_->holds_rows(rows); }
HeldRows Plan::focus_held_rows(const RawView& raw, RowSpan rows) {
  check_row_span("focus_held_rows", rows, impl_->lines);
  return impl_->focus_held_rows(raw, rows);
}
void Plan::focus_on_device(const RawView& raw, std::complex<float>* slc) { impl_->focus_on_device(raw, slc); }
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

namespace {

// Options as a plan resolves them (threads, SRC, backend) and the range FFT length; validates.
std::pair<FocusOptions, std::size_t> resolve_options(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                                     const FocusOptions& options) {
  validate(radar, "parameters");
  validate_shape(radar, lines, samples, "raw data");
  FocusOptions opt = options;
  if (opt.rcmc_taps < 2 || opt.rcmc_taps > 32 || opt.rcmc_taps % 2)
    throw Error("rcmc_taps: expected an even number in [2, 32] (got " + std::to_string(opt.rcmc_taps) + ")");
  if (opt.azimuth_bandwidth_hz < 0 || opt.azimuth_bandwidth_hz > radar.prf_hz)
    throw Error("azimuth_bandwidth_hz: expected a value in (0, PRF = " + std::to_string(radar.prf_hz) + " Hz]");
  opt.threads = core::resolve_threads(opt.threads);
  if (opt.src == SrcMode::automatic) opt.src = radar.doppler_centroid_hz != 0 ? SrcMode::on : SrcMode::off;

  const std::size_t linear = samples + static_cast<std::size_t>(radar.replica_length()) - 1;
  if (opt.range_fft_size != 0 && opt.range_fft_size < linear)
    throw Error("range_fft_size " + std::to_string(opt.range_fft_size) + ": must be at least Nr + replica - 1 = " +
                std::to_string(linear) + " for a linear convolution");
  // automatic: CUDA when the machine has a device and the plan fits it; the plan reports what it chose.
  if (opt.backend == Backend::automatic)
    opt.backend = backend_kind(Backend::cuda).supports(opt, opt.range_fft_size) ? Backend::cuda : Backend::cpu;
  const std::size_t nfft = opt.range_fft_size ? opt.range_fft_size : backend_kind(opt.backend).range_fft_length(linear, opt);
  return {opt, nfft};
}

}  // namespace

Backend resolved_backend(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options) {
  return resolve_options(radar, lines, samples, options).first.backend;
}

PlanMemory plan_memory(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options) {
  const auto [opt, nfft] = resolve_options(radar, lines, samples, options);
  PlanMemory m = backend_kind(opt.backend).required_bytes(lines, samples, nfft, opt);
  m.host_bytes += lines * samples * sizeof(std::complex<float>);  // the SLC the caller holds
  return m;
}

Plan make_plan(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options) {
  const auto [opt, nfft] = resolve_options(radar, lines, samples, options);
  std::unique_ptr<PlanImpl> impl = backend_kind(opt.backend).make(radar, lines, samples, opt, nfft);

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

}  // namespace sarfuse
