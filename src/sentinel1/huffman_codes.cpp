#include "sentinel1/huffman_codes.hpp"

#include <string>

namespace sarfuse::sentinel1 {

namespace {

// S1-IF-ASD-PL-0007 issue 13, section 4.4, the Huffman trees of BRC 0..4 written as each magnitude
// code's bit string.
constexpr std::string_view kCodes[kBrcCount][16] = {
    {"0", "10", "110", "111"},
    {"0", "10", "110", "1110", "1111"},
    {"0", "10", "110", "1110", "11110", "111110", "111111"},
    {"00", "01", "10", "110", "1110", "11110", "111110", "1111110", "11111110", "11111111"},
    {"00", "010", "011", "100", "101", "1100", "1101", "1110", "11110", "111110", "11111100", "11111101",
     "111111100", "111111101", "111111110", "111111111"},
};

HuffmanTable build(int brc) {
  HuffmanTable t{};
  for (int sign = 0; sign < 2; ++sign)
    for (int m = 0; m <= brc_max_code(brc); ++m) {
      const std::string_view c = kCodes[brc][m];
      unsigned prefix = static_cast<unsigned>(sign);
      for (char b : c) prefix = (prefix << 1) | (b == '1' ? 1u : 0u);
      const int used = 1 + static_cast<int>(c.size());
      const int free_bits = kPeekBits - used;
      for (unsigned rest = 0; rest < (1u << free_bits); ++rest) {
        t[(prefix << free_bits) | rest] = static_cast<HuffmanEntry>((used << 8) | (sign << 4) | m);
      }
    }
  return t;
}

HuffmanPairTable build_pairs(const HuffmanTable& one) {
  HuffmanPairTable t{};
  for (unsigned p = 0; p < (1u << kPairBits); ++p) {
    const HuffmanEntry a = one[p >> (kPairBits - kPeekBits)];
    const unsigned bits_a = entry_bits(a);
    const unsigned rest = (p << bits_a) & ((1u << kPairBits) - 1);  // the bits after the first code
    const HuffmanEntry b = one[rest >> (kPairBits - kPeekBits)];
    const bool fits = bits_a + entry_bits(b) <= kPairBits;
    t[p] = {static_cast<std::uint8_t>(entry_code(a)), static_cast<std::uint8_t>(entry_code(b)),
            static_cast<std::uint8_t>(bits_a), static_cast<std::uint8_t>(fits ? bits_a + entry_bits(b) : 0)};
  }
  return t;
}

}  // namespace

const HuffmanPairTable& huffman_pair_table(int brc) {
  static const HuffmanPairTable tables[kBrcCount] = {build_pairs(huffman_table(0)), build_pairs(huffman_table(1)),
                                                     build_pairs(huffman_table(2)), build_pairs(huffman_table(3)),
                                                     build_pairs(huffman_table(4))};
  return tables[brc];
}

std::string_view huffman_code(int brc, int m) { return kCodes[brc][m]; }

const HuffmanTable& huffman_table(int brc) {
  static const HuffmanTable tables[kBrcCount] = {build(0), build(1), build(2), build(3), build(4)};
  return tables[brc];
}

}  // namespace sarfuse::sentinel1
