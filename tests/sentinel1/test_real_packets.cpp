// Real Sentinel-1 packets (stripmap S3, VV; ../shared/data/sentinel1): every header field against the
// published decoding of the headers, and the decoded lines against ESA's own decoding (packet 408,
// FDBAQ) and a public decoder's (packet 0, BAQ 5).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/npy.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace sarfuse;
using namespace sarfuse::sentinel1;

namespace {

std::string s1_dir() { return test::shared_data_dir() + "/sentinel1"; }

#define SKIP_WITHOUT_S1_DATA()                                                                   \
  if (!fs::exists(s1_dir() + "/000408-echo.dat"))                                                \
  GTEST_SKIP() << "Sentinel-1 test packets not found in " << s1_dir() << " (see the README there)"

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<std::complex<float>> read_c8(const std::string& path) {
  const io::NpyHeader h = io::read_npy_header(path);
  EXPECT_EQ(h.descr, "<c8") << path;
  std::vector<std::complex<float>> v(h.shape.at(0));
  std::ifstream f(path, std::ios::binary);
  f.seekg(static_cast<std::streamoff>(h.data_offset));
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(v[0])));
  return v;
}

// An enumerated field of the published JSON: {"name": ..., "value": N} or a plain number.
long value_of(const nlohmann::json& j) { return j.is_object() ? j.at("value").get<long>() : j.get<long>(); }

void expect_header_matches(const PacketHeader& h, const nlohmann::json& j) {
  const auto& p = j.at("primary_header");
  EXPECT_EQ(h.packet_version_number, p.at("packet_version_number").get<int>());
  EXPECT_EQ(h.packet_type, p.at("packet_type").get<int>());
  EXPECT_EQ(h.secondary_header_flag, p.at("secondary_header_flag").get<bool>());
  EXPECT_EQ(h.pid, p.at("pid").get<int>());
  EXPECT_EQ(h.pcat, p.at("pcat").get<int>());
  EXPECT_EQ(h.sequence_flags, p.at("sequence_flags").get<int>());
  EXPECT_EQ(h.packet_sequence_count, p.at("packet_sequence_count").get<int>());
  EXPECT_EQ(h.packet_data_length, p.at("packet_data_length").get<int>());
  const auto& s = j.at("secondary_header");
  EXPECT_EQ(h.coarse_time, s.at("datation").at("coarse_time").get<std::uint32_t>());
  EXPECT_EQ(h.fine_time, s.at("datation").at("fine_time").get<int>());
  const auto& f = s.at("fixed_ancillary_data");
  EXPECT_EQ(h.sync_marker, f.at("sync_marker").get<std::uint32_t>());
  EXPECT_EQ(h.data_take_id, f.at("data_take_id").get<std::uint32_t>());
  EXPECT_EQ(h.ecc_number, value_of(f.at("ecc_num")));
  EXPECT_EQ(h.test_mode, value_of(f.at("test_mode")));
  EXPECT_EQ(h.rx_channel_id, value_of(f.at("rx_channel_id")));
  EXPECT_EQ(h.instrument_configuration_id, f.at("instrument_configuration_id").get<std::uint32_t>());
  const auto& a = s.at("subcom_ancillary_data");
  EXPECT_EQ(h.data_word_index, a.at("data_word_index").get<int>());
  // data_word: the Python bytes literal of the two bytes, e.g. "b'AN'" or "b'\\xbe\\xa3'".
  const std::string lit = a.at("data_word").get<std::string>();
  std::string bytes;
  for (std::size_t i = 2; i + 1 < lit.size(); ++i) {
    if (lit[i] == '\\' && lit[i + 1] == 'x') {
      bytes.push_back(static_cast<char>(std::stoi(lit.substr(i + 2, 2), nullptr, 16)));
      i += 3;
    } else {
      bytes.push_back(lit[i]);
    }
  }
  ASSERT_EQ(bytes.size(), 2u) << lit;
  EXPECT_EQ(h.data_word, (static_cast<unsigned char>(bytes[0]) << 8) | static_cast<unsigned char>(bytes[1])) << lit;
  EXPECT_EQ(h.space_packet_count, s.at("counters").at("space_packet_count").get<std::uint32_t>());
  EXPECT_EQ(h.pri_count, s.at("counters").at("pri_count").get<std::uint32_t>());
  const auto& r = s.at("radar_configuration_support");
  EXPECT_EQ(h.error_flag, r.at("error_flag").get<bool>());
  EXPECT_EQ(h.baq_mode, value_of(r.at("baq_mode")));
  EXPECT_EQ(h.baq_block_length, r.at("baq_block_length").get<int>());
  EXPECT_EQ(h.range_decimation, value_of(r.at("range_decimation")));
  EXPECT_EQ(h.rx_gain, r.at("rx_gain").get<int>());
  EXPECT_EQ(h.tx_ramp_rate, r.at("tx_ramp_rate").get<int>());
  EXPECT_EQ(h.tx_pulse_start_frequency, r.at("tx_pulse_start_freq").get<int>());
  EXPECT_EQ(h.tx_pulse_length, r.at("tx_pulse_length").get<std::uint32_t>());
  EXPECT_EQ(h.rank, r.at("rank").get<int>());
  EXPECT_EQ(h.pri, r.at("pri").get<std::uint32_t>());
  EXPECT_EQ(h.swst, r.at("swst").get<std::uint32_t>());
  EXPECT_EQ(h.swl, r.at("swl").get<std::uint32_t>());
  const auto& sas = r.at("sas");
  EXPECT_EQ(h.ssb_flag, sas.at("ssb_flag").get<bool>());
  EXPECT_EQ(h.polarisation, value_of(sas.at("polarization")));
  EXPECT_EQ(h.temperature_compensation, value_of(sas.at("temperature_compensation")));
  EXPECT_EQ(h.sas_dynamic, sas.at("_dynamic_data").get<int>());
  EXPECT_EQ(h.sas_beam_address, sas.at("_beam_address").get<int>());
  const auto& ses = r.at("ses");
  EXPECT_EQ(h.calibration_mode, value_of(ses.at("cal_mode")));
  EXPECT_EQ(h.tx_pulse_number, ses.at("tx_pulse_number").get<int>());
  EXPECT_EQ(h.signal_type, value_of(ses.at("signal_type")));
  EXPECT_EQ(h.swap, ses.at("swap").get<bool>());
  EXPECT_EQ(h.swath_number, ses.at("swath_number").get<int>());
  EXPECT_EQ(h.number_of_quads, s.at("radar_sample_count").at("number_of_quads").get<int>());
}

// max |a - b| / max |b|.
double relative_max_error(const std::vector<std::complex<float>>& a, const std::vector<std::complex<float>>& b) {
  double diff = 0, peak = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(a[i] - b[i])));
    peak = std::max(peak, static_cast<double>(std::abs(b[i])));
  }
  return diff / peak;
}

struct RealPacket {
  const char* stem;
  const char* reference;
  BaqMode mode;
  SignalType signal;
};

class RealPackets : public ::testing::TestWithParam<RealPacket> {};

TEST_P(RealPackets, HeaderFieldsAndDecodedLineMatchTheReference) {
  SKIP_WITHOUT_S1_DATA();
  const RealPacket& c = GetParam();
  const std::string stem = s1_dir() + "/" + c.stem;
  const MeasurementFile f(stem + ".dat");
  ASSERT_EQ(f.packets(), 1u);
  const PacketHeader& h = f.header(0);
  expect_header_matches(h, nlohmann::json::parse(std::ifstream(stem + ".header.json")));
  EXPECT_EQ(static_cast<BaqMode>(h.baq_mode), c.mode);
  EXPECT_EQ(static_cast<SignalType>(h.signal_type), c.signal);
  // The header written back gives the same bytes.
  const std::vector<std::uint8_t> raw = read_bytes(stem + ".dat");
  EXPECT_EQ(format_packet_header(h), std::vector<std::uint8_t>(raw.begin(), raw.begin() + kHeaderBytes));

  const std::vector<std::complex<float>> ref = read_c8(stem + "." + c.reference + ".npy");
  ASSERT_EQ(ref.size(), h.samples());
  std::vector<std::complex<float>> line(h.samples(), std::complex<float>(std::nanf(""), std::nanf("")));
  decode_user_data(h, f.user_data(0), f.user_data_bytes(0), line.data(), f.where(0));
  const double err = relative_max_error(line, ref);
  std::printf("%s: max |decoded - %s| / max |%s| = %.2e over %zu samples\n", c.stem, c.reference, c.reference, err,
              ref.size());
  EXPECT_LE(err, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Sentinel1, RealPackets,
                         ::testing::Values(RealPacket{"000408-echo", "esa_reference", BaqMode::fdbaq0, SignalType::echo},
                                           RealPacket{"000000-noise", "s1isp", BaqMode::baq5, SignalType::noise}),
                         [](const auto& info) { return std::string(info.param.stem).substr(7); });

TEST(Sentinel1Lines, TwoRealPacketsInOneFileDecodeAsTwoLines) {
  SKIP_WITHOUT_S1_DATA();
  const std::string dir = test::temp_dir("s1lines");
  std::vector<std::uint8_t> both = read_bytes(s1_dir() + "/000000-noise.dat");
  const std::vector<std::uint8_t> echo = read_bytes(s1_dir() + "/000408-echo.dat");
  both.insert(both.end(), echo.begin(), echo.end());
  const std::string path = dir + "/s1b-s3-raw-s-vv-20200615t162409-20200615t162435-022046-029d76.dat";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(both.data()), static_cast<std::streamsize>(both.size()));
  DecodeOptions o;
  o.signal = "all";
  const DecodedLines d = decode_lines(path, o);
  ASSERT_EQ(d.lines, 2u);
  EXPECT_EQ(d.samples, 21558u);
  EXPECT_EQ(d.headers[0].space_packet_count, 0u);
  EXPECT_EQ(d.headers[1].space_packet_count, 408u);
  EXPECT_EQ(d.missing_packets, 407u);  // the counter jumps from 0 to 408
  const std::vector<std::complex<float>> ref = read_c8(s1_dir() + "/000408-echo.esa_reference.npy");
  const std::vector<std::complex<float>> second(d.data.row(1), d.data.row(1) + d.samples);
  EXPECT_LE(relative_max_error(second, ref), 1e-5);
  o.signal = "echo";
  const DecodedLines e = decode_lines(path, o);
  ASSERT_EQ(e.lines, 1u);
  EXPECT_EQ(e.packet_index[0], 1u);
  o.polarisation = "HH";
  EXPECT_THROW(decode_lines(path, o), Error);
  fs::remove_all(dir);
}

}  // namespace

namespace {

// Packet 408's radar fields in physical units, by the formulas of S1-IF-ASD-PL-0007 section 3.2.5
// worked by hand from its coded values (f_ref = 37.53472224 MHz): TXPRR 34770 (sign 1, 2002), TXPSF
// 12970 (sign 0), TXPL 1658, PRI 19499, SWST 5271, rank 10, decimation 4 (4/9 of 4 f_ref).
TEST(Sentinel1Radar, Packet408InPhysicalUnits) {
  SKIP_WITHOUT_S1_DATA();
  const MeasurementFile f(s1_dir() + "/000408-echo.dat");
  const PacketHeader& h = f.header(0);
  const double fref = 37.53472224;
  EXPECT_NEAR(tx_ramp_rate_hz_per_s(h), 2002 * fref * fref / 2097152.0 * 1e12, 1.0);
  EXPECT_NEAR(tx_ramp_rate_hz_per_s(h) / 1e12, 1.34493, 1e-5);
  EXPECT_NEAR(tx_pulse_length_s(h) * 1e6, 1658 / fref, 1e-9);
  EXPECT_NEAR(tx_pulse_length_s(h) * 1e6, 44.172, 1e-3);
  EXPECT_NEAR(tx_ramp_rate_hz_per_s(h) * tx_pulse_length_s(h) / 1e6, 59.409, 1e-3);  // the S3 chirp bandwidth
  EXPECT_NEAR(tx_pulse_start_frequency_hz(h) / 1e6, 1.34493 / (4 * fref) - 12970 * fref / 16384.0, 1e-5);
  // The chirp sweeps symmetrically about the carrier: start + bandwidth / 2 within 10 kHz of 0.
  EXPECT_NEAR(tx_pulse_start_frequency_hz(h) + tx_ramp_rate_hz_per_s(h) * tx_pulse_length_s(h) / 2, 0.0, 1e4);
  EXPECT_NEAR(1.0 / pri_s(h), fref * 1e6 / 19499, 1e-6);
  EXPECT_NEAR(range_sampling_rate_hz(h, "408") / 1e6, 4.0 / 9.0 * 4 * fref, 1e-9);
  EXPECT_NEAR(first_sample_time_s(h) * 1e6, 10 * 19499 / fref + 5271 / fref + 40 / fref, 1e-9);
  EXPECT_NEAR(kSpeedOfLight / 2 * first_sample_time_s(h) / 1e3, 799.9, 0.1);  // S3 near range, km
  // One packet holds one sub-commutated word: no position-velocity record, and the parameters say so.
  DecodeOptions o;
  const DecodedLines d = decode_lines(s1_dir() + "/000408-echo.dat", o);
  EXPECT_TRUE(pvt_records(d.headers).empty());
  try {
    (void)radar_parameters(d);
    ADD_FAILURE() << "radar_parameters without an orbit record";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no complete position-velocity record"), std::string::npos) << e.what();
  }
}

}  // namespace
