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

// convert_row, also telling whether every sample of the line is finite: the exponent bits of each part
// are tested as they are copied, so the check costs no second pass over the line.
template <class T>
bool convert_row_finite(const RawView& raw, std::size_t i, std::complex<T>* dst) {
  const std::size_t n = 2 * raw.samples;
  T* out = reinterpret_cast<T*>(dst);  // std::complex<T>: an array of two T
  if (raw.type == SampleType::complex64) {
    const float* src = static_cast<const float*>(raw.data) + i * n;
    std::uint32_t bad = 0;
    for (std::size_t k = 0; k < n; ++k) {
      std::uint32_t u;
      std::memcpy(&u, src + k, sizeof u);
      bad |= static_cast<std::uint32_t>((u & 0x7f800000u) == 0x7f800000u);
      out[k] = static_cast<T>(src[k]);
    }
    return !bad;
  }
  if (raw.type == SampleType::complex128) {
    const double* src = static_cast<const double*>(raw.data) + i * n;
    std::uint64_t bad = 0;
    for (std::size_t k = 0; k < n; ++k) {
      std::uint64_t u;
      std::memcpy(&u, src + k, sizeof u);
      bad |= static_cast<std::uint64_t>((u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull);
      out[k] = static_cast<T>(src[k]);
    }
    return !bad;
  }
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
