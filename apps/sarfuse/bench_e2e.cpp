// `sarfuse bench e2e`: file to product as a user runs it (a `sarfuse focus` process per run, its wall
// from spawn to exit), beside the machine's plain I/O floor measured in the same run: the input's
// bytes read and the product's bytes written with large sequential reads and writes, then fsync.
#include "bench_e2e.hpp"

#include <fcntl.h>
#include <omp.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/params.hpp"
#include "sarfuse/sentinel1.hpp"

extern char** environ;

namespace sarfuse::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
constexpr std::size_t kIoChunk = std::size_t{64} << 20;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// A raw .npy of random non-zero samples: int8 I/Q (Na, Nr, 2) or complex64 (Na, Nr).
void write_raw(const std::string& path, std::size_t lines, std::size_t samples, bool int8) {
  const std::size_t values = lines * samples * 2;
  std::string descr = int8 ? "|i1" : "<c8";
  std::ostringstream shape;
  shape << "(" << lines << ", " << samples << (int8 ? ", 2)" : ")");
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape.str() + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  f.write(len, 2);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  std::vector<char> buf(kIoChunk);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  const std::size_t value_bytes = int8 ? 1 : 4;
  for (std::size_t done = 0; done < values * value_bytes;) {
    const std::size_t n = std::min(buf.size(), values * value_bytes - done);
    for (std::size_t k = 0; k < n; k += value_bytes) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      if (int8) {
        const int v = static_cast<int>((x >> 40) % 255) - 127;
        buf[k] = static_cast<char>(v == 0 ? 1 : v);
      } else {
        const float v = static_cast<float>(static_cast<std::int32_t>(x >> 32)) * 1e-9f + 1e-3f;
        std::memcpy(&buf[k], &v, 4);
      }
    }
    f.write(buf.data(), static_cast<std::streamsize>(n));
    done += n;
  }
  if (!f) throw FileError("bench e2e: cannot write '" + path + "'");
}

// A Sentinel-1 stripmap take (S3's radar fields, FDBAQ, a polar orbit in the sub-commutated PVT
// words) of random samples, made by our encoder: the Level-0 input a user focuses without parameters.
void write_level0(const std::string& path, std::size_t lines, std::size_t samples) {
  using namespace sentinel1;
  const PacketHeader h = s3_echo_header();
  const std::vector<PvtRecord> orbit = polar_orbit(packet_time_s(h), static_cast<double>(lines) * pri_s(h));
  ComplexImage raw(lines, samples);
#pragma omp parallel for schedule(static)
  for (std::size_t l = 0; l < lines; ++l) {
    std::uint64_t x = 0x9e3779b97f4a7c15ull ^ (l * 0xbf58476d1ce4e5b9ull);
    std::complex<float>* row = raw.row(l);
    for (std::size_t k = 0; k < samples; ++k) {
      float v[2];
      for (float& c : v) {  // a sum of four uniforms: near Gaussian, RMS about 40
        float sum = 0;
        for (int u = 0; u < 4; ++u) {
          x = x * 6364136223846793005ull + 1442695040888963407ull;
          sum += static_cast<float>(x >> 40) / 16777216.0f - 0.5f;
        }
        c = 70.0f * sum;
      }
      row[k] = {v[0], v[1]};
    }
  }
  write_measurement_file(path, raw, h, orbit, EncodeOptions{});
}

struct Floor {
  double read = 0, write = 0, sync = 0;
  double total() const { return read + write + sync; }
};

// Plain large sequential I/O: the input read, `bytes` written and synced to a file beside the outputs.
Floor io_floor(const std::string& input, const std::string& scratch, std::size_t bytes) {
  Floor f;
  std::vector<char> buf(kIoChunk);
  std::uint64_t x = 1;
  for (std::size_t k = 0; k < buf.size(); k += 8) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    std::memcpy(&buf[k], &x, 8);
  }
  auto t = Clock::now();
  int fd = ::open(input.c_str(), O_RDONLY);
  if (fd < 0) throw FileError("bench e2e: cannot read '" + input + "'");
  while (::read(fd, buf.data(), buf.size()) > 0) {
  }
  ::close(fd);
  f.read = since(t);
  t = Clock::now();
  fd = ::open(scratch.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw FileError("bench e2e: cannot write '" + scratch + "'");
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(buf.size(), bytes - done);
    if (::write(fd, buf.data(), n) != static_cast<ssize_t>(n)) throw FileError("bench e2e: write failed");
    done += n;
  }
  f.write = since(t);
  t = Clock::now();
  ::fsync(fd);
  ::close(fd);
  f.sync = since(t);
  fs::remove(scratch);
  return f;
}

// `bytes` written past the page cache (O_DIRECT, from page-aligned memory, 64 MiB a call) and synced,
// to a file beside the outputs: how long the disk takes a one-block CPU product written directly. -1
// where the file system has no direct I/O.
double direct_write_s(const std::string& scratch, std::size_t bytes) {
  AlignedBuffer<unsigned char> buf(kIoChunk);
  std::memset(buf.data(), 0x5a, kIoChunk);
  const int fd = ::open(scratch.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
  if (fd < 0) return -1;
  const auto t = Clock::now();
  bool ok = true;
  for (std::size_t done = 0; ok && done < bytes;) {
    const std::size_t n = std::min(kIoChunk, (bytes - done + 4095) / 4096 * 4096);
    ok = ::pwrite(fd, buf.data(), n, static_cast<off_t>(done)) == static_cast<ssize_t>(n);
    done += n;
  }
  ::fsync(fd);
  const double s = since(t);
  ::close(fd);
  fs::remove(scratch);
  return ok ? s : -1;
}

// What a new process pays the kernel to give it `bytes` of fresh (zeroed) memory, touched on `threads`
// threads (0: all): the CPU plan's scene, which it cannot focus without.
double fresh_pages_s(std::size_t bytes, int threads) {
  const auto t = Clock::now();
  AlignedBuffer<unsigned char> buffer(bytes);
  volatile unsigned char* p = buffer.data();
  const long pages = static_cast<long>(bytes / 4096);
#pragma omp parallel for num_threads(threads > 0 ? threads : omp_get_max_threads()) schedule(static)
  for (long k = 0; k < pages; ++k) p[static_cast<std::size_t>(k) * 4096] = 1;
  return since(t);
}

// Runs this executable with `args`; the wall time from spawn to exit.
double run_process(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  argv.push_back(const_cast<char*>(self.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  const auto t = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ) != 0)
    throw Error("bench e2e: cannot start " + self);
  int status = 0;
  waitpid(pid, &status, 0);
  const double wall = since(t);
  posix_spawn_file_actions_destroy(&actions);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw Error("bench e2e: `sarfuse focus` failed (see above)");
  return wall;
}

}  // namespace

std::string bench_e2e(const E2eBenchOptions& o) {
  if (o.input != "int8" && o.input != "c64" && o.input != "level0")
    throw Error("--input: expected int8, c64 or level0 (got '" + o.input + "')");
  const bool level0 = o.input == "level0";
  if (level0 && o.scenes != 1) throw Error("--input level0: one scene per run");
  if (o.output != "npy" && o.output != "h5" && o.output != "tif")
    throw Error("--output: expected npy, h5 or tif (got '" + o.output + "')");
  if (o.scenes < 1 || o.repeats < 1) throw Error("--scenes and --repeats: at least 1");
  const fs::path dir = o.dir.empty() ? fs::temp_directory_path() / ("sarfuse_e2e_" + std::to_string(::getpid())) : fs::path(o.dir);
  fs::create_directories(dir);
  // The benchmark radar: the demo's, squinted (every step runs), on a take of the size asked for.
  ParamsFile p = default_scene();
  p.radar.doppler_centroid_hz = 0.3 * p.radar.prf_hz;
  p.scene.reset();
  // Level-0: a .SAFE product as ESA ships it (manifest.safe naming the measurement file beside it).
  const fs::path safe = dir / "S1A_S3_RAW__0SSV_BENCH.SAFE";
  const std::string measurement = "s1a-s3-raw-s-vv-bench.dat";
  const std::string params = (dir / "params.json").string(),
                    raw = level0 ? (safe / measurement).string() : (dir / "raw.npy").string();
  write_text_file(params, to_json_text(p));
  if (level0) {
    fs::create_directories(safe);
    write_level0(raw, o.lines, o.samples);
    write_text_file((safe / "manifest.safe").string(),
                    "<?xml version=\"1.0\"?>\n<xfdu:XFDU xmlns:xfdu=\"urn:ccsds:schema:xfdu:1\"><dataObjectSection>"
                    "<dataObject ID=\"measurementData\"><byteStream><fileLocation locatorType=\"URL\" href=\"./" +
                        measurement + "\"/></byteStream></dataObject></dataObjectSection></xfdu:XFDU>\n");
  } else {
    write_raw(raw, o.lines, o.samples, o.input == "int8");
  }
  std::vector<std::string> inputs;  // what `focus` reads; the floor reads the raw bytes
  for (int k = 0; k < o.scenes; ++k) {
    if (level0) {
      inputs.push_back(safe.string());
      continue;
    }
    const fs::path in = dir / ("raw_" + std::to_string(k) + ".npy");
    fs::remove(in);
    fs::create_hard_link(raw, in);  // the same bytes under N names
    inputs.push_back(in.string());
  }
  // Level-0 input carries its own radar parameters (the Doppler centroid estimated, as a user gets it).
  std::vector<std::string> common = {"--backend", o.backend, "--azimuth", o.azimuth,
                                     "--sample-format", o.sample_format, "--compression", o.compression};
  if (!level0) common.insert(common.begin(), {"--params", params});
  if (o.threads) common.insert(common.end(), {"--threads", std::to_string(o.threads)});
  for (const std::string& a : o.extra) common.push_back(a);
  const fs::path out_dir = dir / "out";
  fs::create_directories(out_dir);
  const std::string product = (out_dir / ("slc." + o.output)).string(), report = (dir / "report.json").string();

  std::vector<double> walls, floors, focus_s;
  std::vector<Floor> floor_parts;
  nlohmann::json last_report;
  std::size_t product_bytes = 0;
  for (int rep = 0; rep < o.repeats; ++rep) {
    std::vector<std::string> args = {"focus"};
    if (o.scenes == 1) {
      args.push_back(inputs[0]);
      args.insert(args.end(), {"-o", product, "--report", report});
    } else {
      args.insert(args.end(), inputs.begin(), inputs.end());
      args.insert(args.end(), {"--output-dir", out_dir.string(), "--format", o.output});
    }
    // As the floor's file, the products start from nothing (replacing a file frees its blocks: not I/O).
    for (const auto& e : fs::directory_iterator(out_dir)) fs::remove(e.path());
    ::sync();
    args.insert(args.end(), common.begin(), common.end());
    walls.push_back(run_process(args));
    const std::string one = o.scenes == 1 ? product : (out_dir / ("raw_0." + o.output)).string();
    product_bytes = fs::file_size(one);
    if (o.scenes == 1) {
      last_report = nlohmann::json::parse(read_text_file(report));
      focus_s.push_back(last_report["timings_s"]["focus"]["total"].get<double>());
    }
    // The floor for the same bytes, right after: N scenes read and write N times as much.
    Floor f;
    for (int k = 0; k < o.scenes; ++k) {
      const Floor g = io_floor(level0 ? raw : inputs[static_cast<std::size_t>(k)], (dir / "floor.bin").string(), product_bytes);
      f.read += g.read;
      f.write += g.write;
      f.sync += g.sync;
    }
    floor_parts.push_back(f);
    floors.push_back(f.total());
  }
  const double wall = median(walls), floor = median(floors);
  // What any process pays before its first byte: start and exit (`sarfuse --help`), and with the GPU
  // the CUDA context (`sarfuse bench context`).
  std::vector<double> start_s, context_s;
  for (int k = 0; k < 3; ++k) {
    start_s.push_back(run_process({"--help"}));
    if (o.backend != "cpu") context_s.push_back(run_process({"bench", "context"}));
  }
  const std::size_t in_bytes = fs::file_size(raw);
  std::ostringstream s;
  char line[512];
  std::snprintf(line, sizeof line,
                "bench e2e: %zu x %zu %s -> .%s %s (compression %s), %s, %d scene(s), %d run(s), folder %s\n", o.lines,
                o.samples, o.input.c_str(), o.output.c_str(), o.sample_format.c_str(), o.compression.c_str(),
                o.backend.c_str(), o.scenes, o.repeats, dir.c_str());
  s << line;
  std::snprintf(line, sizeof line, "  input %.1f MB per scene, product %.1f MB per scene\n", in_bytes / 1e6, product_bytes / 1e6);
  s << line;
  if (o.scenes == 1) {
    const auto& t = last_report["timings_s"];
    s << "  stages of the last run (s; they overlap, so they add up to more than the wall):\n";
    for (const char* k : {"open", "read", "convert", "plan", "upload", "download", "encode", "write", "sync", "wall"}) {
      std::snprintf(line, sizeof line, "    %-9s %8.3f\n", k, t.value(k, 0.0));
      s << line;
    }
    std::snprintf(line, sizeof line, "    %-9s %8.3f  (%s)\n", "focus", t["focus"]["total"].get<double>(),
                  last_report["block_layout"]["summary"].get<std::string>().c_str());
    s << line;
    const auto& tl = last_report["timeline_s"];
    std::snprintf(line, sizeof line,
                  "  timeline (s from the call's start): first block read %.3f, plan ready %.3f, first block focused "
                  "%.3f, first rows written %.3f, last %.3f, done %.3f\n",
                  tl["first_block_read"].get<double>(), tl["plan_ready"].get<double>(),
                  tl["first_block_focused"].get<double>(), tl["first_rows_written"].get<double>(), tl["last_rows_written"].get<double>(), tl["done"].get<double>());
    s << line;
    if (tl.contains("blocks"))
      for (std::size_t k = 0; k < tl["blocks"].size(); ++k) {
        const auto& b = tl["blocks"][k];
        auto from = [&](const char* stage) { return b[stage][0].get<double>(); };
        auto to = [&](const char* stage) { return b[stage][1].get<double>(); };
        const auto& st = b["steps"];
        std::snprintf(line, sizeof line,
                      "    block %zu: read %.3f-%.3f, focus %.3f-%.3f (up %.4f rc %.4f az %.4f rd %.4f iaz %.4f down %.4f), "
                      "write %.3f-%.3f\n",
                      k, from("read"), to("read"), from("focus"), to("focus"), st["upload"].get<double>(),
                      st["range_compression"].get<double>(), st["azimuth_fft"].get<double>(),
                      st["range_doppler"].get<double>(), st["azimuth_ifft"].get<double>(), st["download"].get<double>(),
                      from("write"), to("write"));
        s << line;
      }
  }
  std::snprintf(line, sizeof line, "  process start+exit %.3f s; with a CUDA context %.3f s (medians of 3)\n", median(start_s),
                context_s.empty() ? 0.0 : median(context_s));
  s << line;
  const Floor& fm = floor_parts[static_cast<std::size_t>(std::min_element(floors.begin(), floors.end()) - floors.begin())];
  std::snprintf(line, sizeof line,
                "  process wall %.3f s (median; runs:", wall);
  s << line;
  for (double w : walls) {
    std::snprintf(line, sizeof line, " %.3f", w);
    s << line;
  }
  std::snprintf(line, sizeof line,
                ")\n  I/O floor    %.3f s (median; fastest: read %.3f + write %.3f + fsync %.3f)\n  ratio        %.2fx the floor; "
                "throughput %.0f MB/s of product (floor %.0f MB/s)\n",
                floor, fm.read, fm.write, fm.sync, wall / floor, o.scenes * product_bytes / 1e6 / wall,
                o.scenes * product_bytes / 1e6 / floor);
  s << line;
  // What no pipeline hides from one scene's process: its start and exit (with the GPU: and its CUDA
  // context), on the CPU the fresh pages of the plan's scene and the product's pages, and the disk's
  // flush of the product's bytes (the floor's fsync; with one block the rows are final only when the
  // last is focused).
  double fresh = 0;
  if (o.scenes == 1 && o.backend == "cpu") {
    const auto& b = last_report["block_layout"];
    std::vector<double> v;
    for (int k = 0; k < 3; ++k)
      v.push_back(fresh_pages_s(b["block_lines"].get<std::size_t>() * b["range_fft_size"].get<std::size_t>() * 8, o.threads));
    fresh = median(v);
  }
  const double started = context_s.empty() ? median(start_s) : median(context_s);
  // On the CPU the product's bytes entering the page cache (the floor's write) are CPU work too, on
  // cores the focusing keeps busy; on the GPU the host's cores are free to do it while the device works.
  // A product written directly skips the page cache: its disk time is then the direct write's.
  double direct = -1;
  if (o.scenes == 1 && last_report.value("slc_transfer", std::string()).find("written directly") != std::string::npos) {
    std::vector<double> v;
    for (int k = 0; k < 3; ++k) v.push_back(direct_write_s((dir / "floor_direct.bin").string(), product_bytes));
    direct = median(v);
  }
  const double product_pages = direct < 0 && o.scenes == 1 && o.backend == "cpu" ? fm.write : 0.0;
  const double product_disk = direct < 0 ? fm.sync : direct;
  const double fixed = started + fresh + product_pages + product_disk;
  const double focus = focus_s.empty() ? 0.0 : median(focus_s);
  if (direct < 0)
    std::snprintf(line, sizeof line,
                  "  fixed per process %.3f s (%s %.3f + fresh pages of the plan's scene %.3f + product into the page "
                  "cache %.3f + product fsync %.3f): wall / floor >= %.2f",
                  fixed, context_s.empty() ? "start+exit" : "start+exit with a CUDA context", started, fresh,
                  product_pages, fm.sync, fixed / floor);
  else
    std::snprintf(line, sizeof line,
                  "  fixed per process %.3f s (%s %.3f + fresh pages of the plan's scene %.3f + product to the disk, "
                  "direct, %.3f): wall / floor >= %.2f",
                  fixed, context_s.empty() ? "start+exit" : "start+exit with a CUDA context", started, fresh, direct,
                  fixed / floor);
  s << line;
  if (o.scenes == 1 && focus > 0) {
    std::snprintf(line, sizeof line, "; wall / focus %.2f (median focus %.3f s) >= %.2f", wall / focus, focus,
                  (focus + fixed) / focus);
    s << line;
  }
  s << "\n";
  if (!o.json_path.empty()) {
    nlohmann::json j = {{"lines", o.lines},         {"samples", o.samples},           {"input", o.input},
                        {"output", o.output},       {"sample_format", o.sample_format}, {"compression", o.compression},
                        {"backend", o.backend},     {"azimuth", o.azimuth},           {"scenes", o.scenes},
                        {"walls_s", walls},         {"floors_s", floors},             {"focus_s", focus_s},             {"wall_s", wall},
                        {"floor_s", floor},         {"ratio", wall / floor},          {"input_bytes", in_bytes},
                        {"product_bytes", product_bytes}, {"process_start_s", median(start_s)},
                        {"process_with_cuda_context_s", context_s.empty() ? 0.0 : median(context_s)},
                        {"fresh_pages_s", fresh},           {"product_pages_s", product_pages},
                        {"product_direct_write_s", direct},
                        {"fixed_per_process_s", fixed}};
    if (o.scenes == 1) j["report"] = last_report;
    write_text_file(o.json_path, j.dump(2) + "\n");
  }
  if (o.dir.empty()) fs::remove_all(dir);
  return s.str();
}

}  // namespace sarfuse::cli
