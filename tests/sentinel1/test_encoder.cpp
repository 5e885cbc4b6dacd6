// Our packet encoder against our decoders: decode(encode(x)) gives back exactly the quantised x, for
// every compression and bit-rate code; and the quantisation error is what each mode's bits allow.
#include <gtest/gtest.h>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"
#include "test_util.hpp"

using namespace sarfuse;
using namespace sarfuse::sentinel1;

namespace {

PacketHeader echo_header(BaqMode mode) {
  PacketHeader h;
  h.secondary_header_flag = true;
  h.pid = 65;
  h.pcat = 12;
  h.sequence_flags = 3;
  h.sync_marker = kSyncMarker;
  h.baq_mode = static_cast<std::uint8_t>(mode);
  h.baq_block_length = 31;
  h.range_decimation = 4;
  h.polarisation = 7;
  return h;
}

// Complex samples whose RMS changes from block to block (low blocks exercise simple reconstruction).
std::vector<std::complex<float>> samples(std::size_t n, double rms_max, std::uint64_t seed) {
  const auto r = test::random_complex(n, seed);
  std::vector<std::complex<float>> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double block_rms = rms_max * (0.05 + 0.95 * static_cast<double>((i / 256) % 7) / 6.0);
    v[i] = {static_cast<float>(r[i].real() * block_rms), static_cast<float>(r[i].imag() * block_rms)};
  }
  return v;
}

struct Mode {
  BaqMode mode;
  int brc;
  double rms;
  double max_relative_rms_error;  // of the quantisation, over the line
};

class EncoderRoundTrip : public ::testing::TestWithParam<Mode> {};

TEST_P(EncoderRoundTrip, DecodeGivesBackTheQuantisedSamplesExactly) {
  const Mode& m = GetParam();
  const std::size_t n = 2 * 1000 + 2 * 77;  // a partial last block
  const auto x = samples(n, m.rms, 7 + static_cast<std::uint64_t>(m.mode) * 10 + static_cast<std::uint64_t>(m.brc + 1));
  EncodeOptions o;
  o.brc = m.brc;
  std::vector<std::complex<float>> quantised;
  const std::vector<std::uint8_t> packet = encode_packet(echo_header(m.mode), x.data(), x.size(), o, &quantised);
  ASSERT_EQ(packet.size() % 4, 0u);
  const PacketHeader h = parse_packet_header(packet.data(), packet.size(), "encoded");
  ASSERT_EQ(h.packet_bytes(), packet.size());
  ASSERT_EQ(h.samples(), n);
  std::vector<std::complex<float>> decoded(n, {std::nanf(""), std::nanf("")});
  decode_user_data(h, packet.data() + kHeaderBytes, packet.size() - kHeaderBytes, decoded.data(), "encoded");
  std::size_t differ = 0;
  double err2 = 0, pow2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    differ += decoded[i] != quantised[i];
    err2 += std::norm(std::complex<double>(quantised[i]) - std::complex<double>(x[i]));
    pow2 += std::norm(std::complex<double>(x[i]));
  }
  EXPECT_EQ(differ, 0u);
  std::printf("%s brc %d: quantisation error %.4f (relative RMS)\n", to_string(m.mode), m.brc, std::sqrt(err2 / pow2));
  EXPECT_LE(std::sqrt(err2 / pow2), m.max_relative_rms_error) << to_string(m.mode) << " brc " << m.brc;
}

// Bounds: 1.25 x the errors measured (bypass: rounding to integers, 0.29 / RMS per component; BAQ and
// FDBAQ: the quantisers at their bit rates, e.g. 3-bit BAQ 0.18, about Lloyd-Max's 0.19 for Gaussian
// data), so a wrong level or threshold choice fails.
INSTANTIATE_TEST_SUITE_P(
    Sentinel1, EncoderRoundTrip,
    ::testing::Values(Mode{BaqMode::bypass, 0, 100.0, 0.0065}, Mode{BaqMode::baq3, 0, 60.0, 0.22},
                      Mode{BaqMode::baq4, 0, 60.0, 0.12}, Mode{BaqMode::baq5, 0, 60.0, 0.065},
                      Mode{BaqMode::fdbaq0, 0, 60.0, 0.27}, Mode{BaqMode::fdbaq0, 1, 60.0, 0.22},
                      Mode{BaqMode::fdbaq1, 2, 60.0, 0.17}, Mode{BaqMode::fdbaq2, 3, 60.0, 0.125},
                      Mode{BaqMode::fdbaq0, 4, 60.0, 0.08}, Mode{BaqMode::fdbaq0, -1, 60.0, 0.2}),
    [](const auto& info) {
      return std::string(to_string(info.param.mode)) + "_brc" + (info.param.brc < 0 ? "cycle" : std::to_string(info.param.brc));
    });

}  // namespace
