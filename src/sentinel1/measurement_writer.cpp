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

}  // namespace sarfuse::sentinel1
