// Our packet encoder against our decoders: decode(encode(x)) gives back exactly the quantised x, for
// every compression and bit-rate code; and the quantisation error is what each mode's bits allow.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"
#include "test_util.hpp"

using namespace sarfuse;
using namespace sarfuse::sentinel1;

namespace {

PacketHeader echo_header(BaqMode mode) {
  PacketHeader h = s3_echo_header();
  h.baq_mode = static_cast<std::uint8_t>(mode);
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

namespace {

// A line whose SWST is 9 units of 1 / f_ref later starts 16 samples later on the take's grid (S3 samples
// at 16/9 f_ref); the other lines are zero there.
TEST(Sentinel1Grid, LinesWithAnotherSwstSitOnTheCommonRangeGrid) {
  const std::string dir = test::temp_dir("s1grid");
  const std::size_t n = 512;
  std::vector<std::uint8_t> file;
  std::vector<std::vector<std::complex<float>>> q(3);
  for (int l = 0; l < 3; ++l) {
    PacketHeader h = echo_header(BaqMode::fdbaq0);
    h.swst = 5271 + (l == 1 ? 9 : 0);
    h.pri = 19499;
    h.rank = 10;
    h.space_packet_count = static_cast<std::uint32_t>(l);
    const auto x = samples(n, 50.0, 100 + static_cast<std::uint64_t>(l));
    const auto p = encode_packet(h, x.data(), x.size(), {}, &q[l]);
    file.insert(file.end(), p.begin(), p.end());
  }
  const std::string path = dir + "/grid.dat";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  const DecodedLines d = decode_lines(path, {});
  ASSERT_EQ(d.lines, 3u);
  EXPECT_EQ(d.range_offset, (std::vector<std::size_t>{0, 16, 0}));
  EXPECT_EQ(d.samples, n + 16);
  EXPECT_DOUBLE_EQ(d.first_sample_time_s, first_sample_time_s(d.headers[0]));
  for (std::size_t k = 0; k < d.samples; ++k) {
    EXPECT_EQ(d.data(0, k), k < n ? q[0][k] : std::complex<float>(0.f, 0.f)) << k;
    EXPECT_EQ(d.data(1, k), k < 16 ? std::complex<float>(0.f, 0.f) : q[1][k - 16]) << k;
  }
  std::filesystem::remove_all(dir);
}

// An ESA orbit file's state vectors, times converted to GPS seconds (TAI - 19 s) like the packets'.
TEST(Sentinel1Orbit, EsaOrbitFileStateVectors) {
  const std::string dir = test::temp_dir("s1orbit");
  const std::string eof = dir + "/S1B_OPER_AUX_POEORB_OPOD_20200705T110757_V20200614T225942_20200616T005942.EOF";
  std::ofstream(eof) << R"(<?xml version="1.0" ?>
<Earth_Explorer_File>
  <Earth_Explorer_Header><Fixed_Header><File_Type>AUX_POEORB</File_Type></Fixed_Header></Earth_Explorer_Header>
  <Data_Block type="xml">
    <List_of_OSVs count="2">
      <OSV><TAI>TAI=2020-06-15T16:24:46.000000</TAI><UTC>UTC=2020-06-15T16:24:09.000000</UTC>
        <X unit="m">7078137.0</X><Y unit="m">0.0</Y><Z unit="m">-7500.0</Z>
        <VX unit="m/s">0.0</VX><VY unit="m/s">0.0</VY><VZ unit="m/s">7500.0</VZ></OSV>
      <OSV><TAI>TAI=2020-06-15T16:24:56.000000</TAI><UTC>UTC=2020-06-15T16:24:19.000000</UTC>
        <X unit="m">7078137.0</X><Y unit="m">0.0</Y><Z unit="m">67500.0</Z>
        <VX unit="m/s">0.0</VX><VY unit="m/s">0.0</VY><VZ unit="m/s">7500.0</VZ></OSV>
    </List_of_OSVs>
  </Data_Block>
</Earth_Explorer_File>
)";
  const std::vector<PvtRecord> orbit = read_orbit_file(eof);
  ASSERT_EQ(orbit.size(), 2u);
  // 2020-06-15T16:24:46 TAI: 14771 days after 1980-01-06, 59086 s into the day, less 19 s.
  EXPECT_DOUBLE_EQ(orbit[0].time_s, 14771.0 * 86400 + 16 * 3600 + 24 * 60 + 46 - 19);
  EXPECT_EQ(orbit[1].z, 67500.0);
  EXPECT_EQ(orbit[1].vz, 7500.0f);
  std::ofstream(dir + "/bad.EOF") << "<Earth_Explorer_File><Data_Block><List_of_OSVs><OSV><TAI>TAI=2020-06-15</TAI></OSV>";
  EXPECT_THROW(read_orbit_file(dir + "/bad.EOF"), Error);
  std::ofstream(dir + "/x.EOF") << "<Earth_Explorer_File/>";
  try {
    read_orbit_file(dir + "/x.EOF");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("List_of_OSVs: missing"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_orbit_file(dir + "/none.EOF"), FileError);
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// A take whose third echo packet is missing (the PRI count jumps by 2): four lines, the third zero and
// listed; the others as encoded.
TEST(Sentinel1Grid, MissingEchoPacketBecomesALineOfZeros) {
  const std::string dir = test::temp_dir("s1gap");
  std::vector<std::uint8_t> file;
  std::vector<std::vector<std::complex<float>>> q(4);
  for (int l = 0; l < 4; ++l) {
    PacketHeader h = echo_header(BaqMode::fdbaq0);
    h.pri = 19499;
    h.pri_count = 100 + static_cast<std::uint32_t>(l);
    h.space_packet_count = static_cast<std::uint32_t>(l);
    const auto x = samples(300, 30.0, 200 + static_cast<std::uint64_t>(l));
    const auto p = encode_packet(h, x.data(), x.size(), {}, &q[l]);
    if (l != 2) file.insert(file.end(), p.begin(), p.end());
  }
  const std::string path = dir + "/gap.dat";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  const DecodedLines d = decode_lines(path, {});
  ASSERT_EQ(d.lines, 4u);
  EXPECT_EQ(d.missing_lines, std::vector<std::size_t>{2});
  EXPECT_EQ(d.packet_index, (std::vector<std::size_t>{0, 1, kMissingLine, 2}));
  EXPECT_EQ(d.missing_packets, 1u);  // the space packet counter jumps too
  for (std::size_t k = 0; k < d.samples; ++k) {
    EXPECT_EQ(d.data(2, k), std::complex<float>(0.f, 0.f));
    EXPECT_EQ(d.data(3, k), q[3][k]);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
