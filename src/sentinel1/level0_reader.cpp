// A Level-0 product as lines: its measurement files (a .SAFE folder's, or one .dat), the packets of the
// signal and polarisation asked for, decoded in parallel over packets into one zero-filled matrix.
#include <omp.h>
#include <pugixml.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/threads.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// A line's polarisation: transmit from the SAS polarisation code (0..3 H, 4..7 V), receive from the
// Rx channel id (0 V, 1 H) (S1-IF-ASD-PL-0007 sections 3.2.2.5 and 3.2.5.12).
std::string line_polarisation(const PacketHeader& h) {
  const char tx = h.polarisation >= 4 ? 'V' : 'H';
  const char rx = h.rx_channel_id == 0 ? 'V' : 'H';
  return std::string{tx, rx};
}

bool signal_matches(const PacketHeader& h, const std::string& signal) {
  if (signal == "all") return true;
  if (signal == "echo") return h.signal_type == static_cast<int>(SignalType::echo);
  if (signal == "noise") return h.signal_type == static_cast<int>(SignalType::noise);
  return h.signal_type >= static_cast<int>(SignalType::tx_cal);  // txcal: the calibration types
}

void check_signal(const std::string& s) {
  if (s != "echo" && s != "noise" && s != "txcal" && s != "all")
    throw Error("signal: expected echo, noise, txcal or all (got '" + s + "')");
}

// The swath and polarisation fields of a measurement file name: mission-swath-type-level-pol-start-...
void fields_from_name(const std::string& path, std::string& swath, std::string& pol) {
  std::vector<std::string> parts;
  std::stringstream ss(lower(fs::path(path).filename().string()));
  for (std::string part; std::getline(ss, part, '-');) parts.push_back(part);
  if (parts.size() >= 5 && parts[2] == "raw") {
    swath = upper(parts[1]);
    pol = upper(parts[4]);
  }
}

}  // namespace

bool is_level0_path(const std::string& path) {
  const std::string e = lower(fs::path(path).extension().string());
  const std::string name = lower(fs::path(path).filename().string());
  return e == ".dat" || e == ".safe" || name.ends_with(".safe/");
}

namespace {

bool is_measurement_name(const std::string& file_name) {
  const std::string name = lower(file_name);
  return name.ends_with(".dat") && !name.ends_with("-index.dat") && !name.ends_with("-annot.dat");
}

// The measurement files manifest.safe lists (every fileLocation href naming a measurement .dat),
// each checked to exist.
std::vector<std::string> manifest_measurements(const fs::path& folder) {
  const fs::path manifest = folder / "manifest.safe";
  pugi::xml_document doc;
  const pugi::xml_parse_result ok = doc.load_file(manifest.c_str());
  if (!ok) throw Error(manifest.string() + ": not XML (" + ok.description() + " at byte " + std::to_string(ok.offset) + ")");
  std::vector<std::string> out;
  struct Walker : pugi::xml_tree_walker {
    std::vector<std::string> hrefs;
    bool for_each(pugi::xml_node& n) override {
      const std::string name = n.name();
      const std::size_t colon = name.rfind(':');
      if ((colon == std::string::npos ? name : name.substr(colon + 1)) == "fileLocation")
        hrefs.push_back(n.attribute("href").value());
      return true;
    }
  } walker;
  doc.traverse(walker);
  for (const std::string& href : walker.hrefs) {
    if (!is_measurement_name(fs::path(href).filename().string())) continue;
    const fs::path file = (folder / href).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      throw FileError(manifest.string() + ": fileLocation '" + href + "': no such measurement file in the product");
    out.push_back(file.string());
  }
  if (out.empty()) throw Error(manifest.string() + ": lists no measurement .dat file");
  return out;
}

}  // namespace

std::vector<Measurement> list_measurements(const std::string& product) {
  std::error_code ec;
  if (!fs::exists(product, ec)) throw FileError(product + ": no such file or folder");
  std::vector<std::string> paths;
  if (fs::is_directory(product, ec)) {
    const fs::path folder(product);
    if (fs::exists(folder / "manifest.safe", ec)) {
      paths = manifest_measurements(folder);
    } else {
      // A folder without a manifest: its .dat files, or those of its measurement/ folder.
      for (const fs::path& dir : {folder, folder / "measurement"}) {
        if (!fs::is_directory(dir, ec)) continue;
        for (const auto& e : fs::directory_iterator(dir))
          if (e.is_regular_file() && is_measurement_name(e.path().filename().string())) paths.push_back(e.path().string());
      }
      if (paths.empty())
        throw Error(product + ": no manifest.safe and no measurement .dat file in it or in measurement/ "
                    "(index and annotation files aside)");
    }
    std::sort(paths.begin(), paths.end());
  } else {
    paths.push_back(product);
  }
  std::vector<Measurement> out;
  for (const std::string& p : paths) {
    Measurement x;
    x.path = p;
    fields_from_name(x.path, x.swath, x.polarisation);
    out.push_back(x);
  }
  return out;
}

DecodedLines decode_lines(const std::string& product, const DecodeOptions& o) {
  DecodedLines d;
  decode_lines(product, o, d);
  return d;
}

namespace {

constexpr std::uint32_t kMaxFilledGap = 1000;  // PRIs; a longer break in a take is no missing packet

// The lines' packets (headers, indices, gaps) of the signal and polarisation asked for; d.data untouched.
// Returns the measurement file they are in.
std::unique_ptr<MeasurementFile> select_lines(const std::string& product, const DecodeOptions& o, DecodedLines& d) {
  check_signal(o.signal);
  const std::string want = upper(o.polarisation);
  if (!want.empty() && want != "VV" && want != "VH" && want != "HH" && want != "HV")
    throw Error("polarisation: expected VV, VH, HH or HV (got '" + o.polarisation + "')");
  std::vector<Measurement> files = list_measurements(product);
  if (!want.empty() && files.size() > 1) {
    std::vector<Measurement> named;
    for (const auto& m : files)
      if (m.polarisation == want) named.push_back(m);
    if (!named.empty()) files = named;
  }
  // The lines: every packet of the signal (and polarisation) asked for, of the one file that has them.
  std::set<std::string> pols;
  std::vector<std::unique_ptr<MeasurementFile>> opened;
  for (const auto& m : files) opened.push_back(std::make_unique<MeasurementFile>(m.path));
  MeasurementFile* chosen = nullptr;
  std::vector<std::size_t> packets;
  for (auto& file : opened) {
    MeasurementFile& f = *file;
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < f.packets(); ++i) {
      const PacketHeader& h = f.header(i);
      if (!signal_matches(h, o.signal)) continue;
      const std::string p = line_polarisation(h);
      pols.insert(p);
      if (!want.empty() && p != want) continue;
      mine.push_back(i);
    }
    if (mine.empty()) continue;
    if (chosen != nullptr && !want.empty())
      throw Error(product + ": polarisation " + want + " in several measurement files (" + chosen->path() + ", " +
                  f.path() + "); name one file");
    if (chosen == nullptr || packets.empty()) {
      chosen = &f;
      packets = std::move(mine);
    }
  }
  if (want.empty() && pols.size() > 1) {
    std::string list;
    for (const auto& p : pols) list += (list.empty() ? "" : ", ") + p;
    throw Error(product + ": several polarisations (" + list + "): choose one (polarisation)");
  }
  if (chosen == nullptr)
    throw Error(product + ": no " + o.signal + " packets" + (want.empty() ? "" : " of polarisation " + want));
  ComplexImage keep = std::move(d.data);
  d = DecodedLines{};
  d.data = std::move(keep);
  d.source = chosen->path();
  d.packets_in_file = chosen->packets();
  // Echo lines one per PRI: a missing packet (the PRI count jumping) becomes a line of zeros with the
  // previous line's header (its sub-commutated word cleared, so no PVT record spans the gap).
  for (std::size_t k = 0; k < packets.size(); ++k) {
    const PacketHeader& h = chosen->header(packets[k]);
    if (k > 0 && o.signal == "echo") {
      const std::uint32_t before = d.headers.back().pri_count, gap = h.pri_count - before;
      if (gap > kMaxFilledGap)
        throw Error(chosen->where(packets[k]) + ": pri_count " + std::to_string(h.pri_count) + " after " +
                    std::to_string(before) + ": a gap of " + std::to_string(gap) +
                    " PRIs is not a few missing packets (expected consecutive echo lines; split the take there)");
      for (std::uint32_t m = 1; m < gap; ++m) {
        PacketHeader fill = d.headers.back();
        fill.pri_count = before + m;
        fill.data_word_index = 0;
        d.missing_lines.push_back(d.headers.size());
        d.headers.push_back(fill);
        d.packet_index.push_back(kMissingLine);
      }
    }
    d.headers.push_back(h);
    d.packet_index.push_back(packets[k]);
  }
  d.lines = d.headers.size();
  // One range grid for the take: each line at its first-sample time (rank x PRI + SWST) after the
  // earliest, in samples of the take's sampling rate (one decimation code per take).
  const PacketHeader& mid = d.headers[d.lines / 2];
  const std::size_t mid_packet = d.packet_index[d.lines / 2];
  const double fs = range_sampling_rate_hz(mid, mid_packet == kMissingLine ? chosen->path() : chosen->where(mid_packet));
  d.first_sample_time_s = first_sample_time_s(mid);
  for (std::size_t l = 0; l < d.lines; ++l) {
    if (d.headers[l].range_decimation != mid.range_decimation)
      throw Error(chosen->where(d.packet_index[l]) + ": range_decimation " + std::to_string(d.headers[l].range_decimation) +
                  ": the take's other lines have " + std::to_string(mid.range_decimation) + " (one sampling rate per take)");
    d.first_sample_time_s = std::min(d.first_sample_time_s, first_sample_time_s(d.headers[l]));
  }
  d.range_offset.resize(d.lines);
  for (std::size_t l = 0; l < d.lines; ++l) {
    d.range_offset[l] = static_cast<std::size_t>(std::llround((first_sample_time_s(d.headers[l]) - d.first_sample_time_s) * fs));
    d.samples = std::max(d.samples, d.range_offset[l] + d.headers[l].samples());
  }
  for (std::size_t i = 1; i < chosen->packets(); ++i) {
    const std::uint32_t a = chosen->header(i - 1).space_packet_count, b = chosen->header(i).space_packet_count;
    if (b != a + 1) {
      d.missing_after.push_back(a);
      d.missing_packets += b > a ? b - a - 1 : 0;
    }
  }
  for (auto& file : opened)
    if (file.get() == chosen) return std::move(file);
  throw Error(product + ": internal: the chosen measurement file was lost");
}

}  // namespace

DecodedLines index_lines(const std::string& product, const DecodeOptions& o) {
  DecodedLines d;
  (void)select_lines(product, o, d);
  return d;
}

void decode_lines(const std::string& product, const DecodeOptions& o, DecodedLines& d) {
  const std::unique_ptr<MeasurementFile> file = select_lines(product, o, d);
  const MeasurementFile* chosen = file.get();
  const std::vector<std::size_t>& packets = d.packet_index;
  const auto t0 = std::chrono::steady_clock::now();
  // Not cleared: each thread writes its own lines (first touch, in parallel).
  if (d.data.lines() != d.lines || d.data.samples() != d.samples) d.data = ComplexImage(d.lines, d.samples);
  const int threads = core::resolve_threads(o.threads);
  std::string failure;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (std::size_t l = 0; l < d.lines; ++l) {
    try {
      const std::size_t i = packets[l];
      std::complex<float>* row = d.data.row(l);
      if (i == kMissingLine) {
        std::fill(row, row + d.samples, std::complex<float>(0.f, 0.f));
      } else {
        const PacketHeader& h = chosen->header(i);
        const std::size_t at = d.range_offset[l];
        std::fill(row, row + at, std::complex<float>(0.f, 0.f));
        try {  // the packet named only on failure: a string per line costs on this path
          decode_user_data(h, chosen->user_data(i), chosen->user_data_bytes(i), row + at, "");
        } catch (const Error& e) {
          throw Error(chosen->where(i) + e.what());
        }
        std::fill(row + at + h.samples(), row + d.samples, std::complex<float>(0.f, 0.f));
      }
    } catch (const Error& e) {
#pragma omp critical(sarfuse_level0_failure)
      if (failure.empty()) failure = e.what();
    }
  }
  if (!failure.empty()) throw Error(failure);
  d.decode_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string describe_level0(const std::string& product) {
  std::ostringstream s;
  for (const Measurement& m : list_measurements(product)) {
    const MeasurementFile f(m.path);
    std::map<std::string, std::size_t> signals, modes, pols;
    std::size_t min_q = SIZE_MAX, max_q = 0, missing = 0, gaps = 0;
    double t_first = 0, t_last = 0;
    for (std::size_t i = 0; i < f.packets(); ++i) {
      const PacketHeader& h = f.header(i);
      ++signals[to_string(static_cast<SignalType>(h.signal_type))];
      ++modes[to_string(static_cast<BaqMode>(h.baq_mode))];
      ++pols[line_polarisation(h)];
      min_q = std::min<std::size_t>(min_q, h.number_of_quads);
      max_q = std::max<std::size_t>(max_q, h.number_of_quads);
      const double t = h.coarse_time + (h.fine_time + 0.5) / 65536.0;
      if (i == 0) t_first = t;
      t_last = t;
      if (i > 0) {
        const std::uint32_t a = f.header(i - 1).space_packet_count, b = h.space_packet_count;
        if (b != a + 1) {
          ++gaps;
          missing += b > a ? b - a - 1 : 0;
        }
      }
    }
    auto list = [](const std::map<std::string, std::size_t>& c) {
      std::string out;
      for (const auto& [k, n] : c) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(n);
      return out;
    };
    s << m.path << ": Sentinel-1 Level-0 measurement, " << f.packets() << " packets";
    if (!m.swath.empty()) s << ", swath " << m.swath;
    s << "\n  signals: " << list(signals) << "\n  compression: " << list(modes) << "\n  polarisation: " << list(pols)
      << "\n  samples per line: " << 2 * min_q << (min_q == max_q ? "" : " .. " + std::to_string(2 * max_q))
      << "\n  packet counter gaps: " << gaps << " (" << missing << " packets missing)\n";
    char span[96];
    std::snprintf(span, sizeof span, "  time span: %.6f s (GPS seconds %.6f .. %.6f)\n", t_last - t_first, t_first, t_last);
    s << span;
  }
  return s.str();
}

}  // namespace sarfuse::sentinel1
