// Format C (S1-IF-ASD-PL-0007 issue 13, section 4.3): BAQ with 3, 4 or 5 bits per sample, sign and
// magnitude; blocks of 128 quads, each QE block led by its 8-bit threshold index (THIDX).
#include <vector>

#include "sentinel1/bit_reader.hpp"
#include "sentinel1/reconstruction_tables.hpp"
#include "sentinel1/user_data.hpp"

namespace sarfuse::sentinel1 {

void decode_baq(const PacketHeader& h, int bits, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                const std::string& where) {
  const std::size_t nq = h.number_of_quads, blocks = (nq + kBlockQuads - 1) / kBlockQuads;
  thread_local std::vector<std::uint8_t> codes[4];
  thread_local std::vector<std::uint8_t> thidx;
  thidx.assign(blocks, 0);
  BitReader r(data, size);
  for (int c = 0; c < 4; ++c) {
    codes[c].resize(nq);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t k0 = b * kBlockQuads, k1 = std::min(nq, k0 + kBlockQuads);
      if (r.remaining() < (c == kQE ? 8 : 0) + static_cast<std::size_t>(bits) * (k1 - k0))
        throw_past_end(where, c, b, size);
      if (c == kQE) thidx[b] = static_cast<std::uint8_t>(r.read(8, where, "THIDX"));
      for (std::size_t k = k0; k < k1; ++k) {
        codes[c][k] = static_cast<std::uint8_t>(r.peek(bits));
        r.skip(bits, where, "a BAQ sample");
      }
    }
    r.align_word();
  }
  const unsigned magnitude_mask = (1u << (bits - 1)) - 1, sign_bit = 1u << (bits - 1);
  float* f = reinterpret_cast<float*>(out);
  for (std::size_t b = 0; b < blocks; ++b) {
    const BlockLevels levels = baq_levels(bits, thidx[b]);
    const std::size_t k0 = b * kBlockQuads, k1 = std::min(nq, k0 + kBlockQuads);
    for (int c = 0; c < 4; ++c)
      for (std::size_t k = k0; k < k1; ++k) {
        const unsigned code = codes[c][k];
        const float v = levels.value[code & magnitude_mask];
        f[channel_float(c, k)] = (code & sign_bit) ? -v : v;
      }
  }
}

}  // namespace sarfuse::sentinel1
