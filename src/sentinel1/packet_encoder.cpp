// Our own encoder of Sentinel-1 packets (tests and benchmarks): samples quantised to the codes of the
// header's BAQ mode and packed as section 4 of S1-IF-ASD-PL-0007 issue 13 lays them out, the inverse of
// the decoders in this folder.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"
#include "sentinel1/huffman_codes.hpp"
#include "sentinel1/reconstruction_tables.hpp"
#include "sentinel1/user_data.hpp"

namespace sarfuse::sentinel1 {

namespace {

class BitWriter {
 public:
  void put(std::uint32_t value, int bits) {
    for (int i = bits - 1; i >= 0; --i) put_bit((value >> i) & 1u);
  }
  void put_code(std::string_view code) {
    for (char c : code) put_bit(c == '1');
  }
  void align(std::size_t bits) {
    while (count_ % bits != 0) put_bit(0);
  }
  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  void put_bit(unsigned b) {
    if (count_ % 8 == 0) bytes_.push_back(0);
    if (b) bytes_.back() |= static_cast<std::uint8_t>(0x80u >> (count_ % 8));
    ++count_;
  }
  std::vector<std::uint8_t> bytes_;
  std::size_t count_ = 0;
};

// The THIDX for a block of RMS `rms`: simple reconstruction (THIDX at the threshold) while the RMS is
// below the first sigma factor above it, else the sigma factor nearest the RMS.
int choose_thidx(double rms, int threshold) {
  if (rms < sigma_factor(threshold + 1)) return threshold;
  int best = threshold + 1;
  for (int t = threshold + 1; t < 256; ++t)
    if (std::fabs(sigma_factor(t) - rms) < std::fabs(sigma_factor(best) - rms)) best = t;
  return best;
}

int nearest_level(float magnitude, const BlockLevels& levels, int codes) {
  int best = 0;
  for (int m = 1; m < codes; ++m)
    if (std::fabs(levels.value[m] - magnitude) < std::fabs(levels.value[best] - magnitude)) best = m;
  return best;
}

}  // namespace

std::vector<std::uint8_t> encode_packet(const PacketHeader& header, const std::complex<float>* samples,
                                        std::size_t count, const EncodeOptions& options,
                                        std::vector<std::complex<float>>* quantised) {
  if (count % 2 != 0 || count / 2 > 0xffff)
    throw Error("encode_packet: " + std::to_string(count) + " samples (expected an even count up to 131070)");
  if (options.brc < -1 || options.brc >= kBrcCount)
    throw Error("encode_packet: brc " + std::to_string(options.brc) + " (expected 0..4, or -1 to cycle)");
  PacketHeader h = header;
  h.number_of_quads = static_cast<std::uint16_t>(count / 2);
  const std::size_t nq = h.number_of_quads, blocks = (nq + kBlockQuads - 1) / kBlockQuads;
  const float* in = reinterpret_cast<const float*>(samples);
  std::vector<float> q(4 * nq);  // the reconstruction, interleaved like the samples
  const BaqMode mode = static_cast<BaqMode>(h.baq_mode);
  BitWriter w;
  if (mode == BaqMode::bypass) {
    for (int c = 0; c < 4; ++c) {
      for (std::size_t k = 0; k < nq; ++k) {
        const float x = in[channel_float(c, k)];
        const int v = static_cast<int>(std::clamp(std::lround(x), -511L, 511L));
        w.put((v < 0 ? 0x200u : 0u) | static_cast<std::uint32_t>(std::abs(v)), 10);
        q[channel_float(c, k)] = static_cast<float>(v);
      }
      w.align(16);
    }
  } else {
    const bool fdbaq = is_fdbaq(mode);
    const int bits = fdbaq ? 0 : static_cast<int>(h.baq_mode);
    if (!fdbaq && mode != BaqMode::baq3 && mode != BaqMode::baq4 && mode != BaqMode::baq5)
      throw Error("encode_packet: baq_mode " + std::to_string(h.baq_mode) + " has no encoder");
    std::vector<int> brc(blocks), thidx(blocks);
    std::vector<BlockLevels> levels(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t k0 = b * kBlockQuads, k1 = std::min(nq, k0 + kBlockQuads);
      double power = 0;
      for (std::size_t f = 4 * k0; f < 4 * k1; ++f) power += static_cast<double>(in[f]) * in[f];
      const double rms = std::sqrt(power / static_cast<double>(4 * (k1 - k0)));
      brc[b] = options.brc >= 0 ? options.brc : static_cast<int>(b % kBrcCount);
      thidx[b] = choose_thidx(rms, fdbaq ? fdbaq_simple_threshold(brc[b]) : baq_simple_threshold(bits));
      levels[b] = fdbaq ? fdbaq_levels(brc[b], thidx[b]) : baq_levels(bits, thidx[b]);
    }
    for (int c = 0; c < 4; ++c) {
      for (std::size_t b = 0; b < blocks; ++b) {
        if (fdbaq && c == kIE) w.put(static_cast<std::uint32_t>(brc[b]), 3);
        if (c == kQE) w.put(static_cast<std::uint32_t>(thidx[b]), 8);
        const int codes = fdbaq ? brc_max_code(brc[b]) + 1 : 1 << (bits - 1);
        const std::size_t k0 = b * kBlockQuads, k1 = std::min(nq, k0 + kBlockQuads);
        for (std::size_t k = k0; k < k1; ++k) {
          const float x = in[channel_float(c, k)];
          const unsigned sign = std::signbit(x) ? 1u : 0u;
          const int m = nearest_level(std::fabs(x), levels[b], codes);
          if (fdbaq) {
            w.put(sign, 1);
            w.put_code(huffman_code(brc[b], m));
          } else {
            w.put((sign << (bits - 1)) | static_cast<unsigned>(m), bits);
          }
          q[channel_float(c, k)] = sign ? -levels[b].value[m] : levels[b].value[m];
        }
      }
      w.align(16);
    }
  }
  w.align(32);  // packets are whole multiples of four octets
  std::vector<std::uint8_t>& user = w.bytes();
  h.packet_data_length = static_cast<std::uint16_t>(kHeaderBytes + user.size() - 7);
  if (kHeaderBytes + user.size() - 7 > 0xffff) throw Error("encode_packet: the packet exceeds 65542 bytes");
  std::vector<std::uint8_t> packet = format_packet_header(h);
  packet.insert(packet.end(), user.begin(), user.end());
  if (quantised != nullptr) {
    quantised->resize(2 * nq);
    std::copy(q.begin(), q.end(), reinterpret_cast<float*>(quantised->data()));
  }
  return packet;
}

}  // namespace sarfuse::sentinel1
