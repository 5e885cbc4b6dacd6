#include <string>

#include "sarfuse/error.hpp"
#include "sentinel1/user_data.hpp"

namespace sarfuse::sentinel1 {

void throw_past_end(const std::string& where, int channel, std::size_t block, std::size_t bytes) {
  throw Error(where + ": channel " + channel_name(channel) + ", block " + std::to_string(block) +
              ": the sample codes run past the end of the user data (" + std::to_string(bytes) + " bytes)");
}

void decode_user_data(const PacketHeader& h, const std::uint8_t* data, std::size_t size, std::complex<float>* out,
                      const std::string& where) {
  switch (static_cast<BaqMode>(h.baq_mode)) {
    case BaqMode::bypass: return decode_bypass(h, data, size, out, where);
    case BaqMode::baq3: return decode_baq(h, 3, data, size, out, where);
    case BaqMode::baq4: return decode_baq(h, 4, data, size, out, where);
    case BaqMode::baq5: return decode_baq(h, 5, data, size, out, where);
    case BaqMode::fdbaq0:
    case BaqMode::fdbaq1:
    case BaqMode::fdbaq2: return decode_fdbaq(h, data, size, out, where);
  }
  throw Error(where + ": baq_mode " + std::to_string(h.baq_mode) + ": no decoder (expected 0, 3, 4, 5, 12, 13 or 14)");
}

}  // namespace sarfuse::sentinel1
