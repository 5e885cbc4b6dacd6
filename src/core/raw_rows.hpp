// Raw samples of any SampleType as complex<T>, one row at a time: the one conversion the CPU plan, the
// Doppler estimator and the raw corrections share.
#pragma once
#include <complex>
#include <cstdint>

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

}  // namespace sarfuse::core
