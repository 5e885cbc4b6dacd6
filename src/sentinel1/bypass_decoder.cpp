// Formats A and B (S1-IF-ASD-PL-0007 issue 13, section 4.2): every sample 10 bits, sign and magnitude.
#include "sentinel1/bit_reader.hpp"
#include "sentinel1/user_data.hpp"

namespace sarfuse::sentinel1 {

void decode_bypass(const PacketHeader& h, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                   const std::string& where) {
  const std::size_t nq = h.number_of_quads;
  float* f = reinterpret_cast<float*>(out);
  BitReader r(data, size);
  for (int c = 0; c < 4; ++c) {
    if (r.remaining() < 10 * nq) throw_past_end(where, c, 0, size);
    for (std::size_t k = 0; k < nq; ++k) {
      const std::uint32_t code = r.peek(10);
      r.skip(10, where, "a bypass sample");
      const float magnitude = static_cast<float>(code & 0x1ff);
      f[channel_float(c, k)] = (code & 0x200) ? -magnitude : magnitude;
    }
    r.align_word();
  }
}

}  // namespace sarfuse::sentinel1
