// Raw samples of any SampleType as complex<T>, one row at a time: the one conversion the CPU plan, the
// Doppler estimator and the raw corrections share.
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sarfuse/image.hpp"

namespace sarfuse::core {

template <class T>
void convert_row(const RawView& raw, std::size_t i, std::complex<T>* dst) {
  const std::size_t n = raw.samples;
  switch (raw.type) {
    case SampleType::complex64: {
      const auto* src = static_cast<const std::complex<float>*>(raw.data) + i * n;
      for (std::size_t j = 0; j < n; ++j) dst[j] = std::complex<T>(src[j].real(), src[j].imag());
      break;
    }
    case SampleType::complex128: {
      const auto* src = static_cast<const std::complex<double>*>(raw.data) + i * n;
      for (std::size_t j = 0; j < n; ++j) dst[j] = std::complex<T>(static_cast<T>(src[j].real()), static_cast<T>(src[j].imag()));
      break;
    }
    case SampleType::int8_iq: {
      const auto* src = static_cast<const std::int8_t*>(raw.data) + 2 * i * n;
      for (std::size_t j = 0; j < n; ++j) dst[j] = std::complex<T>(src[2 * j], src[2 * j + 1]);
      break;
    }
    case SampleType::int16_iq: {
      const auto* src = static_cast<const std::int16_t*>(raw.data) + 2 * i * n;
      for (std::size_t j = 0; j < n; ++j) dst[j] = std::complex<T>(src[2 * j], src[2 * j + 1]);
      break;
    }
  }
}

namespace detail {

template <class F>
using FloatBits = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;

// 1 when v is NaN or infinite (its exponent bits all ones), else 0: a branch-free test.
template <class F>
FloatBits<F> not_finite_bit(F v) {
  constexpr FloatBits<F> exponent = static_cast<FloatBits<F>>(sizeof(F) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
  FloatBits<F> u;
  std::memcpy(&u, &v, sizeof u);
  return static_cast<FloatBits<F>>((u & exponent) == exponent);
}

template <class F>
std::size_t first_non_finite(const F* iq, std::size_t samples) {
  FloatBits<F> bad = 0;
  for (std::size_t k = 0; k < 2 * samples; ++k) bad |= not_finite_bit(iq[k]);
  if (!bad) return samples;
  for (std::size_t k = 0; k < 2 * samples; ++k)
    if (!std::isfinite(iq[k])) return k / 2;
  return samples;
}

// The n values at src into out as T; whether all of them are finite.
template <class F, class T>
bool copy_finite(const F* src, T* out, std::size_t n) {
  FloatBits<F> bad = 0;
  for (std::size_t k = 0; k < n; ++k) {
    bad |= not_finite_bit(src[k]);
    out[k] = static_cast<T>(src[k]);
  }
  return !bad;
}

}  // namespace detail

// The first sample of raw line i with a NaN or infinite part, or raw.samples when there is none
// (integer samples always are finite). Branch-free over the line (exponent bits all ones), so it runs
// at memory speed; the sample is searched for only in a line that has one.
inline std::size_t first_non_finite(const RawView& raw, std::size_t i) {
  const std::size_t n = raw.samples;
  if (raw.type == SampleType::complex64) return detail::first_non_finite(static_cast<const float*>(raw.data) + 2 * i * n, n);
  if (raw.type == SampleType::complex128) return detail::first_non_finite(static_cast<const double*>(raw.data) + 2 * i * n, n);
  return n;
}

// convert_row, also telling whether every sample of the line is finite: the exponent bits of each part
// are tested as they are copied, so the check costs no second pass over the line.
template <class T>
bool convert_row_finite(const RawView& raw, std::size_t i, std::complex<T>* dst) {
  const std::size_t n = 2 * raw.samples;
  T* out = reinterpret_cast<T*>(dst);  // std::complex<T>: an array of two T
  if (raw.type == SampleType::complex64) return detail::copy_finite(static_cast<const float*>(raw.data) + i * n, out, n);
  if (raw.type == SampleType::complex128) return detail::copy_finite(static_cast<const double*>(raw.data) + i * n, out, n);
  convert_row(raw, i, dst);
  return true;
}

// Whether sample (i, j) has a NaN part (else, when not finite, an infinite one).
inline bool sample_is_nan(const RawView& raw, std::size_t i, std::size_t j) {
  const std::size_t k = 2 * (i * raw.samples + j);
  if (raw.type == SampleType::complex64) {
    const float* p = static_cast<const float*>(raw.data) + k;
    return std::isnan(p[0]) || std::isnan(p[1]);
  }
  if (raw.type == SampleType::complex128) {
    const double* p = static_cast<const double*>(raw.data) + k;
    return std::isnan(p[0]) || std::isnan(p[1]);
  }
  return false;
}

}  // namespace sarfuse::core
