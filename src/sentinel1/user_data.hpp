// The user-data decoders, one per compression (S1-IF-ASD-PL-0007 issue 13, section 4): each reads the
// four channels IE, IO, QE, QO (each starting on a 16-bit word) and writes h.samples() complex samples,
// sample 2k = IE[k] + j QE[k], 2k + 1 = IO[k] + j QO[k]. decode_user_data (sarfuse/sentinel1.hpp)
// dispatches on the BAQ mode.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

enum Channel { kIE = 0, kIO = 1, kQE = 2, kQO = 3 };
inline const char* channel_name(int c) {
  constexpr const char* names[4] = {"IE", "IO", "QE", "QO"};
  return names[c];
}
// Where channel c's value of quad k goes among the line's interleaved floats (re, im of 2k, of 2k + 1).
inline std::size_t channel_float(int c, std::size_t k) {
  constexpr std::size_t offset[4] = {0, 2, 1, 3};
  return 4 * k + offset[c];
}

// Format A/B: 10-bit sign-and-magnitude samples.
void decode_bypass(const PacketHeader& h, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                   const std::string& where);
// Format C: BAQ with `bits` (3, 4, 5) sign-and-magnitude codes, a THIDX per 128-quad block in QE.
void decode_baq(const PacketHeader& h, int bits, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                const std::string& where);
// Format D: FDBAQ, a bit-rate code per block in IE, a THIDX per block in QE, Huffman-coded samples.
void decode_fdbaq(const PacketHeader& h, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                  const std::string& where);

// The error for a channel's block whose codes run past the user data (cold path).
[[noreturn]] void throw_past_end(const std::string& where, int channel, std::size_t block, std::size_t bytes);

}  // namespace sarfuse::sentinel1
