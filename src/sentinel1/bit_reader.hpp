// Reading a packet's user data bit by bit, most significant bit first, never past its end: a read past
// it throws Error naming the packet and what was being read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "sarfuse/error.hpp"

namespace sarfuse::sentinel1 {

class BitReader {
 public:
  BitReader(const std::uint8_t* data, std::size_t bytes) : data_(data), bits_(bytes * 8) {}

  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return bits_ - pos_; }
  // The next n (<= 25) bits without consuming them; bits past the end read as zeros.
  std::uint32_t peek(int n) const { return peek_at(pos_, n); }
  // The same at bit position pos (a caller's own cursor in a hot loop; seek() hands it back).
  std::uint32_t peek_at(std::size_t pos, int n) const {
    const std::size_t byte = pos >> 3, bytes = bits_ >> 3;
    std::uint32_t w = 0;
    if (byte + 4 <= bytes) {
      std::memcpy(&w, data_ + byte, 4);
      w = __builtin_bswap32(w);  // the data are big-endian
    } else {
      for (std::size_t i = 0; i < 4; ++i) w = (w << 8) | (byte + i < bytes ? data_[byte + i] : 0u);
    }
    return (w << (pos & 7)) >> (32 - n);
  }
  // The 64 bits from byte pos / 8 on, shifted so bit pos is the most significant: the caller keeps
  // 64 - pos % 8 of them. Needs pos / 8 + 8 <= the data's bytes.
  std::uint64_t window_at(std::size_t pos) const {
    std::uint64_t w;
    std::memcpy(&w, data_ + (pos >> 3), 8);
    return __builtin_bswap64(w) << (pos & 7);
  }
  void seek(std::size_t pos) { pos_ = pos < bits_ ? pos : bits_; }
  // Consumes n bits; `what` names the field in the message when fewer are left.
  void skip(int n, const std::string& where, const char* what) {
    if (static_cast<std::size_t>(n) > remaining())
      throw Error(where + ": " + what + " runs past the end of the packet's user data (" + std::to_string(bits_ / 8) +
                  " bytes)");
    pos_ += static_cast<std::size_t>(n);
  }
  std::uint32_t read(int n, const std::string& where, const char* what) {
    const std::uint32_t v = peek(n);
    skip(n, where, what);
    return v;
  }
  // To the next 16-bit word boundary (each channel starts on one).
  void align_word() {
    const std::size_t next = (pos_ + 15) & ~static_cast<std::size_t>(15);
    pos_ = next < bits_ ? next : bits_;
  }

 private:
  const std::uint8_t* data_;
  std::size_t bits_, pos_ = 0;
};

}  // namespace sarfuse::sentinel1
