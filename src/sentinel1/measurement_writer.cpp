// A measurement file made by our encoder from complex lines (tests, benchmarks, simulated takes): one
// packet per line, the counters and datation advanced by the PRI, the sub-commutated words cycling
// 1..64 with the PVT record nearest each line in words 1..22.
#include <cmath>
#include <fstream>
#include <vector>

#include "core/threads.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

void write_measurement_file(const std::string& path, const ComplexImage& lines, const PacketHeader& first,
                            const std::vector<PvtRecord>& pvt, const EncodeOptions& options, int threads) {
  const double t0 = packet_time_s(first), pri = pri_s(first);
  std::vector<std::vector<std::uint8_t>> packets(lines.lines());
  std::string failure;
#pragma omp parallel for schedule(dynamic, 8) num_threads(core::resolve_threads(threads))
  for (std::size_t l = 0; l < lines.lines(); ++l) {
    PacketHeader h = first;
    h.space_packet_count = first.space_packet_count + static_cast<std::uint32_t>(l);
    h.pri_count = first.pri_count + static_cast<std::uint32_t>(l);
    h.packet_sequence_count = static_cast<std::uint16_t>((first.packet_sequence_count + l) & 0x3fff);
    const double t = t0 + static_cast<double>(l) * pri;
    h.coarse_time = static_cast<std::uint32_t>(std::floor(t));
    h.fine_time = static_cast<std::uint16_t>(std::min(65535.0, std::floor((t - std::floor(t)) * 65536.0)));
    h.data_word_index = static_cast<std::uint8_t>((first.data_word_index - 1 + l) % 64 + 1);
    h.data_word = 0;
    if (!pvt.empty() && h.data_word_index <= kPvtWords) {
      // The record of this line's cycle (the cycle's first line's nearest record), so one cycle's 22
      // words are one record.
      const double cycle_t = t - static_cast<double>(h.data_word_index - 1) * pri;
      std::size_t best = 0;
      for (std::size_t i = 1; i < pvt.size(); ++i)
        if (std::fabs(pvt[i].time_s - cycle_t) < std::fabs(pvt[best].time_s - cycle_t)) best = i;
      h.data_word = pvt_words(pvt[best])[h.data_word_index - 1];
    }
    try {
      packets[l] = encode_packet(h, lines.row(l), lines.samples(), options, nullptr);
    } catch (const Error& e) {
#pragma omp critical(sarfuse_level0_writer)
      if (failure.empty()) failure = e.what();
    }
  }
  if (!failure.empty()) throw Error(path + ": " + failure);
  std::ofstream f(path, std::ios::binary);
  for (const auto& p : packets) f.write(reinterpret_cast<const char*>(p.data()), static_cast<std::streamsize>(p.size()));
  if (!f) throw FileError(path + ": cannot write");
}

PacketHeader s3_echo_header() {
  PacketHeader h;
  h.secondary_header_flag = true;
  h.pid = 65;
  h.pcat = 12;
  h.sequence_flags = 3;
  h.sync_marker = kSyncMarker;
  h.data_take_id = 87747936;
  h.ecc_number = 13;
  h.coarse_time = 1276273467;
  h.data_word_index = 1;
  h.baq_mode = static_cast<std::uint8_t>(BaqMode::fdbaq0);
  h.baq_block_length = 31;
  h.range_decimation = 4;
  h.rx_gain = 12;
  h.tx_ramp_rate = 34770;
  h.tx_pulse_start_frequency = 12970;
  h.tx_pulse_length = 1658;
  h.rank = 10;
  h.pri = 19499;
  h.swst = 5271;
  h.swl = 12178;
  h.polarisation = 7;
  h.temperature_compensation = 3;
  h.sas_dynamic = 2;
  h.tx_pulse_number = 2;
  h.swath_number = 2;
  return h;
}

std::vector<PvtRecord> polar_orbit(double t0_s, double duration_s, double altitude_m, double speed_m_s) {
  std::vector<PvtRecord> out;
  const double radius = 6378137.0 + altitude_m;
  for (int k = -2; k <= static_cast<int>(std::ceil(duration_s)) + 2; ++k) {
    const double angle = speed_m_s * k / radius;
    PvtRecord r;
    r.time_s = t0_s + k;
    r.x = radius * std::cos(angle);
    r.z = radius * std::sin(angle);
    r.vx = static_cast<float>(-speed_m_s * std::sin(angle));
    r.vz = static_cast<float>(speed_m_s * std::cos(angle));
    out.push_back(r);
  }
  return out;
}

}  // namespace sarfuse::sentinel1
