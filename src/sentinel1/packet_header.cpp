// The primary (CCSDS) and secondary headers of a Sentinel-1 Space Packet: S1-IF-ASD-PL-0007 issue 13,
// section 3 (tables 3.1-1, 3.2-1 .. 3.2-13), big-endian bit fields.
#include <nlohmann/json.hpp>
#include <string>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

namespace {

std::uint32_t be(const std::uint8_t* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

void put_be(std::uint8_t* p, int bytes, std::uint32_t v) {
  for (int i = bytes - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v & 0xff);
}

std::string hex(std::uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08X", v);
  return s;
}

}  // namespace

const char* to_string(BaqMode m) {
  switch (m) {
    case BaqMode::bypass: return "bypass";
    case BaqMode::baq3: return "BAQ3";
    case BaqMode::baq4: return "BAQ4";
    case BaqMode::baq5: return "BAQ5";
    case BaqMode::fdbaq0: return "FDBAQ0";
    case BaqMode::fdbaq1: return "FDBAQ1";
    case BaqMode::fdbaq2: return "FDBAQ2";
  }
  return "unknown";
}

bool is_fdbaq(BaqMode m) { return m == BaqMode::fdbaq0 || m == BaqMode::fdbaq1 || m == BaqMode::fdbaq2; }

const char* to_string(SignalType t) {
  switch (t) {
    case SignalType::echo: return "echo";
    case SignalType::noise: return "noise";
    case SignalType::tx_cal: return "tx_cal";
    case SignalType::rx_cal: return "rx_cal";
    case SignalType::epdn_cal: return "epdn_cal";
    case SignalType::ta_cal: return "ta_cal";
    case SignalType::apdn_cal: return "apdn_cal";
    case SignalType::txh_cal_iso: return "txh_cal_iso";
  }
  return "unknown";
}

PacketHeader parse_packet_header(const std::uint8_t* b, std::size_t available, const std::string& where) {
  if (available < kHeaderBytes)
    throw Error(where + ": truncated: " + std::to_string(available) + " bytes left, a packet's headers take " +
                std::to_string(kHeaderBytes));
  PacketHeader h;
  const std::uint32_t id = be(b, 2), seq = be(b + 2, 2);
  h.packet_version_number = static_cast<std::uint8_t>(id >> 13);
  h.packet_type = static_cast<std::uint8_t>((id >> 12) & 1);
  h.secondary_header_flag = ((id >> 11) & 1) != 0;
  h.pid = static_cast<std::uint8_t>((id >> 4) & 0x7f);
  h.pcat = static_cast<std::uint8_t>(id & 0xf);
  h.sequence_flags = static_cast<std::uint8_t>(seq >> 14);
  h.packet_sequence_count = static_cast<std::uint16_t>(seq & 0x3fff);
  h.packet_data_length = static_cast<std::uint16_t>(be(b + 4, 2));
  if (h.packet_version_number != 0)
    throw Error(where + ": packet_version_number " + std::to_string(h.packet_version_number) + ": expected 0");
  if (h.packet_type != 0) throw Error(where + ": packet_type 1: expected 0 (telemetry)");
  if (!h.secondary_header_flag) throw Error(where + ": secondary_header_flag 0: expected 1");
  if (h.packet_bytes() < kHeaderBytes)
    throw Error(where + ": packet_data_length " + std::to_string(h.packet_data_length) + ": a packet of " +
                std::to_string(h.packet_bytes()) + " bytes cannot hold its " + std::to_string(kHeaderBytes) +
                " header bytes");
  if (h.packet_bytes() > available)
    throw Error(where + ": packet_data_length " + std::to_string(h.packet_data_length) + ": the packet needs " +
                std::to_string(h.packet_bytes()) + " bytes, the file holds " + std::to_string(available) +
                " more (truncated?)");
  h.coarse_time = be(b + 6, 4);
  h.fine_time = static_cast<std::uint16_t>(be(b + 10, 2));
  h.sync_marker = be(b + 12, 4);
  if (h.sync_marker != kSyncMarker)
    throw Error(where + ": sync_marker " + hex(h.sync_marker) + ": expected " + hex(kSyncMarker));
  h.data_take_id = be(b + 16, 4);
  h.ecc_number = b[20];
  h.test_mode = static_cast<std::uint8_t>((b[21] >> 4) & 0x7);
  h.rx_channel_id = static_cast<std::uint8_t>(b[21] & 0xf);
  h.instrument_configuration_id = be(b + 22, 4);
  h.data_word_index = b[26];
  h.data_word = static_cast<std::uint16_t>(be(b + 27, 2));
  h.space_packet_count = be(b + 29, 4);
  h.pri_count = be(b + 33, 4);
  h.error_flag = (b[37] >> 7) != 0;
  h.baq_mode = static_cast<std::uint8_t>(b[37] & 0x1f);
  switch (static_cast<BaqMode>(h.baq_mode)) {
    case BaqMode::bypass: case BaqMode::baq3: case BaqMode::baq4: case BaqMode::baq5:
    case BaqMode::fdbaq0: case BaqMode::fdbaq1: case BaqMode::fdbaq2: break;
    default:
      throw Error(where + ": baq_mode " + std::to_string(h.baq_mode) +
                  ": expected 0 (bypass), 3, 4, 5 (BAQ) or 12, 13, 14 (FDBAQ)");
  }
  h.baq_block_length = b[38];
  h.range_decimation = b[40];
  h.rx_gain = b[41];
  h.tx_ramp_rate = static_cast<std::uint16_t>(be(b + 42, 2));
  h.tx_pulse_start_frequency = static_cast<std::uint16_t>(be(b + 44, 2));
  h.tx_pulse_length = be(b + 46, 3);
  h.rank = static_cast<std::uint8_t>(b[49] & 0x1f);
  h.pri = be(b + 50, 3);
  h.swst = be(b + 53, 3);
  h.swl = be(b + 56, 3);
  const std::uint32_t sas = be(b + 59, 3), ses = be(b + 62, 3);
  h.ssb_flag = (sas >> 23) != 0;
  h.polarisation = static_cast<std::uint8_t>((sas >> 20) & 0x7);
  h.temperature_compensation = static_cast<std::uint8_t>((sas >> 18) & 0x3);
  h.sas_dynamic = static_cast<std::uint8_t>((sas >> 12) & 0xf);
  h.sas_beam_address = static_cast<std::uint16_t>(sas & 0x3ff);
  h.calibration_mode = static_cast<std::uint8_t>(ses >> 22);
  h.tx_pulse_number = static_cast<std::uint8_t>((ses >> 16) & 0x1f);
  h.signal_type = static_cast<std::uint8_t>((ses >> 12) & 0xf);
  h.swap = ((ses >> 8) & 1) != 0;
  h.swath_number = static_cast<std::uint8_t>(ses & 0xff);
  h.number_of_quads = static_cast<std::uint16_t>(be(b + 65, 2));
  return h;
}

std::vector<std::uint8_t> format_packet_header(const PacketHeader& h) {
  std::vector<std::uint8_t> b(kHeaderBytes, 0);
  put_be(&b[0], 2, (std::uint32_t{h.packet_version_number} << 13) | (std::uint32_t{h.packet_type} << 12) |
                       (std::uint32_t{h.secondary_header_flag} << 11) | (std::uint32_t{h.pid} << 4) | h.pcat);
  put_be(&b[2], 2, (std::uint32_t{h.sequence_flags} << 14) | (h.packet_sequence_count & 0x3fffu));
  put_be(&b[4], 2, h.packet_data_length);
  put_be(&b[6], 4, h.coarse_time);
  put_be(&b[10], 2, h.fine_time);
  put_be(&b[12], 4, h.sync_marker);
  put_be(&b[16], 4, h.data_take_id);
  b[20] = h.ecc_number;
  b[21] = static_cast<std::uint8_t>(((h.test_mode & 0x7) << 4) | (h.rx_channel_id & 0xf));
  put_be(&b[22], 4, h.instrument_configuration_id);
  b[26] = h.data_word_index;
  put_be(&b[27], 2, h.data_word);
  put_be(&b[29], 4, h.space_packet_count);
  put_be(&b[33], 4, h.pri_count);
  b[37] = static_cast<std::uint8_t>((h.error_flag ? 0x80 : 0) | (h.baq_mode & 0x1f));
  b[38] = h.baq_block_length;
  b[40] = h.range_decimation;
  b[41] = h.rx_gain;
  put_be(&b[42], 2, h.tx_ramp_rate);
  put_be(&b[44], 2, h.tx_pulse_start_frequency);
  put_be(&b[46], 3, h.tx_pulse_length);
  b[49] = static_cast<std::uint8_t>(h.rank & 0x1f);
  put_be(&b[50], 3, h.pri);
  put_be(&b[53], 3, h.swst);
  put_be(&b[56], 3, h.swl);
  put_be(&b[59], 3, (std::uint32_t{h.ssb_flag} << 23) | (std::uint32_t{h.polarisation & 0x7u} << 20) |
                        (std::uint32_t{h.temperature_compensation & 0x3u} << 18) |
                        (std::uint32_t{h.sas_dynamic & 0xfu} << 12) | (h.sas_beam_address & 0x3ffu));
  put_be(&b[62], 3, (std::uint32_t{h.calibration_mode & 0x3u} << 22) | (std::uint32_t{h.tx_pulse_number & 0x1fu} << 16) |
                        (std::uint32_t{h.signal_type & 0xfu} << 12) | (std::uint32_t{h.swap} << 8) | h.swath_number);
  put_be(&b[65], 2, h.number_of_quads);
  return b;
}

std::string header_json(const PacketHeader& h, int indent) {
  using nlohmann::json;
  json j;
  j["primary_header"] = {{"packet_version_number", h.packet_version_number},
                         {"packet_type", h.packet_type},
                         {"secondary_header_flag", h.secondary_header_flag},
                         {"pid", h.pid},
                         {"pcat", h.pcat},
                         {"sequence_flags", h.sequence_flags},
                         {"packet_sequence_count", h.packet_sequence_count},
                         {"packet_data_length", h.packet_data_length}};
  json s;
  s["datation"] = {{"coarse_time", h.coarse_time}, {"fine_time", h.fine_time}};
  s["fixed_ancillary_data"] = {{"sync_marker", h.sync_marker},     {"data_take_id", h.data_take_id},
                               {"ecc_num", h.ecc_number},          {"test_mode", h.test_mode},
                               {"rx_channel_id", h.rx_channel_id}, {"instrument_configuration_id", h.instrument_configuration_id}};
  s["subcom_ancillary_data"] = {{"data_word_index", h.data_word_index}, {"data_word", h.data_word}};
  s["counters"] = {{"space_packet_count", h.space_packet_count}, {"pri_count", h.pri_count}};
  s["radar_configuration_support"] = {
      {"error_flag", h.error_flag},
      {"baq_mode", h.baq_mode},
      {"baq_block_length", h.baq_block_length},
      {"range_decimation", h.range_decimation},
      {"rx_gain", h.rx_gain},
      {"tx_ramp_rate", h.tx_ramp_rate},
      {"tx_pulse_start_freq", h.tx_pulse_start_frequency},
      {"tx_pulse_length", h.tx_pulse_length},
      {"rank", h.rank},
      {"pri", h.pri},
      {"swst", h.swst},
      {"swl", h.swl},
      {"sas", {{"ssb_flag", h.ssb_flag}, {"polarization", h.polarisation},
               {"temperature_compensation", h.temperature_compensation}, {"dynamic", h.sas_dynamic},
               {"beam_address", h.sas_beam_address}}},
      {"ses", {{"cal_mode", h.calibration_mode}, {"tx_pulse_number", h.tx_pulse_number},
               {"signal_type", h.signal_type}, {"swap", h.swap}, {"swath_number", h.swath_number}}}};
  s["radar_sample_count"] = {{"number_of_quads", h.number_of_quads}};
  j["secondary_header"] = s;
  return j.dump(indent);
}

}  // namespace sarfuse::sentinel1
