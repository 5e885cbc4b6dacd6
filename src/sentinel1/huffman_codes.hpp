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

// Entry for the next kPeekBits bits (first bit most significant): bits used (sign included; 0 where
// no code starts with them), sign, magnitude code.
struct HuffmanEntry {
  std::uint8_t bits = 0, sign = 0, magnitude = 0;
};
using HuffmanTable = std::array<HuffmanEntry, 1u << kPeekBits>;
const HuffmanTable& huffman_table(int brc);

}  // namespace sarfuse::sentinel1
