// CPU Range-Doppler focusing. Four passes over the scene, each parallel over rows or column blocks:
//   1. range_compress:  per pulse: convert samples, zero-pad to nfft, FFT, x range matched filter
//   2. azimuth_fft:     per column block: gather, FFT along azimuth, scatter (cache-blocked transpose)
//   3. range_doppler:   per Doppler row: x SRC, range IFFT, RCMC (windowed sinc), x azimuth filter
//   4. azimuth_ifft:    per column block of the Nr kept columns: gather, IFFT, scatter to the SLC
// All filter constants come from core/filters (float64); only the data is in T.
#include "cpu/rda_cpu.hpp"
#include "sarfuse/interrupt.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/fft.hpp"
#include "core/filters.hpp"
#include "core/geometry.hpp"
#include "core/raw_rows.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cpu {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }


// 16-byte SIMD vectors through the GCC/Clang vector extension.
template <class T>
struct Simd16;
template <>
struct Simd16<float> {
  typedef float type __attribute__((vector_size(16)));
};
template <>
struct Simd16<double> {
  typedef double type __attribute__((vector_size(16)));
};

template <class T>
class CpuRda final : public PlanImpl {
 public:
  using cplx = std::complex<T>;
  static constexpr std::size_t kBlock = 256 / sizeof(cplx);  // columns per azimuth block: 4 cache lines a row
  static constexpr int kPhasorBlock = 32;
  static constexpr std::size_t kPrefetchRows = 16;
  static constexpr int kMaxTaps = 32;  // make_plan's bound on --rcmc-taps

  CpuRda(const RadarParams& r, std::size_t na, std::size_t nr, const FocusOptions& opt, std::size_t n_fft)
      : PlanImpl(r, na, nr, opt, n_fft, Backend::cpu) {
    threads_ = opt.threads;
    stride_ = (nfft + 7) / 8 * 8;  // every row 64-byte aligned, as the FFT plans expect
    work_.resize(lines * stride_);
    scratch_.resize(static_cast<std::size_t>(threads_) * scratch_per_thread());

    const auto hr = core::range_matched_filter(radar, nfft, options.range_window);
    range_filter_.resize(nfft);
    for (std::size_t m = 0; m < nfft; ++m) range_filter_[m] = cplx(hr[m]);
    az_ = core::azimuth_filter(radar, lines, samples, options.src == SrcMode::on, options.azimuth_window,
                               options.azimuth_bandwidth_hz);
    notes += az_.note;
    sinc_ = core::make_sinc_table(options.rcmc_taps);
    // Each weight twice, to multiply interleaved (re, im) samples as one vector.
    sinc_weights_.resize(2 * sinc_.weights.size());
    for (std::size_t k = 0; k < sinc_.weights.size(); ++k)
      sinc_weights_[2 * k] = sinc_weights_[2 * k + 1] = static_cast<T>(sinc_.weights[k]);

    const int n = static_cast<int>(nfft), na_i = static_cast<int>(lines);
    cplx* row0 = work_.data();
    cplx* s0 = scratch_.data();
    range_fwd_ = core::FftPlan<T>({n}, core::FftDirection::forward, row0, row0, options.fft_planning);
    range_inv_ = core::FftPlan<T>({n}, core::FftDirection::inverse, row0, s0, options.fft_planning);
    const core::FftShape az{na_i, static_cast<int>(kBlock), 1, na_i};
    az_fwd_ = core::FftPlan<T>(az, core::FftDirection::forward, s0, s0, options.fft_planning);
    az_inv_ = core::FftPlan<T>(az, core::FftDirection::inverse, s0, s0, options.fft_planning);
  }

  void focus(const RawView& raw, ComplexImage& slc) override {
    if (raw.lines != lines || raw.samples != samples)
      throw Error("focus: raw data is " + std::to_string(raw.lines) + " x " + std::to_string(raw.samples) +
                  " but the plan was made for " + std::to_string(lines) + " x " + std::to_string(samples));
    if (slc.lines() != lines || slc.samples() != samples) slc = ComplexImage(lines, samples);
    const auto t0 = Clock::now();
    auto t = t0;
    // Each pass skips its remaining rows once a stop is requested (an exception must not leave an
    // OpenMP region) and the check after it throws: a stop takes effect within a row or a block.
    range_compress(raw);
    throw_if_interrupted();
    times.range_compress = seconds_since(t);
    t = Clock::now();
    azimuth_transform(az_fwd_, nfft, nullptr);
    throw_if_interrupted();
    times.azimuth_fft = seconds_since(t);
    t = Clock::now();
    range_doppler();
    throw_if_interrupted();
    times.range_doppler = seconds_since(t);
    t = Clock::now();
    azimuth_transform(az_inv_, samples, &slc);
    throw_if_interrupted();
    times.azimuth_ifft = seconds_since(t);
    times.total = seconds_since(t0);
  }

 private:
  cplx* row(std::size_t i) { return work_.data() + i * stride_; }
  // Per thread: a range row plus the phasor table, or an azimuth column block.
  std::size_t scratch_per_thread() const { return std::max(stride_ + kPhasorBlock, kBlock * lines); }
  cplx* thread_scratch() {
    return scratch_.data() + static_cast<std::size_t>(omp_get_thread_num()) * scratch_per_thread();
  }

  void range_compress(const RawView& raw) {
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::size_t i = 0; i < lines; ++i) {
      if (interrupted()) continue;
      cplx* r = row(i);
      core::convert_row<T>(raw, i, r);
      std::fill(r + samples, r + nfft, cplx(0));
      range_fwd_.execute(r, r);
      const cplx* h = range_filter_.data();
      for (std::size_t m = 0; m < nfft; ++m) r[m] *= h[m];
    }
  }

  // FFT along azimuth of columns [0, ncols) of the work buffer, in cache-sized column blocks.
  // With `out`, the result goes to the SLC instead of back into the work buffer.
  void azimuth_transform(const core::FftPlan<T>& plan, std::size_t ncols, ComplexImage* out) {
    const std::size_t nblocks = (ncols + kBlock - 1) / kBlock;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::size_t b = 0; b < nblocks; ++b) {
      if (interrupted()) continue;
      cplx* blk = thread_scratch();
      const std::size_t c0 = b * kBlock;
      const std::size_t nb = std::min(kBlock, ncols - c0);
      for (std::size_t i = 0; i < lines; ++i) {
        // Rows are a page apart, out of reach of the hardware prefetcher: ask for the block's
        // cache lines some rows ahead so the misses overlap.
        if (i + kPrefetchRows < lines) prefetch_block(row(i + kPrefetchRows) + c0, false);
        const cplx* src = row(i) + c0;
        for (std::size_t c = 0; c < nb; ++c) blk[c * lines + i] = src[c];
      }
      if (nb < kBlock) std::fill(blk + nb * lines, blk + kBlock * lines, cplx(0));
      plan.execute(blk, blk);
      for (std::size_t i = 0; i < lines; ++i) {
        if (out) {
          std::complex<float>* dst = out->row(i) + c0;
          for (std::size_t c = 0; c < nb; ++c) dst[c] = std::complex<float>(blk[c * lines + i]);
        } else {
          if (i + kPrefetchRows < lines) prefetch_block(row(i + kPrefetchRows) + c0, true);
          cplx* dst = row(i) + c0;
          for (std::size_t c = 0; c < nb; ++c) dst[c] = blk[c * lines + i];
        }
      }
    }
  }

  static void prefetch_block(const cplx* p, bool for_write) {
    const char* b = reinterpret_cast<const char*>(p);
    for (std::size_t off = 0; off < kBlock * sizeof(cplx); off += 64) {
      if (for_write) __builtin_prefetch(b + off, 1);
      else __builtin_prefetch(b + off, 0);
    }
  }

  void range_doppler() {
    const double df = radar.range_sampling_rate_hz / static_cast<double>(nfft);
    const int taps = sinc_.taps;
    const long n = static_cast<long>(nfft);
    const double inv_lines = 1.0 / static_cast<double>(lines);
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::size_t k = 0; k < lines; ++k) {
      if (interrupted()) continue;
      const core::DopplerRow& dr = az_.rows[k];
      cplx* r = row(k);
      if (dr.weight == 0.0) {
        std::fill(r, r + samples, cplx(0));
        continue;
      }
      if (dr.src_inverse_rate != 0.0) apply_src(r, dr.src_inverse_rate, df);
      cplx* rc = thread_scratch();
      range_inv_.execute(r, rc);

      // Azimuth filter phasor exp(j (phase0 + step j)): exact float64 anchors every kPhasorBlock
      // columns times a per-row table of step^m, so every factor is within ~2 ulp of exact and
      // the inner loop has no serial dependency.
      cplx* steps = rc + stride_;  // the thread's scratch row is followed by room for the table
      std::complex<double> s = 1.0;
      const std::complex<double> step = std::polar(1.0, dr.az_phase_step);
      for (int m = 0; m < kPhasorBlock; ++m, s *= step) steps[m] = cplx(s);
      // A range-dependent band weighs each column (AzimuthFilter); else the row's weight goes into the anchors.
      const bool per_column = !az_.column_shift.empty();
      std::complex<double> anchor = std::polar(per_column ? 1.0 : dr.weight, dr.az_phase0);
      const std::complex<double> block_step = std::polar(1.0, dr.az_phase_step * kPhasorBlock);
      for (std::size_t j0 = 0; j0 < samples; j0 += kPhasorBlock) {
        const cplx a(anchor);
        const std::size_t j1 = std::min(samples, j0 + kPhasorBlock);
        for (std::size_t j = j0; j < j1; ++j) {
          const double p = dr.rcmc_offset + dr.rcmc_slope * static_cast<double>(j);
          // p >= 0 (offset >= 0, slope >= 1): truncation is floor, without a libm call.
          const double fl = static_cast<double>(static_cast<long>(p));
          const long i0 = static_cast<long>(fl) - taps / 2 + 1;
          double blend = 0;
          const int sr = core::sinc_row_blend(p - fl, sinc_.fractions, blend);
          const T* w0 = sinc_weights_.data() + 2 * static_cast<std::size_t>(sr) * taps;
          const T* w1 = w0 + 2 * taps;
          alignas(16) T w[2 * kMaxTaps];
          const T tb = static_cast<T>(blend);
          for (int q = 0; q < 2 * taps; ++q) w[q] = w0[q] + tb * (w1[q] - w0[q]);
          const bool inside = i0 >= 0 && i0 + taps <= n;
          const cplx acc = !inside ? interpolate_wrapped(rc, i0, w, taps, n)
                           : taps == 8 ? interpolate<8>(rc + i0, w, taps)
                                       : interpolate<0>(rc + i0, w, taps);
          r[j] = acc * (a * steps[j - j0]);
          if (per_column)
            r[j] *= static_cast<T>(core::window_lerp(az_.window.data(), core::AzimuthFilter::kWindowIntervals,
                                                     dr.band_x - az_.column_shift[j]) * inv_lines);
        }
        anchor *= block_step;
      }
    }
  }

  // sum_q x[q] w[q] for interleaved complex x and duplicated weights, in four partial sums that
  // map onto one SIMD register (float) or two (double).
  // sum_q x[q] w[q] on 16-byte vectors of interleaved (re, im): lanes alternate re/im, so the
  // vector sum splits into the real and imaginary results. GCC/Clang vector extensions keep this
  // portable; the default 8-tap kernel is unrolled at compile time.
  using Vec = typename Simd16<T>::type;
  static constexpr int kLanes = 16 / sizeof(T);
  static cplx reduce(Vec acc) {
    if constexpr (kLanes == 4) return {acc[0] + acc[2], acc[1] + acc[3]};
    else return {acc[0], acc[1]};
  }
  // Taps > 0: the kernel length at compile time (the default 8, unrolled); 0: `taps` at run time.
  template <int Taps>
  static cplx interpolate(const cplx* x, const T* w2, int taps) {
    const int n = Taps > 0 ? Taps : taps;
    const T* xf = reinterpret_cast<const T*>(x);
    Vec acc = {};
    for (int i = 0; i < 2 * n; i += kLanes) {
      Vec a, b;
      std::memcpy(&a, xf + i, sizeof a);
      std::memcpy(&b, w2 + i, sizeof b);
      acc += a * b;
    }
    return reduce(acc);
  }
  // The row is circular: indices modulo nfft, as the linear convolution laid them out.
  static cplx interpolate_wrapped(const cplx* x, long i0, const T* w2, int taps, long n) {
    cplx acc(0);
    for (int q = 0; q < taps; ++q) {
      long idx = (i0 + q) % n;
      if (idx < 0) idx += n;
      acc += x[idx] * w2[2 * q];
    }
    return acc;
  }

  // x exp(-j pi f_r^2 q) over the range spectrum; the phase is quadratic in the bin index, so it is
  // advanced by a second-order float64 recurrence instead of a sincos per sample. Bins s and n-s
  // share |f_r| and hence the factor.
  void apply_src(cplx* r, double q, double df) {
    const std::size_t half = nfft / 2;
    const double a = -M_PI * q * df * df;  // phase(s) = a s^2
    std::complex<double> z(1.0, 0.0);
    std::complex<double> inc = std::polar(1.0, a);        // z(s+1)/z(s) at s = 0
    const std::complex<double> inc2 = std::polar(1.0, 2.0 * a);
    for (std::size_t s = 0; s <= half; ++s) {
      const cplx f(z);
      r[s] *= f;
      if (s != 0 && s != nfft - s && nfft - s < nfft) r[nfft - s] *= f;
      z *= inc;
      inc *= inc2;
    }
  }

  int threads_ = 1;
  std::size_t stride_ = 0;
  AlignedBuffer<cplx> work_;
  AlignedBuffer<cplx> scratch_;
  AlignedBuffer<cplx> range_filter_;
  core::AzimuthFilter az_;
  core::SincTable sinc_;
  std::vector<T> sinc_weights_;
  core::FftPlan<T> range_fwd_, range_inv_, az_fwd_, az_inv_;
};

}  // namespace

std::size_t required_host_bytes(std::size_t lines, std::size_t samples, std::size_t nfft, const FocusOptions& opt) {
  (void)samples;
  const std::size_t c = opt.precision == Precision::fp64 ? sizeof(std::complex<double>) : sizeof(std::complex<float>);
  const std::size_t stride = (nfft + 7) / 8 * 8, block = 256 / c;
  const std::size_t scratch = std::max(stride + 32, block * lines);
  return c * (lines * stride + static_cast<std::size_t>(opt.threads) * scratch + nfft) +
         lines * sizeof(core::DopplerRow) + samples * sizeof(double) + (1 << 20);  // rows, band, tables
}

std::unique_ptr<PlanImpl> make_cpu_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                        const FocusOptions& opt, std::size_t nfft) {
  if (opt.precision == Precision::fp16_storage || opt.precision == Precision::fp16 || opt.precision == Precision::tf32x3)
    throw Error(std::string("--precision ") + to_string(opt.precision) +
                (opt.precision == Precision::tf32x3 ? ": a GPU mode (FFTs on the tensor cores)"
                                                    : ": a GPU mode (the scene in FP16 device memory between the passes)") +
                "; use --backend cuda, or fp32 / fp64 on the CPU");
  if (opt.precision == Precision::fp64) return std::make_unique<CpuRda<double>>(radar, lines, samples, opt, nfft);
  return std::make_unique<CpuRda<float>>(radar, lines, samples, opt, nfft);
}

}  // namespace sarfuse::cpu
