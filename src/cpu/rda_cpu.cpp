// The CPU Range-Doppler plan: four steps over the scene, each parallel over rows or column blocks,
// one file each:
//   1. range_compression.cpp:  per pulse: convert samples, zero-pad to nfft, FFT, x range matched filter
//   2. azimuth_fft.cpp:        per column block: gather, FFT along azimuth, scatter (cache-blocked)
//   3. range_doppler_step.cpp: per Doppler row: x SRC, range IFFT, RCMC (windowed sinc), x azimuth filter
//   4. azimuth_fft.cpp:        the IFFT of the Nr kept columns, scattered to the SLC
// Doppler rows outside the processed band (azimuth filter weight 0) are neither stored by step 2 nor
// computed by step 3; step 4 reads zeros for them.
// All filter constants come from core/filters (float64); only the data is in T.
#include "cpu/rda_cpu.hpp"

#include <chrono>
#include <type_traits>

#include "core/memory.hpp"
#include "cpu/azimuth_fft.hpp"
#include "cpu/range_compression.hpp"
#include "cpu/range_doppler_step.hpp"
#include "cpu/scene_rows.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse::cpu {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class T>
class CpuRda final : public PlanImpl {
 public:
  CpuRda(const RadarParams& r, std::size_t na, std::size_t nr, const FocusOptions& opt, std::size_t n_fft)
      : PlanImpl(r, na, nr, opt, n_fft, Backend::cpu),
        scene_(na, nr, n_fft, opt.threads),
        range_compression_(r, opt, scene_),
        range_doppler_(r, opt, scene_),
        azimuth_fft_(core::FftDirection::forward, opt.fft_planning, scene_),
        azimuth_ifft_(core::FftDirection::inverse, opt.fft_planning, scene_) {
    notes += range_doppler_.note();
    // The scene's pages now, by every thread: a first focus would otherwise pay their first touches.
    core::prefault_pages(scene_.work.data(), scene_.work.size() * sizeof(scene_.work[0]), opt.threads);
    core::prefault_pages(scene_.scratch.data(), scene_.scratch.size() * sizeof(scene_.scratch[0]), opt.threads);
  }

  void focus(const RawView& raw, ComplexImage& slc) override {
    check_shape(raw);
    if (slc.lines() != lines || slc.samples() != samples) slc = ComplexImage(lines, samples);
    const SlcRows all{slc.data(), 0, lines, samples};
    run(raw, all);
  }

  // Only the kept rows are stored (the IFFT's scatter skips the others), complex64.
  void focus_rows(const RawView& raw, RowSpan rows, SampleFormat format, void* out) override {
    if (format != SampleFormat::complex64)
      throw Error(std::string("focus_rows: a CPU plan hands back complex64 rows (asked for ") + to_string(format) +
                  "; the product writer encodes them)");
    check_shape(raw);
    const SlcRows kept{static_cast<std::complex<float>*>(out), rows.first, rows.count, samples};
    run(raw, kept);
  }

  // fp32: the IFFT's scatter writes the kept rows back where it gathered them, in the scene.
  bool holds_rows(RowSpan rows) const override {
    return std::is_same_v<T, float> && rows.first + rows.count <= lines;
  }
  HeldRows focus_held_rows(const RawView& raw, RowSpan rows) override {
    if constexpr (!std::is_same_v<T, float>) {
      return PlanImpl::focus_held_rows(raw, rows);
    } else {
      if (!holds_rows(rows))
        throw Error("focus_held_rows: rows " + std::to_string(rows.first) + "+" + std::to_string(rows.count) +
                    " wrap past the plan's last line (" + std::to_string(lines) +
                    "); held rows run in order from their first (focus_rows takes these)");
      check_shape(raw);
      const SlcRows kept{scene_.row(rows.first), rows.first, rows.count, scene_.stride};
      run(raw, kept);
      return {scene_.row(rows.first), rows.count, scene_.stride};
    }
  }

 private:
  void check_shape(const RawView& raw) const {
    if (raw.lines != lines || raw.samples != samples)
      throw Error("focus: raw data is " + std::to_string(raw.lines) + " x " + std::to_string(raw.samples) +
                  " but the plan was made for " + std::to_string(lines) + " x " + std::to_string(samples));
  }

  void run(const RawView& raw, const SlcRows& out) {
    const auto t0 = Clock::now();
    auto t = t0;
    // Each step skips its remaining rows once a stop is requested (an exception must not leave an
    // OpenMP region) and the check after it throws: a stop takes effect within a row or a block.
    range_compression_.run(raw, scene_);
    throw_if_interrupted();
    times.range_compress = seconds_since(t);
    t = Clock::now();
    azimuth_fft_.run(scene_, nfft, range_doppler_.passed_rows(), nullptr);
    throw_if_interrupted();
    times.azimuth_fft = seconds_since(t);
    t = Clock::now();
    range_doppler_.run(scene_);
    throw_if_interrupted();
    times.range_doppler = seconds_since(t);
    t = Clock::now();
    azimuth_ifft_.run(scene_, samples, range_doppler_.passed_rows(), &out);
    throw_if_interrupted();
    times.azimuth_ifft = seconds_since(t);
    times.total = seconds_since(t0);
  }

  SceneRows<T> scene_;
  RangeCompression<T> range_compression_;
  RangeDopplerStep<T> range_doppler_;
  AzimuthFft<T> azimuth_fft_, azimuth_ifft_;
};

}  // namespace

std::size_t required_host_bytes(std::size_t lines, std::size_t samples, std::size_t nfft, const FocusOptions& opt) {
  (void)samples;
  const std::size_t c = opt.precision == Precision::fp64 ? sizeof(std::complex<double>) : sizeof(std::complex<float>);
  const std::size_t stride = SceneRows<float>::row_stride(nfft), block = 256 / c;
  const std::size_t scratch = std::max(stride + 32, block * lines);
  return c * (lines * stride + static_cast<std::size_t>(opt.threads) * scratch + nfft) +
         lines * sizeof(core::DopplerRow) + samples * sizeof(double) + (1 << 20);  // rows, band, tables
}

std::unique_ptr<PlanImpl> make_cpu_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                        const FocusOptions& opt, std::size_t nfft) {
  if (opt.precision == Precision::fp16_storage || opt.precision == Precision::fp16 || opt.precision == Precision::tf32x3)
    throw Error(std::string("precision ") + to_string(opt.precision) +
                (opt.precision == Precision::tf32x3 ? ": a GPU mode (FFTs on the tensor cores)"
                                                    : ": a GPU mode (the scene in FP16 device memory between the passes)") +
                "; use backend cuda, or fp32 / fp64 on the CPU");
  if (opt.precision == Precision::fp64) return std::make_unique<CpuRda<double>>(radar, lines, samples, opt, nfft);
  return std::make_unique<CpuRda<float>>(radar, lines, samples, opt, nfft);
}

}  // namespace sarfuse::cpu
