// Format D (S1-IF-ASD-PL-0007 issue 13, section 4.4): FDBAQ. Blocks of 128 quads; each IE block led by
// its 3-bit bit-rate code (BRC 0..4, the Huffman tree of its samples in all four channels), each QE
// block by its 8-bit threshold index (THIDX). A sample is a sign bit and the Huffman code of its
// magnitude, decoded two at a time through huffman_pair_table (one at a time near the data's end).
#include <algorithm>
#include <vector>

#include "sarfuse/error.hpp"
#include "sentinel1/bit_reader.hpp"
#include "sentinel1/huffman_codes.hpp"
#include "sentinel1/reconstruction_tables.hpp"
#include "sentinel1/user_data.hpp"

namespace sarfuse::sentinel1 {

void decode_fdbaq(const PacketHeader& h, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                  const std::string& where) {
  const std::size_t nq = h.number_of_quads, blocks = (nq + kBlockQuads - 1) / kBlockQuads;
  thread_local std::vector<std::uint8_t> codes[4];  // sign << 4 | magnitude
  thread_local std::vector<std::uint8_t> brc, thidx;
  brc.assign(blocks, 0);
  thidx.assign(blocks, 0);
  BitReader r(data, size);
  for (int c = 0; c < 4; ++c) {
    codes[c].resize(nq + 1);  // + 1: the pair decoder's spare slot
    for (std::size_t b = 0; b < blocks; ++b) {
      if (c == kIE) {
        if (r.remaining() < 3) throw_past_end(where, c, b, size);
        brc[b] = static_cast<std::uint8_t>(r.read(3, where, "BRC"));
        if (brc[b] >= kBrcCount)
          throw Error(where + ": channel IE, block " + std::to_string(b) + ": BRC " + std::to_string(brc[b]) +
                      ": expected 0..4");
      } else if (c == kQE) {
        if (r.remaining() < 8) throw_past_end(where, c, b, size);
        thidx[b] = static_cast<std::uint8_t>(r.read(8, where, "THIDX"));
      }
      const HuffmanTable& table = huffman_table(brc[b]);
      const std::size_t k0 = b * kBlockQuads, k1 = std::min(nq, k0 + kBlockQuads);
      std::uint8_t* dst = codes[c].data();
      if (r.remaining() >= kPeekBits * (k1 - k0) + 64) {
        // Every code of the block fits, and 8 bytes can be loaded past any of them: a 64-bit window
        // reloaded when fewer than kPairBits bits are left in it, two samples per lookup where both
        // codes end within kPairBits, no check per sample. dst[k + 1] is written even when only one
        // sample is left (the next block's slot, or the spare one after the line).
        const HuffmanPairTable& pairs = huffman_pair_table(brc[b]);
        std::size_t pos = r.position();
        std::uint64_t window = r.window_at(pos);
        int left = 64 - static_cast<int>(pos & 7);
        for (std::size_t k = k0; k < k1;) {
          if (left < kPairBits) {
            window = r.window_at(pos);
            left = 64 - static_cast<int>(pos & 7);
          }
          const HuffmanPair e = pairs[window >> (64 - kPairBits)];
          dst[k] = e.first;
          dst[k + 1] = e.second;
          // A branch, not arithmetic: predicted, it keeps the window's dependency chain short.
          const bool two = e.both_bits != 0 && k + 1 < k1;
          const unsigned used = two ? e.both_bits : e.first_bits;
          window <<= used;
          left -= static_cast<int>(used);
          pos += used;
          k += two ? 2 : 1;
        }
        r.seek(pos);
      } else {
        for (std::size_t k = k0; k < k1; ++k) {
          const HuffmanEntry e = table[r.peek(kPeekBits)];
          if (entry_bits(e) > r.remaining()) throw_past_end(where, c, b, size);
          r.skip(static_cast<int>(entry_bits(e)), where, "a Huffman code");
          dst[k] = static_cast<std::uint8_t>(entry_code(e));
        }
      }
    }
    r.align_word();
  }
  // Each block's 32 values (the sign folded in: code 16 + m is -value[m]), one load per channel value.
  float* f = reinterpret_cast<float*>(out);
  for (std::size_t b = 0; b < blocks; ++b) {
    const BlockLevels levels = fdbaq_levels(brc[b], thidx[b]);
    float value[32];
    for (int m = 0; m < 16; ++m) {
      value[m] = levels.value[m];
      value[16 + m] = -levels.value[m];
    }
    const std::size_t k0 = b * kBlockQuads, k1 = std::min(nq, k0 + kBlockQuads);
    const std::uint8_t *ie = codes[kIE].data(), *io = codes[kIO].data(), *qe = codes[kQE].data(), *qo = codes[kQO].data();
    for (std::size_t k = k0; k < k1; ++k) {
      f[4 * k] = value[ie[k]];
      f[4 * k + 1] = value[qe[k]];
      f[4 * k + 2] = value[io[k]];
      f[4 * k + 3] = value[qo[k]];
    }
  }
}

}  // namespace sarfuse::sentinel1
