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
std::size_t first_non_finite(const F* iq, std::size_t samples) {
  using Bits = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  constexpr Bits exponent = static_cast<Bits>(sizeof(F) == 4 ? 0x7f800000ull : 0x7ff0000000000000ull);
  Bits bad = 0;
  for (std::size_t k = 0; k < 2 * samples; ++k) {
    Bits u;
    std::memcpy(&u, iq + k, sizeof u);
    bad |= static_cast<Bits>((u & exponent) == exponent);
  }
  if (!bad) return samples;
  for (std::size_t k = 0; k < 2 * samples; ++k)
    if (!std::isfinite(iq[k])) return k / 2;
  return samples;
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
