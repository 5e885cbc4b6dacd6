#include "io/sample_encoding.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sarfuse::io {

namespace {

__attribute__((target("f16c,avx"))) void floats_to_half_f16c(const float* in, std::uint16_t* out, std::size_t n) {
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + k), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), h);
  }
  for (; k < n; ++k) out[k] = _cvtss_sh(in[k], _MM_FROUND_TO_NEAREST_INT);
}

__attribute__((target("f16c,avx"))) void half_to_floats_f16c(const std::uint16_t* in, float* out, std::size_t n) {
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8)
    _mm256_storeu_ps(out + k, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k))));
  for (; k < n; ++k) out[k] = _cvtsh_ss(in[k]);
}

bool have_f16c() {
  static const bool yes = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return yes;
}

}  // namespace

void floats_to_half(const float* in, std::uint16_t* out, std::size_t n) {
  if (have_f16c()) return floats_to_half_f16c(in, out, n);
  for (std::size_t k = 0; k < n; ++k) {
    const _Float16 h = static_cast<_Float16>(in[k]);
    std::memcpy(out + k, &h, 2);
  }
}

void half_to_floats(const std::uint16_t* in, float* out, std::size_t n) {
  if (have_f16c()) return half_to_floats_f16c(in, out, n);
  for (std::size_t k = 0; k < n; ++k) {
    _Float16 h;
    std::memcpy(&h, in + k, 2);
    out[k] = static_cast<float>(h);
  }
}

std::size_t floats_to_int16(const float* in, std::int16_t* out, std::size_t n, float inverse_scale) {
  std::size_t clipped = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const float v = std::nearbyint(in[k] * inverse_scale);
    const bool clip = !(std::fabs(v) <= 32767.0f);
    clipped += clip;
    out[k] = static_cast<std::int16_t>(clip ? (v > 0 ? 32767.0f : -32767.0f) : v);
  }
  return clipped;
}

void round_mantissa(float* values, std::size_t n, int bits) {
  const int drop = 23 - bits;
  if (drop <= 0) return;
  const std::uint32_t half = (1u << (drop - 1)) - 1u, mask = ~((1u << drop) - 1u);
  for (std::size_t k = 0; k < n; ++k) {
    std::uint32_t u;
    std::memcpy(&u, values + k, 4);
    if ((u & 0x7f800000u) == 0x7f800000u) continue;  // inf, NaN
    u = (u + half + ((u >> drop) & 1u)) & mask;       // a carry into the exponent is the right rounding
    std::memcpy(values + k, &u, 4);
  }
}

void byte_shuffle(const unsigned char* in, unsigned char* out, std::size_t n, std::size_t size) {
  for (std::size_t b = 0; b < size; ++b) {
    unsigned char* o = out + b * n;
    for (std::size_t k = 0; k < n; ++k) o[k] = in[k * size + b];
  }
}

double cint16_scale(const std::complex<float>* rows, std::size_t n) {
  double power = 0, peak = 0;
  for (std::size_t k = 0; k < n; ++k) {
    power += std::norm(std::complex<double>(rows[k]));
    peak = std::max({peak, std::fabs(double(rows[k].real())), std::fabs(double(rows[k].imag()))});
  }
  const double rms = n ? std::sqrt(power / static_cast<double>(n)) : 0.0;
  const double full_scale = std::max(rms * 100.0, peak);  // 40 dB over the RMS amplitude
  return full_scale > 0 ? full_scale / 32767.0 : 1.0;
}

}  // namespace sarfuse::io
