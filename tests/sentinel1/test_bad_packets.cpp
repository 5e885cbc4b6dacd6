// Malformed Level-0 input: each case one Error whose message names the file, the packet and the field,
// from packets our encoder made valid and then broke.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace sarfuse;
using namespace sarfuse::sentinel1;

namespace {

std::vector<std::uint8_t> valid_packet(BaqMode mode, std::uint32_t count) {
  PacketHeader h;
  h.secondary_header_flag = true;
  h.sync_marker = kSyncMarker;
  h.baq_mode = static_cast<std::uint8_t>(mode);
  h.space_packet_count = count;
  const auto r = test::random_complex(600, count + 1);
  std::vector<std::complex<float>> x(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) x[i] = {static_cast<float>(30 * r[i].real()), static_cast<float>(30 * r[i].imag())};
  return encode_packet(h, x.data(), x.size(), {}, nullptr);
}

class BadPackets : public ::testing::Test {
 protected:
  std::string dir = test::temp_dir("s1bad");
  void TearDown() override { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    const std::string p = dir + "/" + name;
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  // Two good packets, then `bad` as packet 2: decoding the file fails naming it and `field`.
  void expect_error(const std::vector<std::uint8_t>& bad, const std::string& field) {
    std::vector<std::uint8_t> file = valid_packet(BaqMode::fdbaq0, 0);
    const auto second = valid_packet(BaqMode::fdbaq0, 1);
    file.insert(file.end(), second.begin(), second.end());
    file.insert(file.end(), bad.begin(), bad.end());
    const std::string path = write("bad.dat", file);
    DecodeOptions o;
    o.signal = "all";
    try {
      decode_lines(path, o);
      ADD_FAILURE() << "no error for " << field;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path), std::string::npos) << m;
      EXPECT_NE(m.find("packet 2"), std::string::npos) << m;
      EXPECT_NE(m.find(field), std::string::npos) << m;
    }
  }
};

TEST_F(BadPackets, TruncatedHeader) {
  auto p = valid_packet(BaqMode::fdbaq0, 2);
  p.resize(40);
  expect_error(p, "truncated: 40 bytes left");
}

TEST_F(BadPackets, TruncatedUserData) {
  auto p = valid_packet(BaqMode::fdbaq0, 2);
  p.resize(p.size() - 100);
  expect_error(p, "packet_data_length");
}

TEST_F(BadPackets, LengthShorterThanTheHeaders) {
  auto p = valid_packet(BaqMode::fdbaq0, 2);
  p[4] = 0;
  p[5] = 20;
  expect_error(p, "packet_data_length 20");
}

TEST_F(BadPackets, WrongSyncMarker) {
  auto p = valid_packet(BaqMode::fdbaq0, 2);
  p[12] ^= 0xff;
  expect_error(p, "sync_marker");
}

TEST_F(BadPackets, UnknownBaqMode) {
  auto p = valid_packet(BaqMode::fdbaq0, 2);
  p[37] = (p[37] & 0xe0) | 7;
  expect_error(p, "baq_mode 7");
}

TEST_F(BadPackets, ImpossibleBitRateCode) {
  auto p = valid_packet(BaqMode::fdbaq0, 2);
  p[kHeaderBytes] |= 0xe0;  // the first block's BRC: 7
  expect_error(p, "block 0: BRC 7: expected 0..4");
}

TEST_F(BadPackets, HuffmanCodesRunningPastThePacket) {
  // The user data cut short while the length field is made consistent with it: the codes run out.
  auto p = valid_packet(BaqMode::fdbaq0, 2);
  const std::size_t keep = kHeaderBytes + 200;
  p.resize(keep);
  const std::size_t length = keep - 7;
  p[4] = static_cast<std::uint8_t>(length >> 8);
  p[5] = static_cast<std::uint8_t>(length & 0xff);
  expect_error(p, "run past the end of the user data");
}

TEST_F(BadPackets, BaqCodesRunningPastThePacket) {
  auto p = valid_packet(BaqMode::baq4, 2);
  const std::size_t keep = kHeaderBytes + 120;
  p.resize(keep);
  p[4] = static_cast<std::uint8_t>((keep - 7) >> 8);
  p[5] = static_cast<std::uint8_t>((keep - 7) & 0xff);
  expect_error(p, "run past the end of the user data");
}

TEST_F(BadPackets, EmptyFileAndMissingProduct) {
  EXPECT_THROW(MeasurementFile(write("empty.dat", {})), Error);
  EXPECT_THROW(decode_lines(dir + "/nope.SAFE", {}), FileError);
  fs::create_directories(dir + "/x.SAFE");
  EXPECT_THROW(decode_lines(dir + "/x.SAFE", {}), Error);
}

}  // namespace

namespace {

// A .SAFE product's measurement files come from its manifest.safe (at the product's top level, as in
// Level-0 products); one it lists but lacks is an error naming it.
TEST_F(BadPackets, SafeFolderListsItsMeasurementsInTheManifest) {
  const std::string safe = dir + "/S1A_S3_RAW__0SDV_X.SAFE";
  fs::create_directories(safe);
  const std::string dat = "s1a-s3-raw-s-vv-20200615t162409-20200615t162435-022046-029d76.dat";
  {
    const auto p = valid_packet(BaqMode::fdbaq0, 0);
    std::ofstream(safe + "/" + dat, std::ios::binary).write(reinterpret_cast<const char*>(p.data()), static_cast<std::streamsize>(p.size()));
  }
  auto manifest = [&](const std::string& extra) {
    std::ofstream(safe + "/manifest.safe")
        << "<?xml version=\"1.0\"?><xfdu:XFDU xmlns:xfdu=\"urn:ccsds:schema:xfdu:1\"><dataObjectSection>"
           "<dataObject ID=\"measurementData\"><byteStream><fileLocation locatorType=\"URL\" href=\"./" + dat +
           "\"/></byteStream></dataObject>"
           "<dataObject ID=\"annot\"><byteStream><fileLocation locatorType=\"URL\" href=\"./x-annot.dat\"/></byteStream></dataObject>" +
           extra + "</dataObjectSection></xfdu:XFDU>";
  };
  manifest("");
  const std::vector<Measurement> m = list_measurements(safe);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(fs::path(m[0].path).filename().string(), dat);
  EXPECT_EQ(m[0].polarisation, "VV");
  EXPECT_EQ(m[0].swath, "S3");
  DecodeOptions o;
  o.signal = "all";
  EXPECT_EQ(decode_lines(safe, o).lines, 1u);
  manifest("<dataObject ID=\"more\"><byteStream><fileLocation href=\"./s1a-s3-raw-s-vh-missing.dat\"/></byteStream></dataObject>");
  try {
    list_measurements(safe);
    ADD_FAILURE() << "a listed file that is missing";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("fileLocation './s1a-s3-raw-s-vh-missing.dat'"), std::string::npos) << e.what();
  }
  std::ofstream(safe + "/manifest.safe") << "<not xml";
  EXPECT_THROW(list_measurements(safe), Error);
}

}  // namespace
