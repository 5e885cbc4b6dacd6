#include "io/sample_encoding.hpp"

#include <cpuid.h>
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

// F16C with the AVX state enabled by the operating system (cpuid leaf 1: OSXSAVE, AVX, F16C; xgetbv).
bool have_f16c() {
  static const bool yes = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    const unsigned osxsave = 1u << 27, avx = 1u << 28, f16c = 1u << 29;
    if ((c & (osxsave | avx | f16c)) != (osxsave | avx | f16c)) return false;
    unsigned lo = 0, hi = 0;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6u) == 6u;  // XMM and YMM state saved
  }();
  return yes;
}

}  // namespace

std::uint16_t float_to_half_portable(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 255) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow: infinity
  std::uint32_t half, rem, mid;
  if (e <= 0) {  // subnormal half (or zero): the significand shifted down, then rounded
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    half = mant >> shift;
    rem = mant & ((1u << shift) - 1u);
    mid = 1u << (shift - 1);
  } else {
    half = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
    rem = mant & 0x1fffu;
    mid = 0x1000u;
  }
  if (rem > mid || (rem == mid && (half & 1u))) ++half;  // to nearest even; a carry is the right exponent
  return static_cast<std::uint16_t>(sign | half);
}

float half_to_float_portable(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant x 2^-24, exact in float
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  const std::uint32_t bits = exp == 31 ? sign | 0x7f800000u | (mant << 13) : sign | ((exp + 112u) << 23) | (mant << 13);
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

void floats_to_half(const float* in, std::uint16_t* out, std::size_t n) {
  if (have_f16c()) return floats_to_half_f16c(in, out, n);
  for (std::size_t k = 0; k < n; ++k) out[k] = float_to_half_portable(in[k]);
}

void half_to_floats(const std::uint16_t* in, float* out, std::size_t n) {
  if (have_f16c()) return half_to_floats_f16c(in, out, n);
  for (std::size_t k = 0; k < n; ++k) out[k] = half_to_float_portable(in[k]);
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
