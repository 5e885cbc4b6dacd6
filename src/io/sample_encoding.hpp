// Sample encodings of products: IEEE half pairs, scaled 16-bit integer pairs, mantissa rounding, and
// the byte shuffle of HDF5's shuffle filter. Each works on a span of values and may be called from
// several threads on disjoint spans.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>

namespace sarfuse::io {

// float32 -> IEEE binary16, round to nearest even (F16C where the processor has it).
void floats_to_half(const float* in, std::uint16_t* out, std::size_t n);
void half_to_floats(const std::uint16_t* in, float* out, std::size_t n);
// The same one value at a time without F16C (what the two above use where the processor lacks it).
std::uint16_t float_to_half_portable(float value);
float half_to_float_portable(std::uint16_t h);

// round(x / scale) clipped to [-32767, 32767]; returns the number of values clipped.
std::size_t floats_to_int16(const float* in, std::int16_t* out, std::size_t n, float inverse_scale);

// Rounds each float to `bits` mantissa bits (1..23), to nearest even; infinities and NaN unchanged.
void round_mantissa(float* values, std::size_t n, int bits);

// HDF5's shuffle: byte b of element k goes to b * n + k (n elements of `size` bytes).
void byte_shuffle(const unsigned char* in, unsigned char* out, std::size_t n, std::size_t size);

// The cint16 scale for a product whose first rows are these: 40 dB of headroom over their RMS
// amplitude, and never below what keeps their peak component unclipped.
double cint16_scale(const std::complex<float>* rows, std::size_t n);

}  // namespace sarfuse::io
