#include "cpu/range_doppler_step.hpp"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/geometry.hpp"
#include "core/simd_clones.hpp"
#include "sarfuse/interrupt.hpp"

namespace sarfuse::cpu {

namespace {

// 32-byte SIMD vectors through the GCC/Clang vector extension (two 16-byte halves on the baseline
// clone, one AVX register on the x86-64-v3 one).
template <class T>
struct Simd32 {
  typedef T type __attribute__((vector_size(32)));
};

// (a b) without the library's NaN recovery path: the samples are finite (checked at the input).
template <class T>
std::complex<T> multiply(std::complex<T> a, std::complex<T> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// sum_q x[q] (w[q] + t d[q]) on vectors of interleaved (re, im): each weight is stored twice, so lanes
// alternate re/im and the vector sum splits into the real and imaginary results. `row` holds the
// fraction's 2 taps weights, then their 2 taps differences to the next fraction's (the blend is one
// multiply-add a weight). The default 8-tap kernel is unrolled at compile time.
template <class T>
struct SincSum {
  using cplx = std::complex<T>;
  using Vec = typename Simd32<T>::type;
  static constexpr int kLanes = 32 / sizeof(T);
  static cplx reduce(Vec acc) {
    if constexpr (kLanes == 8) {
      typedef T Half __attribute__((vector_size(16)));
      const Half h = __builtin_shufflevector(acc, acc, 0, 1, 2, 3) + __builtin_shufflevector(acc, acc, 4, 5, 6, 7);
      return {h[0] + h[2], h[1] + h[3]};
    } else {
      return {acc[0] + acc[2], acc[1] + acc[3]};
    }
  }
  // Taps > 0: the kernel length at compile time (the default 8, unrolled); 0: `taps` at run time.
  // Whole vectors first; what is left (float with taps not a multiple of 4) one sample at a time.
  // The whole vectors' partial sums (lanes re, im of kLanes / 2 samples), unreduced; returns the
  // interleaved index where they stop.
  template <int Taps>
  [[gnu::always_inline]] static int accumulate(Vec& acc, const cplx* x, const T* row, T t, int taps) {
    const int n2 = 2 * (Taps > 0 ? Taps : taps);
    const T* xf = reinterpret_cast<const T*>(x);
    acc = Vec{};
    int i = 0;
    for (; i + kLanes <= n2; i += kLanes) {
      Vec a, w, d;
      std::memcpy(&a, xf + i, sizeof a);
      std::memcpy(&w, row + i, sizeof w);
      std::memcpy(&d, row + n2 + i, sizeof d);
      acc += a * (w + t * d);
    }
    return i;
  }
  template <int Taps>
  static cplx interpolate(const cplx* x, const T* row, T t, int taps) {
    const int n2 = 2 * (Taps > 0 ? Taps : taps);
    Vec acc;
    int i = accumulate<Taps>(acc, x, row, t, taps);
    cplx tail(0);
    for (; i < n2; i += 2) tail += x[i / 2] * (row[i] + t * row[n2 + i]);
    return reduce(acc) + tail;
  }
  // The row is circular: indices modulo nfft, as the linear convolution laid them out.
  static cplx interpolate_wrapped(const cplx* x, long i0, const T* row, T t, int taps, long n) {
    cplx acc(0);
    for (int q = 0; q < taps; ++q) {
      long idx = (i0 + q) % n;
      if (idx < 0) idx += n;
      acc += x[idx] * (row[2 * q] + t * row[2 * taps + 2 * q]);
    }
    return acc;
  }
};

// Four consecutive outputs of the default 8-tap kernel in fp32 at once: each output's taps as
// SincSum::accumulate leaves them (a vector of four complex partial sums), the four vectors transposed
// so one vector add sums them all, then the two complex products of the phasor, four samples a vector.
// One horizontal sum a output was most of the step's own time (docs/performance.md). Vectors by
// reference into always-inlined helpers: never passed in registers between targets.
struct FourOutputs {
  using F8 = SincSum<float>::Vec;
  // (a, b, c, d) -> (sum of a's four samples, ..., sum of d's), in SincSum::reduce's order.
  [[gnu::always_inline]] static void sum4(F8& out, const F8& a, const F8& b, const F8& c, const F8& d) {
    const F8 t0 = __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13);    // a0 b0 a2 b2
    const F8 t1 = __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15);  // a1 b1 a3 b3
    const F8 t2 = __builtin_shufflevector(c, d, 0, 1, 8, 9, 4, 5, 12, 13);
    const F8 t3 = __builtin_shufflevector(c, d, 2, 3, 10, 11, 6, 7, 14, 15);
    const F8 s0 = __builtin_shufflevector(t0, t2, 0, 1, 2, 3, 8, 9, 10, 11);     // a0 b0 c0 d0
    const F8 s2 = __builtin_shufflevector(t0, t2, 4, 5, 6, 7, 12, 13, 14, 15);   // a2 b2 c2 d2
    const F8 s1 = __builtin_shufflevector(t1, t3, 0, 1, 2, 3, 8, 9, 10, 11);
    const F8 s3 = __builtin_shufflevector(t1, t3, 4, 5, 6, 7, 12, 13, 14, 15);
    out = (s0 + s2) + (s1 + s3);
  }
  // Four complex products x y, interleaved (re, im).
  [[gnu::always_inline]] static void multiply(F8& out, const F8& x, const F8& y) {
    const F8 sign = {-1.f, 1.f, -1.f, 1.f, -1.f, 1.f, -1.f, 1.f};
    const F8 x_re = __builtin_shufflevector(x, x, 0, 0, 2, 2, 4, 4, 6, 6);
    const F8 x_im = __builtin_shufflevector(x, x, 1, 1, 3, 3, 5, 5, 7, 7);
    const F8 y_swapped = __builtin_shufflevector(y, y, 1, 0, 3, 2, 5, 4, 7, 6);
    out = x_re * y + sign * (x_im * y_swapped);
  }
};

}  // namespace

template <class T>
RangeDopplerStep<T>::RangeDopplerStep(const RadarParams& radar, const FocusOptions& options, SceneRows<T>& scene)
    : range_sampling_rate_hz_(radar.range_sampling_rate_hz) {
  azimuth_ = core::azimuth_filter(radar, scene.lines, scene.samples, options.src == SrcMode::on,
                                  options.azimuth_window, options.azimuth_bandwidth_hz);
  for (std::size_t k = 0; k < azimuth_.rows.size(); ++k) {
    if (azimuth_.rows[k].weight == 0.0) continue;
    if (!passed_.empty() && passed_.back().end == k) ++passed_.back().end;
    else passed_.push_back({k, k + 1});
  }
  sinc_ = core::make_sinc_table(options.rcmc_taps);
  const std::size_t taps = static_cast<std::size_t>(sinc_.taps);
  sinc_rows_.resize(4 * taps * static_cast<std::size_t>(sinc_.fractions));
  for (std::size_t r = 0; r < static_cast<std::size_t>(sinc_.fractions); ++r)
    for (std::size_t q = 0; q < taps; ++q) {
      const T w = static_cast<T>(sinc_.weights[r * taps + q]), next = static_cast<T>(sinc_.weights[(r + 1) * taps + q]);
      T* row = sinc_rows_.data() + 4 * taps * r;
      row[2 * q] = row[2 * q + 1] = w;
      row[2 * taps + 2 * q] = row[2 * taps + 2 * q + 1] = next - w;
    }
  inverse_ = core::FftPlan<T>({static_cast<int>(scene.nfft)}, core::FftDirection::inverse, scene.work.data(),
                              scene.scratch.data(), options.fft_planning);
}

template <class T>
SARFUSE_SIMD_CLONES void RangeDopplerStep<T>::run(SceneRows<T>& scene) const {
  constexpr int kPhasorBlock = SceneRows<T>::kPhasorBlock;
  const std::size_t lines = scene.lines, samples = scene.samples, nfft = scene.nfft;
  const double df = range_sampling_rate_hz_ / static_cast<double>(nfft);
  const int taps = sinc_.taps;
  const long n = static_cast<long>(nfft);
  const double inv_lines = 1.0 / static_cast<double>(lines);
#pragma omp parallel for num_threads(scene.threads) schedule(static)
  for (std::size_t k = 0; k < lines; ++k) {
    if (interrupted()) continue;
    const core::DopplerRow& dr = azimuth_.rows[k];
    cplx* r = scene.row(k);
    if (dr.weight == 0.0) continue;  // not in passed_rows(): the IFFT reads zeros there
    if (dr.src_inverse_rate != 0.0) apply_src(r, dr.src_inverse_rate, df, nfft);
    cplx* rc = scene.thread_scratch();
    inverse_.execute(r, rc);

    // Azimuth filter phasor exp(j (phase0 + step j)): exact float64 anchors every kPhasorBlock
    // columns times a per-row table of step^m, so every factor is within ~2 ulp of exact and
    // the inner loop has no serial dependency.
    cplx* steps = rc + scene.stride;  // the thread's scratch row is followed by room for the table
    std::complex<double> s = 1.0;
    const std::complex<double> step = std::polar(1.0, dr.az_phase_step);
    for (int m = 0; m < kPhasorBlock; ++m, s *= step) steps[m] = cplx(s);
    // A range-dependent band weighs each column (AzimuthFilter); else the row's weight goes into the anchors.
    const bool per_column = !azimuth_.column_shift.empty();
    std::complex<double> anchor = std::polar(per_column ? 1.0 : dr.weight, dr.az_phase0);
    const std::complex<double> block_step = std::polar(1.0, dr.az_phase_step * kPhasorBlock);
    // Output j's taps: where they start in the IFFT row, its kernel row and the blend to the next.
    struct Taps {
      long i0;
      const T* row;
      T t;
      bool inside;
    };
    auto taps_of = [&](std::size_t j) {
      const double p = dr.rcmc_offset + dr.rcmc_slope * static_cast<double>(j);
      // p >= 0 (offset >= 0, slope >= 1): truncation is floor, without a libm call.
      const double fl = static_cast<double>(static_cast<long>(p));
      const long i0 = static_cast<long>(fl) - taps / 2 + 1;
      double blend = 0;
      const int sr = core::sinc_row_blend(p - fl, sinc_.fractions, blend);
      return Taps{i0, sinc_rows_.data() + 4 * static_cast<std::size_t>(sr) * taps, static_cast<T>(blend),
                  i0 >= 0 && i0 + taps <= n};
    };
    auto column_weight = [&](std::size_t j) {
      return static_cast<T>(core::window_lerp(azimuth_.window.data(), core::AzimuthFilter::kWindowIntervals,
                                              dr.band_x - azimuth_.column_shift[j]) *
                            inv_lines);
    };
    for (std::size_t j0 = 0; j0 < samples; j0 += kPhasorBlock) {
      const cplx a(anchor);
      const std::size_t j1 = std::min(samples, j0 + kPhasorBlock);
      std::size_t j = j0;
      // Where the layout allows (the default kernel in fp32, all four windows inside the row), four
      // outputs at once; the rest, and everything else, one by one below.
      if constexpr (std::is_same_v<T, float>) {
        while (taps == 8 && j + 4 <= j1) {
          const Taps q[4] = {taps_of(j), taps_of(j + 1), taps_of(j + 2), taps_of(j + 3)};
          if (!(q[0].inside && q[1].inside && q[2].inside && q[3].inside)) break;
          using V = FourOutputs;
          V::F8 part[4], acc, steps4, phasor, out;
          for (std::size_t u = 0; u < 4; ++u) SincSum<T>::template accumulate<8>(part[u], rc + q[u].i0, q[u].row, q[u].t, 8);
          V::sum4(acc, part[0], part[1], part[2], part[3]);
          const V::F8 anchor4 = {a.real(), a.imag(), a.real(), a.imag(), a.real(), a.imag(), a.real(), a.imag()};
          std::memcpy(&steps4, steps + (j - j0), sizeof steps4);
          V::multiply(phasor, anchor4, steps4);
          V::multiply(out, acc, phasor);
          if (per_column) {
            const T f[4] = {column_weight(j), column_weight(j + 1), column_weight(j + 2), column_weight(j + 3)};
            out *= V::F8{f[0], f[0], f[1], f[1], f[2], f[2], f[3], f[3]};
          }
          std::memcpy(static_cast<void*>(r + j), &out, sizeof out);
          j += 4;
        }
      }
      for (; j < j1; ++j) {
        const Taps q = taps_of(j);
        const cplx acc = !q.inside ? SincSum<T>::interpolate_wrapped(rc, q.i0, q.row, q.t, taps, n)
                         : taps == 8 ? SincSum<T>::template interpolate<8>(rc + q.i0, q.row, q.t, taps)
                                     : SincSum<T>::template interpolate<0>(rc + q.i0, q.row, q.t, taps);
        r[j] = multiply(acc, multiply(a, steps[j - j0]));
        if (per_column) r[j] *= column_weight(j);
      }
      anchor *= block_step;
    }
  }
}

// x exp(-j pi f_r^2 q) over the range spectrum; the phase is quadratic in the bin index, so it is
// advanced by a second-order float64 recurrence instead of a sincos per sample. Bins s and n-s
// share |f_r| and hence the factor.
template <class T>
SARFUSE_SIMD_CLONES void RangeDopplerStep<T>::apply_src(cplx* r, double q, double df, std::size_t nfft) const {
  const std::size_t half = nfft / 2;
  const double a = -M_PI * q * df * df;  // phase(s) = a s^2
  std::complex<double> z(1.0, 0.0);
  std::complex<double> inc = std::polar(1.0, a);  // z(s+1)/z(s) at s = 0
  const std::complex<double> inc2 = std::polar(1.0, 2.0 * a);
  for (std::size_t s = 0; s <= half; ++s) {
    const cplx f(z);
    r[s] *= f;
    if (s != 0 && s != nfft - s && nfft - s < nfft) r[nfft - s] *= f;
    z *= inc;
    inc *= inc2;
  }
}

template class RangeDopplerStep<float>;
template class RangeDopplerStep<double>;

}  // namespace sarfuse::cpu
