// `sarfuse bench level0`: decoding a Sentinel-1 Level-0 measurement file of real size, encoded by our
// own encoder (FDBAQ, bit-rate codes 0..4 in turn over the blocks, blocks of varying power), timed
// beside the machine's plain sequential read of the same file in the same run.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "bench.hpp"
#include "core/threads.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Reads the whole file with large sequential reads (the I/O floor of decoding it).
double plain_read_seconds(const std::string& path, std::vector<char>& buffer) {
  const auto t0 = Clock::now();
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError(path + ": cannot open");
  std::size_t sum = 0;
  for (ssize_t n; (n = read(fd, buffer.data(), buffer.size())) > 0;) sum += static_cast<std::size_t>(n) + buffer[0];
  close(fd);
  const double t = since(t0);
  if (sum == 0) throw Error(path + ": read nothing");
  return t;
}

}  // namespace

std::string bench_level0(const Level0BenchOptions& o) {
  using namespace sentinel1;
  if (o.lines < 1 || o.samples < 2 || o.samples % 2 != 0 || o.samples > 131070)
    throw Error("bench level0: --size: expected LINESxSAMPLES with an even sample count up to 131070");
  const bool own_dir = o.dir.empty();
  const std::string dir = own_dir ? (std::filesystem::temp_directory_path() / ("sarfuse_level0_" + std::to_string(getpid()))).string() : o.dir;
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/s1a-s3-raw-s-vv-bench.dat";
  // Distinct encoded lines (Gaussian samples, the RMS changing from block to block as over clutter),
  // repeated with their counters advanced: the file's size and content mix of a real stripmap take.
  constexpr std::size_t kDistinct = 64;
  const PacketHeader h = s3_echo_header();
  std::vector<std::vector<std::uint8_t>> packets(kDistinct);
  const auto te = Clock::now();
#pragma omp parallel for schedule(dynamic) num_threads(core::resolve_threads(o.threads))
  for (std::size_t i = 0; i < kDistinct; ++i) {
    std::mt19937_64 g(i + 1);
    std::normal_distribution<float> n;
    std::vector<std::complex<float>> x(o.samples);
    for (std::size_t k = 0; k < x.size(); ++k) {
      const float rms = 20.0f + 60.0f * static_cast<float>(((k / 256) * 7 + i) % 11) / 10.0f;
      x[k] = {rms * n(g), rms * n(g)};
    }
    EncodeOptions eo;
    eo.brc = -1;
    packets[i] = encode_packet(h, x.data(), x.size(), eo, nullptr);
  }
  const double encode_s = since(te);
  std::size_t file_bytes = 0;
  {
    std::ofstream f(path, std::ios::binary);
    for (std::size_t l = 0; l < o.lines; ++l) {
      std::vector<std::uint8_t>& p = packets[l % kDistinct];
      const std::uint32_t count = static_cast<std::uint32_t>(l);
      for (int b = 0; b < 4; ++b) p[29 + b] = static_cast<std::uint8_t>(count >> (24 - 8 * b));  // space packet count
      f.write(reinterpret_cast<const char*>(p.data()), static_cast<std::streamsize>(p.size()));
      file_bytes += p.size();
    }
    if (!f) throw FileError(path + ": cannot write the benchmark file");
  }
  std::vector<char> buffer(std::size_t{16} << 20);
  DecodeOptions d;
  d.threads = o.threads;
  (void)plain_read_seconds(path, buffer);  // warm the page cache for both
  // Into fresh memory (what one call costs: the kernel clears every page of the output first), then
  // into one DecodedLines reused (a take after another).
  std::vector<double> fresh_s;
  for (int r = 0; r < std::min(o.repeats, 3); ++r) {
    const auto t0 = Clock::now();
    const DecodedLines fresh = decode_lines(path, d);
    fresh_s.push_back(since(t0));
  }
  DecodedLines out;
  decode_lines(path, d, out);
  std::vector<double> read_s, total_s, decode_s;
  for (int r = 0; r < o.repeats; ++r) {
    read_s.push_back(plain_read_seconds(path, buffer));
    const auto t0 = Clock::now();
    decode_lines(path, d, out);
    total_s.push_back(since(t0));
    decode_s.push_back(out.decode_seconds);
  }
  const std::size_t lines = out.lines, samples = out.samples;
  if (own_dir) std::filesystem::remove_all(dir);
  const double gb = static_cast<double>(file_bytes) / 1e9;
  const double t_read = median(read_s), t_total = median(total_s), t_decode = median(decode_s), t_fresh = median(fresh_s);
  std::ostringstream s;
  char line[256];
  std::snprintf(line, sizeof line, "Level-0 FDBAQ file: %zu lines x %zu samples, %.3f GB (%.2f bits per I/Q value); %d threads\n",
                o.lines, o.samples, gb, 8.0 * static_cast<double>(file_bytes) / (2.0 * static_cast<double>(o.lines * o.samples)),
                core::resolve_threads(o.threads));
  s << line;
  std::snprintf(line, sizeof line, "  plain sequential read (page cache): %.3f s  %.2f GB/s\n", t_read, gb / t_read);
  s << line;
  std::snprintf(line, sizeof line, "  decode_lines, output reused:        %.3f s  %.2f GB/s  (%.2fx the read)\n", t_total,
                gb / t_total, t_total / t_read);
  s << line;
  std::snprintf(line, sizeof line, "  decode_lines, fresh output:         %.3f s  %.2f GB/s  (its pages cleared by the kernel)\n",
                t_fresh, gb / t_fresh);
  s << line;
  std::snprintf(line, sizeof line, "  of which decoding the user data:    %.3f s  %.2f GB/s   median of %d\n", t_decode,
                gb / t_decode, o.repeats);
  s << line;
  std::snprintf(line, sizeof line, "  (encoding %zu distinct lines: %.2f s; decoded %zu x %zu)\n", kDistinct, encode_s, lines, samples);
  s << line;
  if (!o.json_path.empty()) {
    nlohmann::json j = {{"lines", o.lines}, {"samples", o.samples}, {"file_bytes", file_bytes},
                        {"threads", core::resolve_threads(o.threads)}, {"plain_read_s", t_read},
                        {"decode_lines_s", t_total}, {"decode_lines_fresh_output_s", t_fresh}, {"decode_user_data_s", t_decode},
                        {"decode_gb_per_s", gb / t_total}, {"repeats", o.repeats}};
    std::ofstream(o.json_path) << j.dump(2) << "\n";
  }
  return s.str();
}

}  // namespace sarfuse
