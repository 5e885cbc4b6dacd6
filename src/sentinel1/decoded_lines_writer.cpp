// Decoded Level-0 lines on disk: the complex64 matrix as .npy and beside it (`PATH.json`) the per-line
// header fields and what the decoding found; both files appear together or not at all.
#include <nlohmann/json.hpp>
#include <string>

#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

std::string decoded_lines_json(const DecodedLines& d, const DecodeOptions& o, int indent) {
  nlohmann::json j;
  j["source"] = d.source;
  j["signal"] = o.signal;
  j["polarisation"] = o.polarisation;
  j["lines"] = d.lines;
  j["samples"] = d.samples;
  j["sample_order"] = "natural (IE + j QE at even samples, IO + j QO at odd); each line at its range_offset on the take's common range grid, zero elsewhere";
  j["packets_in_file"] = d.packets_in_file;
  j["missing_packets"] = d.missing_packets;
  j["missing_after_space_packet_count"] = d.missing_after;
  j["decode_seconds"] = d.decode_seconds;
  nlohmann::json index = nlohmann::json::array();
  for (std::size_t i : d.packet_index) index.push_back(i == kMissingLine ? nlohmann::json(nullptr) : nlohmann::json(i));
  j["packet_index"] = index;  // null: a line of zeros for a missing packet
  j["missing_lines"] = d.missing_lines;
  j["range_offset_samples"] = d.range_offset;
  j["first_sample_time_s"] = d.first_sample_time_s;
  nlohmann::json headers = nlohmann::json::array();
  for (const PacketHeader& h : d.headers) headers.push_back(nlohmann::json::parse(header_json(h)));
  j["headers"] = headers;
  return j.dump(indent);
}

void write_decoded_lines(const DecodedLines& d, const DecodeOptions& o, const std::string& path) {
  if (path.size() < 4 || path.compare(path.size() - 4, 4, ".npy") != 0)
    throw Error(path + ": decoded lines are written as .npy (expected a path ending in .npy)");
  const std::string header = io::npy_header_2d("<c8", d.lines, d.samples);
  const std::string side = decoded_lines_json(d, o, 1) + "\n";
  io::AtomicFile npy(path), json(path + ".json");
  npy.write(header.data(), header.size());
  npy.write(d.data.data(), d.data.size() * sizeof(std::complex<float>));
  json.write(side.data(), side.size());
  npy.commit();
  json.commit();
}

}  // namespace sarfuse::sentinel1
