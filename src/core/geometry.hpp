// Range-Doppler geometry shared by every backend: one definition of each formula.
// Functions are SARFUSE_HD so CUDA kernels can use the very same code.
#pragma once
#include <cmath>

#ifdef __CUDACC__
#define SARFUSE_HD __host__ __device__
#else
#define SARFUSE_HD
#endif

namespace sarfuse::core {

// Unaliased frequency of FFT bin k of an N-point transform sampled at rate fs: [-fs/2, fs/2).
SARFUSE_HD inline double fft_bin_frequency(long k, long n, double fs) {
  const long signed_k = (2 * k < n) ? k : k - n;
  return static_cast<double>(signed_k) * fs / static_cast<double>(n);
}

// Absolute Doppler of azimuth bin k: the alias of its frequency nearest to the centroid f_dc,
// i.e. in [f_dc - PRF/2, f_dc + PRF/2).
SARFUSE_HD inline double absolute_doppler(long k, long n, double prf, double f_dc) {
  const double f = static_cast<double>(k) * prf / static_cast<double>(n);
  const double offset = f - f_dc;
  const double wrapped = offset - prf * std::floor(offset / prf + 0.5);
  return f_dc + wrapped;
}

// D(f) - 1 with D(f) = sqrt(1 - (lambda f / 2V)^2), written so it keeps full precision for
// small squint: 1 - sqrt(1-x^2) = x^2 / (1 + sqrt(1-x^2)).
SARFUSE_HD inline double migration_d_minus_one(double f, double wavelength, double velocity) {
  const double x = wavelength * f / (2.0 * velocity);
  const double s = std::sqrt(1.0 - x * x);
  return -(x * x) / (1.0 + s);
}

SARFUSE_HD inline double migration_d(double f, double wavelength, double velocity) {
  const double x = wavelength * f / (2.0 * velocity);
  return std::sqrt(1.0 - x * x);
}

// Reciprocal of the SRC chirp rate, 1/K_src(f_eta) = c R0 f^2 / (2 V^2 f0^3 D^3) (Cumming & Wong
// eq. 6.22); the filter is exp(-j pi f_r^2 / K_src).
SARFUSE_HD inline double src_inverse_rate(double f_eta, double r0, double f0, double velocity, double c) {
  const double d = migration_d(f_eta, c / f0, velocity);
  return c * r0 * f_eta * f_eta / (2.0 * velocity * velocity * f0 * f0 * f0 * d * d * d);
}

// Azimuth FM rate of a target at range r0 seen at Doppler f (hyperbolic model).
SARFUSE_HD inline double azimuth_fm_rate(double f, double r0, double wavelength, double velocity) {
  const double d = migration_d(f, wavelength, velocity);
  return 2.0 * velocity * velocity * d * d * d / (wavelength * r0);
}

}  // namespace sarfuse::core
