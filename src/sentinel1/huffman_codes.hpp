// FDBAQ's Huffman codes of the magnitude codes per bit-rate code (S1-IF-ASD-PL-0007 issue 13, section
// 4.4: the five code trees), and the lookup table that decodes a sample (sign bit, then its code) from
// the next kPeekBits bits.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

#include "sentinel1/reconstruction_tables.hpp"

namespace sarfuse::sentinel1 {

// The code of magnitude m under bit-rate code brc, as '0'/'1' characters, first bit first.
std::string_view huffman_code(int brc, int m);

constexpr int kMaxCodeBits = 9;               // BRC 4's longest code
constexpr int kPeekBits = 1 + kMaxCodeBits;   // sign + code

// Entry for the next kPeekBits bits (first bit most significant), packed in 16 bits so a lookup is one
// load: the sample's code (sign << 4 | magnitude) in the low byte, the bits it used (sign included) in
// the high byte. The trees are complete, so every pattern starts with a code.
using HuffmanEntry = std::uint16_t;
constexpr unsigned entry_code(HuffmanEntry e) { return e & 0xffu; }
constexpr unsigned entry_bits(HuffmanEntry e) { return e >> 8; }
using HuffmanTable = std::array<HuffmanEntry, 1u << kPeekBits>;
const HuffmanTable& huffman_table(int brc);

// Two samples per lookup: for the next kPairBits bits, the first sample's code and bits and, when the
// second sample's code also ends within them, its code and the bits of both.
constexpr int kPairBits = 12;
struct HuffmanPair {
  std::uint8_t first, second, first_bits, both_bits;  // both_bits 0: the second does not fit
};
using HuffmanPairTable = std::array<HuffmanPair, 1u << kPairBits>;
const HuffmanPairTable& huffman_pair_table(int brc);

}  // namespace sarfuse::sentinel1
