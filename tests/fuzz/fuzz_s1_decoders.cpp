// libFuzzer harness: each Sentinel-1 user-data decoder on arbitrary bits. Input: one byte choosing the
// BAQ mode (bypass, BAQ 3/4/5, FDBAQ), two bytes of quad count (big-endian), then the user data.
#include <complex>
#include <vector>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sarfuse::sentinel1;
  if (size < 3) return 0;
  constexpr std::uint8_t modes[7] = {0, 3, 4, 5, 12, 13, 14};
  PacketHeader h;
  h.baq_mode = modes[data[0] % 7];
  h.number_of_quads = static_cast<std::uint16_t>((data[1] << 8) | data[2]);
  // The user data in a buffer of its own size, so any read past it is a sanitizer finding.
  const std::vector<std::uint8_t> user(data + 3, data + size);
  std::vector<std::complex<float>> line(h.samples());
  try {
    decode_user_data(h, user.data(), user.size(), line.data(), "fuzz");
  } catch (const sarfuse::Error&) {
  }
  return 0;
}
