// The CLI end to end: outputs of each sub-command, and for bad input one clear message, exit code 2
// and no output file left behind (a previous file at the path untouched).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gdal.h>
#include <hdf5.h>

#include <nlohmann/json.hpp>

#include "sarfuse/blocks.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/params.hpp"
#include "sarfuse/plan.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace sarfuse;

namespace {

struct Result {
  int code;
  std::string out, err;
};

std::string slurp(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class Cli : public ::testing::Test {
 protected:
  std::string dir = test::temp_dir("cli");
  void TearDown() override { fs::remove_all(dir); }

  Result run(const std::string& args) {
    const std::string cmd = test::env_or("SARFUSE_TEST_CLI", SARFUSE_CLI) + " " + args + " >" + dir + "/stdout 2>" + dir + "/stderr";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir + "/stdout"), slurp(dir + "/stderr")};
  }
  std::string path(const std::string& name) const { return dir + "/" + name; }

  // A small valid scene (64 x 128) and its raw data.
  void small_scene() {
    ParamsFile p = default_scene();
    p.radar.pulse_duration_s = 0.4e-6;  // 49 samples
    p.scene->azimuth_lines = 64;
    p.scene->range_samples = 128;
    p.scene->aperture_s = 0.05;
    p.scene->targets = {{9360.0 + 64 * p.radar.range_spacing_m(), 0.0, 1.0, 0.0}};
    write_text_file(path("scene.json"), to_json_text(p));
    ASSERT_EQ(run("simulate " + path("scene.json") + " -o " + path("raw.npy")).code, 0);
  }
  void write_npy(const std::string& name, const std::string& descr, const std::string& shape, const std::string& data) {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h.push_back('\n');
    std::ofstream f(path(name), std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    f.put(static_cast<char>(h.size() & 0xff));
    f.put(static_cast<char>(h.size() >> 8));
    f << h << data;
  }
  // Expects exit 2, `message` in stderr, and `output` absent afterwards.
  void expect_failure(const std::string& args, const std::string& message, const std::string& output) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "stderr: " << r.err << "\nexpected: " << message;
    EXPECT_FALSE(fs::exists(output)) << output << " left behind by: " << args;
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "temporary file left: " << e.path();
  }
};

}  // namespace

TEST_F(Cli, SimulateFocusAnalyzeCompareInfo) {
  small_scene();
  Result r = run("focus --azimuth circular " + path("raw.npy") + " --params " + path("scene.json") + " -o " + path("slc.npy") +
                 " --png " + path("slc.png") + " --threads 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("slc.png")));
  const std::string side = slurp(path("slc.npy.json"));
  for (const char* key : {"eta_first_s", "range_of_column_0_m", "range_pixel_spacing_m", "fully_compressed_columns",
                          "doppler_centroid_hz", "rcmc_taps", "carrier_frequency_hz"})
    EXPECT_NE(side.find(key), std::string::npos) << key;
  r = run("analyze " + path("slc.npy") + " --params " + path("scene.json") + " --report " + path("report.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("rg_PSLR"), std::string::npos);
  EXPECT_NE(slurp(path("report.json")).find("\"pslr_db\""), std::string::npos);
  r = run("analyze " + path("slc.npy") + " --params " + path("scene.json") + " --peaks 1");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(run("focus --azimuth circular " + path("raw.npy") + " --params " + path("scene.json") + " -o " + path("ref.npy") +
                " --precision fp64").code, 0);
  r = run("compare " + path("slc.npy") + " " + path("ref.npy") + " --params " + path("scene.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("relative L2 error"), std::string::npos);
  EXPECT_NE(r.out.find("dSNR"), std::string::npos);
  r = run("info " + path("slc.npy") + " " + path("scene.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("shape (64, 128)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("replica 49 samples"), std::string::npos) << r.out;
}

// SIGINT / SIGTERM during a long run: stops within a second, exit 128 + signal, no output and no
// temporary left, and a previous product at the output path untouched.
TEST_F(Cli, SignalsStopCleanly) {
  small_scene();
  const std::string cli = test::env_or("SARFUSE_TEST_CLI", SARFUSE_CLI);
  {  // A large raw file (zeros are valid samples): 4096 x 8192 complex64.
    const std::size_t na = 4096, nr = 8192;
    write_npy("big.npy", "<c8", "(" + std::to_string(na) + ", " + std::to_string(nr) + ")", std::string(na * nr * 8, '\0'));
  }
  struct Run {
    std::vector<std::string> args;
    int signal;
    std::string output;
  };
  write_text_file(path("previous.npy"), "previous product");
  ParamsFile big = load_params(path("scene.json"));
  big.scene->azimuth_lines = 8192;
  big.scene->range_samples = 8192;
  write_text_file(path("big_scene.json"), to_json_text(big));
  const Run runs[] = {
      // One thread each, so the runs last seconds on any machine (a 16-core one finished in 0.6 s).
      {{"focus", "--azimuth", "circular", path("big.npy"), "--params", path("scene.json"), "-o", path("previous.npy"), "--backend", "cpu",
        "--threads", "1"},
       SIGINT, path("previous.npy")},
      {{"simulate", path("big_scene.json"), "-o", path("sim.npy"), "--threads", "1"}, SIGTERM, path("sim.npy")},
  };
  for (const Run& r : runs) {
    SCOPED_TRACE(r.args[0]);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::vector<char*> argv{const_cast<char*>(cli.c_str())};
      for (const auto& a : r.args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      freopen("/dev/null", "w", stdout);
      freopen((dir + "/signal_stderr").c_str(), "w", stderr);
      execv(cli.c_str(), argv.data());
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // started (handlers installed), not done
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "finished before the signal: make the run longer";
    const auto t0 = std::chrono::steady_clock::now();
    kill(pid, r.signal);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 128 + r.signal) << slurp(dir + "/signal_stderr");
    EXPECT_LT(stop_s, 1.0);
    EXPECT_NE(slurp(dir + "/signal_stderr").find("stopped"), std::string::npos) << slurp(dir + "/signal_stderr");
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "temporary file left: " << e.path();
    std::printf("%s stopped %.3f s after %s\n", r.args[0].c_str(), stop_s, r.signal == SIGINT ? "SIGINT" : "SIGTERM");
  }
  EXPECT_EQ(slurp(path("previous.npy")), "previous product");
  EXPECT_FALSE(fs::exists(path("sim.npy")));
}

// A take far longer than the memory budget: focused in azimuth blocks (--max-memory), the input read
// block by block, the product written row by row; equal to the same take focused as one block, with
// the host memory the budget allows (peak RSS from the report), the grid in the sidecar and in HDF5.
TEST_F(Cli, LongTakeInBlocksWithBoundedMemory) {
  ParamsFile p = default_scene();  // airborne X band, 600 Hz PRF, 2 m antenna
  p.radar.pulse_duration_s = 1e-6;
  p.scene->azimuth_lines = 16384;
  p.scene->range_samples = 1024;
  p.scene->aperture_s.reset();  // the antenna pattern
  p.scene->snr_db = 30;
  p.scene->targets.clear();
  for (int k = -10; k <= 10; ++k) p.scene->targets.push_back({9360.0 + 40.0 + 6.0 * (k + 10), k * 1.2, 1.0, 0.3 * k});
  write_text_file(path("long.json"), to_json_text(p));
  ASSERT_EQ(run("simulate " + path("long.json") + " -o " + path("long.npy")).code, 0);  // 128 MiB complex64
  const std::string base = "focus " + path("long.npy") + " --params " + path("long.json") + " --backend cpu --threads 2";
  // One block for the whole take (without a budget focus would pick several, to overlap its stages).
  const std::size_t whole = plan_azimuth_blocks(p.radar, 16384, 1024, FocusOptions{}).block_lines;
  Result r = run(base + " --block-lines " + std::to_string(whole) + " -o " + path("one.npy") + " --report " + path("one.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  r = run(base + " --max-memory 96MiB -o " + path("blocks.h5") + " --report " + path("blocks.json") + " --png " +
          path("blocks.png"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto one = nlohmann::json::parse(slurp(path("one.json"))), blocks = nlohmann::json::parse(slurp(path("blocks.json")));
  const auto& lay = blocks["block_layout"];
  std::printf("one block: %s\nblocks: %s\npeak host memory %.0f MiB (one block) vs %.0f MiB (96 MiB budget)\n",
              one["block_layout"]["summary"].get<std::string>().c_str(), lay["summary"].get<std::string>().c_str(),
              one["peak_host_memory_bytes"].get<double>() / 1048576, blocks["peak_host_memory_bytes"].get<double>() / 1048576);
  EXPECT_EQ(one["block_layout"]["blocks"], 1);
  EXPECT_GE(lay["blocks"].get<int>(), 4);
  EXPECT_TRUE(lay["input_streamed"].get<bool>());
  EXPECT_EQ(lay["product_rows"], one["block_layout"]["product_rows"]);
  // The budget holds, plus what it does not cover: the executable and its libraries (44 MiB resident
  // with the CUDA libraries linked), the HDF5 chunk cache, the quicklook, the allocator's slack.
  // The budget covers the plan and the pipeline's four block buffers (two raw, two SLC); not the
  // executable and its libraries (44 MiB resident with the CUDA libraries linked), the quicklook's
  // image, the HDF5 chunk strip, the threads' allocator arenas (more with more cores). Measured: 165 MiB
  // with the 96 MiB budget on 2 cores, 194 MiB on 16.
#ifdef __SANITIZE_ADDRESS__
  std::printf("memory bounds not checked: AddressSanitizer's shadow memory and quarantine inflate the RSS\n");
#else
  EXPECT_LT(blocks["peak_host_memory_bytes"].get<double>(), (96.0 + 128.0) * 1048576);
  EXPECT_GT(one["peak_host_memory_bytes"].get<double>(), 2.2 * blocks["peak_host_memory_bytes"].get<double>());
#endif
  // Same product, on the same zero-Doppler grid.
  const ComplexImage a = read_image(path("one.npy"));
  EXPECT_EQ(a.lines(), lay["product_rows"].get<std::size_t>());
  const double eta_first = lay["eta_first_s"].get<double>();
  EXPECT_EQ(*read_sidecar_eta_first(path("one.npy")), eta_first);
  EXPECT_EQ(nlohmann::json::parse(slurp(path("one.npy.json")))["processing"]["azimuth_processing"], "linear");
  std::vector<std::complex<float>> b(a.size());
  {
    hid_t f = H5Fopen(path("blocks.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    hid_t d = H5Dopen2(f, "slc", H5P_DEFAULT);
    hid_t t = H5Tcreate(H5T_COMPOUND, 8);
    H5Tinsert(t, "r", 0, H5T_NATIVE_FLOAT);
    H5Tinsert(t, "i", 4, H5T_NATIVE_FLOAT);
    ASSERT_GE(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, b.data()), 0);
    double eta0 = 0;
    hid_t axis = H5Dopen2(f, "azimuth_time_s", H5P_DEFAULT);
    hid_t one_space = H5Screate_simple(1, std::array<hsize_t, 1>{1}.data(), nullptr);
    hid_t file_space = H5Dget_space(axis);
    const hsize_t start[1] = {0}, count[1] = {1};
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    H5Dread(axis, H5T_NATIVE_DOUBLE, one_space, file_space, H5P_DEFAULT, &eta0);
    EXPECT_EQ(eta0, eta_first);
    H5Sclose(file_space);
    H5Sclose(one_space);
    H5Dclose(axis);
    H5Tclose(t);
    H5Dclose(d);
    H5Fclose(f);
  }
  double err = 0, norm = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    err += std::norm(std::complex<double>(b[k]) - std::complex<double>(a.data()[k]));
    norm += std::norm(std::complex<double>(a.data()[k]));
  }
  std::printf("blocks vs one block: relative L2 %.2e\n", std::sqrt(err / norm));
  EXPECT_LT(std::sqrt(err / norm), 1e-5);
  EXPECT_TRUE(fs::exists(path("blocks.png")));
}

// Product formats by extension: GeoTIFF (GDAL) and HDF5 hold the same complex samples as the .npy,
// with the parameters as metadata; detected + multilooked products; gdalinfo / h5dump open them.
TEST_F(Cli, ProductFormats) {
  small_scene();
  const std::string base = "focus --azimuth circular " + path("raw.npy") + " --params " + path("scene.json") + " --backend cpu -o ";
  for (const char* f : {"slc.npy", "slc.tif", "slc.h5", "amp.tif", "db.h5", "int.npy"}) {
    std::string extra;
    if (std::string(f) == "amp.tif") extra = " --detect amplitude --multilook 4x2";
    if (std::string(f) == "db.h5") extra = " --detect db";
    if (std::string(f) == "int.npy") extra = " --detect intensity --multilook 2x2";
    const Result r = run(base + path(f) + extra);
    ASSERT_EQ(r.code, 0) << f << ": " << r.err;
  }
  const ComplexImage ref = read_image(path("slc.npy"));
  {  // GeoTIFF through GDAL
    GDALAllRegister();
    GDALDatasetH ds = GDALOpen(path("slc.tif").c_str(), GA_ReadOnly);
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(GDALGetRasterXSize(ds), static_cast<int>(ref.samples()));
    EXPECT_EQ(GDALGetRasterYSize(ds), static_cast<int>(ref.lines()));
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    EXPECT_EQ(GDALGetRasterDataType(b), GDT_CFloat32);
    std::vector<std::complex<float>> v(ref.size());
    ASSERT_EQ(GDALRasterIO(b, GF_Read, 0, 0, int(ref.samples()), int(ref.lines()), v.data(), int(ref.samples()),
                           int(ref.lines()), GDT_CFloat32, 0, 0), CE_None);
    EXPECT_EQ(std::memcmp(v.data(), ref.data(), ref.size() * 8), 0);
    const char* prf = GDALGetMetadataItem(ds, "SARFUSE_radar.prf_hz", nullptr);
    ASSERT_NE(prf, nullptr);
    EXPECT_EQ(std::stod(prf), 600.0);
    GDALClose(ds);
    ds = GDALOpen(path("amp.tif").c_str(), GA_ReadOnly);
    ASSERT_NE(ds, nullptr);
    EXPECT_EQ(GDALGetRasterYSize(ds), static_cast<int>(ref.lines() / 4));
    EXPECT_EQ(GDALGetRasterXSize(ds), static_cast<int>(ref.samples() / 2));
    float px = 0;
    ASSERT_EQ(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 3, 5, 1, 1, &px, 1, 1, GDT_Float32, 0, 0), CE_None);
    double p = 0;
    for (int a = 0; a < 4; ++a)
      for (int r = 0; r < 2; ++r) p += std::norm(ref(5 * 4 + a, 3 * 2 + r));
    EXPECT_NEAR(px, std::sqrt(p / 8), 1e-5 * std::sqrt(p / 8));
    GDALClose(ds);
  }
  {  // HDF5: compound {r, i} complex64, attributes and axes
    hid_t f = H5Fopen(path("slc.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    hid_t d = H5Dopen2(f, "slc", H5P_DEFAULT);
    ASSERT_GE(d, 0);
    hid_t t = H5Tcreate(H5T_COMPOUND, 8);
    H5Tinsert(t, "r", 0, H5T_NATIVE_FLOAT);
    H5Tinsert(t, "i", 4, H5T_NATIVE_FLOAT);
    std::vector<std::complex<float>> v(ref.size());
    ASSERT_GE(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    EXPECT_EQ(std::memcmp(v.data(), ref.data(), ref.size() * 8), 0);
    double prf = 0;
    hid_t a = H5Aopen(d, "radar.prf_hz", H5P_DEFAULT);
    ASSERT_GE(a, 0);
    H5Aread(a, H5T_NATIVE_DOUBLE, &prf);
    EXPECT_EQ(prf, 600.0);
    H5Aclose(a);
    hid_t ax = H5Dopen2(f, "slant_range_m", H5P_DEFAULT);
    ASSERT_GE(ax, 0);
    std::vector<double> rg(ref.samples());
    H5Dread(ax, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rg.data());
    const RadarParams radar = load_params(path("scene.json")).radar;
    EXPECT_NEAR(rg[10], radar.range_of_column(10), 1e-6);
    H5Dclose(ax);
    H5Tclose(t);
    H5Dclose(d);
    H5Fclose(f);
  }
  {  // intensity .npy, 2x2 looks: a float32 array of the mean power
    const std::string bytes = slurp(path("int.npy"));
    EXPECT_NE(bytes.find("'<f4'"), std::string::npos);
    EXPECT_NE(bytes.find("(" + std::to_string(ref.lines() / 2) + ", " + std::to_string(ref.samples() / 2) + ")"),
              std::string::npos);
  }
  if (std::system("command -v gdalinfo >/dev/null 2>&1") == 0)
    EXPECT_EQ(std::system(("gdalinfo " + path("slc.tif") + " >/dev/null 2>&1").c_str()), 0);
  if (std::system("command -v h5dump >/dev/null 2>&1") == 0)
    EXPECT_EQ(std::system(("h5dump -H " + path("slc.h5") + " >/dev/null 2>&1").c_str()), 0);
  expect_failure(base + path("x.png"), "unknown product format '.png'", path("x.png"));
  expect_failure(base + path("x.npy") + " --multilook 2x2", "--multilook applies to detected products", path("x.npy"));
  expect_failure(base + path("x.npy") + " --detect phase", "--detect: expected none", path("x.npy"));
}

// Corrections and the processing report: gains from a text column, DC offset and I/Q imbalance
// removed from int8 data, the report's sections and the point-target analysis of the scene's target.
TEST_F(Cli, CorrectionsAndReport) {
  small_scene();
  const ComplexImage clean = read_image(path("raw.npy"));
  // int8 I/Q with a DC offset (+3, -2) and Q 1.5x too strong; gains: 6 dB on every line, as text.
  std::string iq(clean.size() * 2, '\0');
  double scale = 0;
  for (std::size_t k = 0; k < clean.size(); ++k) scale = std::max({scale, std::abs(double(clean.data()[k].real())), std::abs(double(clean.data()[k].imag()))});
  for (std::size_t k = 0; k < clean.size(); ++k) {
    iq[2 * k] = static_cast<char>(std::lround(clean.data()[k].real() / scale * 60) + 3);
    iq[2 * k + 1] = static_cast<char>(std::lround(clean.data()[k].imag() / scale * 60 * 1.5) - 2);
  }
  write_npy("iq.npy", "|i1", "(64, 128, 2)", iq);
  std::string gains = "# dB per line\n";
  for (int i = 0; i < 64 + 5; ++i) gains += "6.0\n";
  write_text_file(path("gains.txt"), gains);
  const Result r = run("focus --azimuth circular " + path("iq.npy") + " --params " + path("scene.json") + " -o " + path("c.npy") +
                       " --backend cpu --dc-offset --iq-balance --gain-db " + path("gains.txt") +
                       " --gain-first-line 3 --range-spreading --report " + path("report.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string rep = slurp(path("report.json"));
  for (const char* key : {"\"corrections\"", "\"dc_i\"", "\"q_over_i_rms\"", "\"timings_s\"", "\"block_layout\"",
                          "\"output_statistics\"", "\"point_targets\"", "\"parameters_given\"", "\"range_compression\""})
    EXPECT_NE(rep.find(key), std::string::npos) << key;
  EXPECT_NE(r.out.find("processing report"), std::string::npos) << r.out;
  // The offsets and the imbalance were measured (the simulated data are zero-mean and balanced).
  // The report's offsets and RMS ratio are those of the int8 data written (computed here in double).
  double si = 0, sq = 0, pi = 0, pq = 0;
  const std::size_t n = clean.size();
  for (std::size_t k = 0; k < n; ++k) {
    si += static_cast<signed char>(iq[2 * k]);
    sq += static_cast<signed char>(iq[2 * k + 1]);
  }
  si /= n;
  sq /= n;
  for (std::size_t k = 0; k < n; ++k) {
    pi += std::pow(static_cast<signed char>(iq[2 * k]) - si, 2);
    pq += std::pow(static_cast<signed char>(iq[2 * k + 1]) - sq, 2);
  }
  const auto j = nlohmann::json::parse(rep);
  EXPECT_NEAR(j["corrections"]["dc_i"].get<double>(), si, 1e-4) << j["corrections"].dump();
  EXPECT_NEAR(j["corrections"]["dc_q"].get<double>(), sq, 1e-4);
  EXPECT_NEAR(j["corrections"]["q_over_i_rms"].get<double>(), std::sqrt(pq / pi), 1e-4);
  EXPECT_GT(std::sqrt(pq / pi), 1.3);  // the 1.5x imbalance put in
  EXPECT_EQ(j["point_targets"].size(), 1u);
  write_text_file(path("short.txt"), "1\n2\n");
  expect_failure("focus --azimuth circular " + path("iq.npy") + " --params " + path("scene.json") + " -o " + path("d.npy") + " --gain-db " +
                     path("short.txt"),
                 "2 gains; lines 1..64 are needed", path("d.npy"));
}

TEST_F(Cli, Demo) {
  const Result r = run("demo --out " + path("demo"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"raw.npy", "slc.npy", "slc.npy.json", "slc.png", "report.json", "scene.json"})
    EXPECT_TRUE(fs::exists(path("demo/") + f)) << f;
  EXPECT_NE(r.out.find("az_PSLR"), std::string::npos);
}

// Every bad input the CLI is known to meet: one clear message (naming the file/field and what was
// expected), exit code 2, no output file and no temporary left. docs/reliability.md lists each case by
// its id; the test checks that too.
TEST_F(Cli, BadInputsFailCleanly) {
  small_scene();
  const std::string scene = path("scene.json"), raw = path("raw.npy"), out = path("out.npy");
  const std::string focus_to_out = " --params " + scene + " -o " + out;
  const std::string corpus = test::source_dir() + "/tests/fuzz/corpus";
  struct Case {
    std::string id, args, message, output;
  };
  std::vector<Case> cases;
  auto focus_raw = [&](const std::string& id, const std::string& file, const std::string& message) {
    cases.push_back({id, "focus --azimuth circular " + path(file) + focus_to_out, message, out});
  };
  std::string text = slurp(scene);
  auto params_with = [&](const std::string& name, const std::string& a, const std::string& b) {
    std::string t = text;
    t.replace(t.find(a), a.size(), b);
    write_text_file(path(name), t);
    return path(name);
  };
  auto focus_params = [&](const std::string& id, const std::string& params, const std::string& message) {
    cases.push_back({id, "focus --azimuth circular " + raw + " --params " + params + " -o " + out, message, out});
  };

  // Raw data files.
  focus_raw("raw-missing", "nope.npy", "nope.npy: no such file");
  write_npy("f4.npy", "<f4", "(4, 4)", std::string(64, '\0'));
  focus_raw("npy-dtype-float32", "f4.npy", "dtype '<f4' not supported");
  write_npy("short.npy", "<c8", "(64, 128)", std::string(100, '\0'));
  focus_raw("npy-truncated-data", "short.npy", "truncated: shape (64, 128) needs 65536 bytes");
  write_text_file(path("hdr.npy"), std::string("\x93NUMPY\x01\x00\x76\x00{'descr'", 17));
  focus_raw("npy-truncated-header", "hdr.npy", "truncated .npy header");
  write_text_file(path("magic.npy"), "PK\x03\x04 this is a zip archive, not an array");
  focus_raw("npy-bad-magic", "magic.npy", "not a .npy file");
  write_text_file(path("empty.npy"), "");
  focus_raw("npy-empty-file", "empty.npy", "not a .npy file");
  {
    std::string v = slurp(raw);
    v[6] = 9;
    write_text_file(path("v9.npy"), v);
  }
  focus_raw("npy-unknown-version", "v9.npy", "format version 9");
  {
    std::string v = slurp(raw);
    v.replace(v.find("False"), 5, "True ");
    write_text_file(path("fortran.npy"), v);
  }
  focus_raw("npy-fortran-order", "fortran.npy", "Fortran-ordered array");
  write_npy("be.npy", ">c8", "(64, 128)", std::string(64 * 128 * 8, '\0'));
  focus_raw("npy-big-endian", "be.npy", "big-endian");
  write_npy("iq3.npy", "|i1", "(64, 128, 3)", std::string(64 * 128 * 3, '\1'));
  focus_raw("npy-iq-last-dim", "iq3.npy", "expected (Na, Nr, 2)");
  write_npy("oned.npy", "<c8", "(128,)", std::string(128 * 8, '\0'));
  focus_raw("npy-one-dimensional", "oned.npy", "expected (Na, Nr)");
  write_npy("huge.npy", "<c8", "(4000000000, 4000000000)", std::string(64, '\0'));
  focus_raw("npy-huge-shape", "huge.npy", "implausibly large");
  {
    std::string d(64 * 128 * 8, '\0');
    const float nan = std::nanf(""), inf = INFINITY;
    std::memcpy(&d[8 * 130], &nan, 4);
    write_npy("nan.npy", "<c8", "(64, 128)", d);
    d.assign(64 * 128 * 8, '\0');
    std::memcpy(&d[8 * 129 + 4], &inf, 4);
    write_npy("inf.npy", "<c8", "(64, 128)", d);
  }
  focus_raw("sample-nan", "nan.npy", "sample (1, 2) is NaN");
  focus_raw("sample-inf", "inf.npy", "sample (1, 1) is");
  write_npy("tiny.npy", "<c8", "(64, 16)", std::string(64 * 16 * 8, '\1'));
  focus_raw("pulse-longer-than-record", "tiny.npy", "longer than the record (16 range samples)");
  write_text_file(path("raw.txt"), "1 2 3");
  focus_raw("raw-unknown-format", "raw.txt", "unknown raw format '.txt'");
  write_text_file(path("junk.mat"), std::string(200, 'x'));
  focus_raw("mat-not-matlab", "junk.mat", "not a MATLAB v5 .mat file");
  fs::copy_file(corpus + "/mat/single.mat", path("single.mat"));
  cases.push_back({"mat-missing-variable", "focus --azimuth circular " + path("single.mat") + " --var nope" + focus_to_out,
                   "no variable 'nope'", out});
  fs::copy_file(corpus + "/mat/real_only.mat", path("real.mat"));
  cases.push_back({"mat-real-variable", "focus --azimuth circular " + path("real.mat") + " --var data" + focus_to_out,
                   "is real; expected complex samples", out});
  cases.push_back({"var-on-npy", "focus --azimuth circular " + raw + " --var data" + focus_to_out, "--var applies to .mat files only", out});

  // Parameters files.
  focus_params("params-missing", path("nope.json"), "nope.json: no such file");
  focus_params("params-field-missing", params_with("noprf.json", "\"prf_hz\"", "\"prf_hz_typo\""),
               "radar.prf_hz: missing");
  focus_params("params-negative-prf", params_with("negprf.json", "\"prf_hz\": 600", "\"prf_hz\": -600"),
               "radar.prf_hz: must be > 0");
  focus_params("params-zero-sampling-rate",
               params_with("zerofs.json", "\"range_sampling_rate_hz\": ", "\"range_sampling_rate_hz\": 0, \"x\": "),
               "range_sampling_rate_hz: must be > 0");
  focus_params("params-wrong-type", params_with("strprf.json", "\"prf_hz\": ", "\"prf_hz\": \"fast\", \"x\": "),
               "radar.prf_hz");
  focus_params("params-number-overflow",
               params_with("hugeprf.json", "\"prf_hz\": ", "\"prf_hz\": 4e1256, \"x\": "), "not valid JSON");
  write_text_file(path("broken.json"), "{ \"radar\": ");
  focus_params("params-not-json", path("broken.json"), "not valid JSON");
  write_text_file(path("array.json"), "[1, 2, 3]");
  focus_params("params-not-object", path("array.json"), "array.json");
  focus_params("params-pulse-beyond-sampling",
               params_with("bigk.json", "\"chirp_rate_hz_per_s\": ", "\"chirp_rate_hz_per_s\": 1e18, \"x\": "),
               "chirp_rate_hz_per_s");

  // Options.
  cases.push_back({"option-window", "focus --azimuth circular " + raw + focus_to_out + " --range-window blackman", "expected none, hamming", out});
  cases.push_back({"option-rcmc-taps", "focus --azimuth circular " + raw + focus_to_out + " --rcmc-taps 7", "--rcmc-taps", out});
  cases.push_back({"option-unknown", "focus --azimuth circular " + raw + focus_to_out + " --no-such-option", "no-such-option", out});
  cases.push_back({"option-pipeline", "focus --azimuth circular " + raw + focus_to_out + " --pipeline bogus", "--pipeline: expected fused", out});
  cases.push_back({"option-range-fft-too-short", "focus --azimuth circular " + raw + focus_to_out + " --range-fft-size 100",
                   "--range-fft-size 100: must be at least", out});
  cases.push_back({"option-doppler-bandwidth-above-prf", "focus --azimuth circular " + raw + focus_to_out + " --azimuth-bandwidth 700",
                   "--azimuth-bandwidth: expected a value in (0, PRF", out});
  cases.push_back({"option-doppler-centroid-nan", "focus --azimuth circular " + raw + focus_to_out + " --doppler-centroid nan",
                   "--doppler-centroid: expected a finite frequency", out});
  cases.push_back({"option-gpu-memory-size", "focus --azimuth circular " + raw + focus_to_out + " --max-gpu-memory lots",
                   "--max-gpu-memory: expected a positive size", out});
  cases.push_back({"option-plan", "focus --azimuth circular " + raw + focus_to_out + " --plan fast",
                   "--plan: expected estimate or measure", out});
  cases.push_back({"option-precision", "focus --azimuth circular " + raw + focus_to_out + " --precision fp8",
                   "--precision: expected fp32, fp64, fp16-storage, fp16 or tf32x3", out});
  cases.push_back({"option-fp16-storage-on-cpu",
                   "focus --azimuth circular " + raw + focus_to_out + " --backend cpu --precision fp16-storage",
                   "--precision fp16-storage: a GPU mode", out});
  cases.push_back({"option-tf32x3-on-cpu",
                   "focus --azimuth circular " + raw + focus_to_out + " --backend cpu --precision tf32x3",
                   "--precision tf32x3: a GPU mode (FFTs on the tensor cores)", out});
  // Azimuth processing: the 64-line scene is far shorter than its synthetic aperture.
  cases.push_back({"option-azimuth", "focus --azimuth bogus " + raw + focus_to_out, "--azimuth: expected linear or circular", out});
  cases.push_back({"linear-take-shorter-than-aperture", "focus " + raw + focus_to_out,
                   "fewer than the synthetic aperture", out});
  cases.push_back({"option-block-lines-circular", "focus --azimuth circular --block-lines 512 " + raw + focus_to_out,
                   "--block-lines and --max-memory apply to --azimuth linear", out});
  cases.push_back({"option-max-memory-size", "focus --max-memory lots " + raw + focus_to_out,
                   "--max-memory: expected a positive size", out});
  focus_params("params-centroid-coefficients",
               params_with("dccoef.json", "\"prf_hz\": ", "\"doppler_centroid_range_coefficients\": [1, \"x\"], \"prf_hz\": "),
               "radar.doppler_centroid_range_coefficients[1]: expected a finite number");
  cases.push_back({"option-cuda-range-fft", "focus --azimuth circular " + raw + focus_to_out + " --backend cuda --range-fft-size 300",
                   cuda_device_count() > 0 ? "range FFT length 300 must be a power of two" : "--backend cuda", out});

  // Output paths (tests run as root: permission bits prove nothing, so paths that cannot exist).
  cases.push_back({"output-folder-missing", "focus --azimuth circular " + raw + " --params " + scene + " -o " + path("no/such/dir/out.npy"),
                   "does not exist", path("no/such/dir/out.npy")});
  cases.push_back({"output-parent-is-file", "focus --azimuth circular " + raw + " --params " + scene + " -o " + path("scene.json/out.npy"),
                   "is not a folder", path("scene.json/out.npy")});
  fs::create_directory(path("adir"));
  cases.push_back({"output-is-folder", "focus --azimuth circular " + raw + " --params " + scene + " -o " + path("adir"), "it is a folder",
                   path("adir/never")});
  cases.push_back({"output-equals-input", "focus --azimuth circular " + raw + " --params " + scene + " -o " + raw, "is the input file",
                   path("never")});
  cases.push_back({"png-folder-missing", "focus --azimuth circular " + raw + focus_to_out + " --png " + path("no/dir/q.png"),
                   "does not exist", out});

  // Other sub-commands.
  cases.push_back({"simulate-bad-params", "simulate " + path("negprf.json") + " -o " + out, "radar.prf_hz", out});
  write_npy("other.npy", "<c8", "(32, 128)", std::string(32 * 128 * 8, '\1'));
  cases.push_back({"compare-shape-mismatch", "compare " + raw + " " + path("other.npy") + " --params " + scene,
                   "shape", path("never")});
  cases.push_back({"analyze-not-an-image", "analyze " + path("iq3.npy") + " --params " + scene, "iq3.npy", path("never")});

  std::set<std::string> ids;
  std::string table = "| id | message (excerpt) |\n|---|---|\n";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    EXPECT_TRUE(ids.insert(c.id).second) << "duplicate id " << c.id;
    const Result r = run(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "stderr: " << r.err << "\nexpected: " << c.message;
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << "one message, not a cascade: " << r.err;
    EXPECT_FALSE(fs::exists(c.output)) << c.output << " left behind by: " << c.args;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "temporary file left: " << e.path();
    std::string first = r.err.substr(0, r.err.find('\n'));
    table += "| `" + c.id + "` | " + first + " |\n";
  }
  EXPECT_GE(cases.size(), 30u);
  const std::string doc = slurp(test::source_dir() + "/docs/reliability.md");
  for (const std::string& id : ids) EXPECT_NE(doc.find("`" + id + "`"), std::string::npos) << "docs/reliability.md lacks " << id;
  std::printf("%s", table.c_str());

  // Output equal to the input: refused, the input untouched.
  const std::string before = slurp(raw);
  EXPECT_EQ(run("focus --azimuth circular " + raw + " --params " + scene + " -o " + raw).code, 2);
  EXPECT_EQ(slurp(raw), before);
  // A previous product survives a failed run.
  write_text_file(out, "previous product");
  EXPECT_EQ(run("focus --azimuth circular " + raw + " --params " + path("negprf.json") + " -o " + out).code, 2);
  EXPECT_EQ(slurp(out), "previous product");
}

// Many scenes in one process (--output-dir): each product as <name>.<format>, the same bytes as one
// by one; a batch stopped by SIGINT leaves every finished product and no partial one.
TEST_F(Cli, BatchOfScenesAndItsInterruption) {
  small_scene();
  const std::string cli = test::env_or("SARFUSE_TEST_CLI", SARFUSE_CLI);
  fs::create_directory(path("batch"));
  fs::copy_file(path("raw.npy"), path("second.npy"));
  const std::string common = " --params " + path("scene.json") + " --azimuth circular --backend cpu --threads 2";
  Result r = run("focus " + path("raw.npy") + " " + path("second.npy") + " --output-dir " + path("batch") + " --format h5" + common);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"raw", "second"}) {  // the second with the plan of the first
    r = run("focus " + path(std::string(name) + ".npy") + " -o " + path("one.h5") + common);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(slurp(path("batch/" + std::string(name) + ".h5")) == slurp(path("one.h5"))) << name;
  }
  expect_failure("focus " + path("raw.npy") + " " + path("second.npy") + " -o " + path("x.npy") + common,
                 "several inputs need --output-dir", path("x.npy"));
  expect_failure("focus " + path("raw.npy") + " --output-dir " + path("nope") + common, "no such folder", path("nope"));

  // Eight large scenes, one thread: SIGINT once the first product exists.
  {
    const std::size_t na = 2048, nr = 4096;
    write_npy("big.npy", "<c8", "(" + std::to_string(na) + ", " + std::to_string(nr) + ")", std::string(na * nr * 8, '\1'));
  }
  fs::create_directory(path("stopped"));
  std::vector<std::string> args = {"focus"};
  for (int k = 0; k < 8; ++k) {
    const std::string in = path("big" + std::to_string(k) + ".npy");
    fs::create_hard_link(path("big.npy"), in);
    args.push_back(in);
  }
  for (const char* a : {"--output-dir", "", "--params", "", "--azimuth", "circular", "--backend", "cpu", "--threads", "1"})
    args.push_back(a);
  args[10] = path("stopped");
  args[12] = path("scene.json");
  fs::remove(path("big.npy"));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(cli.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    freopen("/dev/null", "w", stdout);
    freopen((dir + "/batch_stderr").c_str(), "w", stderr);
    execv(cli.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  for (int k = 0; k < 600 && !fs::exists(path("stopped/big0.npy")); ++k) {
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the batch ended before its first product: " << slurp(dir + "/batch_stderr");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the batch finished before the signal: make it longer";
  kill(pid, SIGINT);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << slurp(dir + "/batch_stderr");
  std::size_t complete = 0;
  for (const auto& e : fs::directory_iterator(path("stopped"))) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << "temporary file left: " << name;
    if (e.path().extension() != ".npy") continue;
    EXPECT_TRUE(fs::exists(e.path().string() + ".json")) << name;
    const ComplexImage img = read_image(e.path().string());  // whole and readable
    EXPECT_EQ(img.lines(), 2048u);
    ++complete;
  }
  EXPECT_GE(complete, 1u);
  EXPECT_LT(complete, 8u);
  std::printf("SIGINT after the first product: %zu of 8 products complete, none partial\n", complete);
}

// A product that cannot be written: past the file-size limit (ulimit -f), or in a folder that takes no
// new files (/proc): one message naming the file, exit 2, nothing left.
TEST_F(Cli, UnwritableProductsFailCleanly) {
  small_scene();
  const std::string cli = test::env_or("SARFUSE_TEST_CLI", SARFUSE_CLI);
  const std::string base = " --params " + path("scene.json") + " --azimuth circular --backend cpu ";
  for (const char* ext : {".npy", ".h5", ".tif"}) {
    SCOPED_TRACE(ext);
    const std::string out = path(std::string("limited") + ext);
    const std::string cmd = "sh -c 'ulimit -f 16; exec " + cli + " focus " + path("raw.npy") + base + "-o " + out + "' >" +
                            dir + "/stdout 2>" + dir + "/stderr";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2) << slurp(dir + "/stderr");
    const std::string err = slurp(dir + "/stderr");
    EXPECT_NE(err.find(out), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(fs::exists(out));
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "temporary file left: " << e.path();
  }
  expect_failure("focus " + path("raw.npy") + base + "-o /proc/1/slc.npy", "cannot write '/proc/1/slc.npy'", "/proc/1/slc.npy");
  expect_failure("focus " + path("raw.npy") + base + "-o " + path("q.npy") + " --png " + path("q.png") + " --png-clip 150",
                 "--png-clip: expected a percentile in (0, 100]", path("q.npy"));
}

// Speckle alone (no bright point): the sharpness check cannot tell the ambiguities apart, so the
// estimate says it is unsure, on stderr with the alternatives and the flag that forces one, in the
// JSON, and in the product's metadata; bad check modes are refused.
TEST_F(Cli, DopplerEstimateSaysWhenUnsure) {
  ParamsFile p;
  p.radar = RadarParams{5.3e9, 24e6, -1.0e12, 15e-6, 1700, 7100, 850000.0, -4.47 * 1700, 10.0, 0, {}};
  SceneParams s;
  s.azimuth_lines = 2048;
  s.range_samples = 512;
  s.snr_db = 10;
  s.clutter_db = 0;
  p.scene = s;
  write_text_file(path("clutter.json"), to_json_text(p));
  ASSERT_EQ(run("simulate " + path("clutter.json") + " -o " + path("raw.npy")).code, 0);
  const std::string raw = path("raw.npy") + " --params " + path("clutter.json");
  Result r = run("doppler " + raw + " --doppler-check always --json " + path("d.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("proposed by"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: the Doppler ambiguity is uncertain"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--doppler-ambiguity N"), std::string::npos) << r.err;
  const auto d = nlohmann::json::parse(slurp(path("d.json")));
  EXPECT_TRUE(d["low_confidence"].get<bool>()) << d.dump();
  EXPECT_GE(d["candidates"].size(), 3u);
  r = run("focus " + raw + " --backend cpu --doppler auto --doppler-check always -o " + path("slc.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: the Doppler ambiguity is uncertain"), std::string::npos) << r.err;
  const auto meta = nlohmann::json::parse(slurp(path("slc.npy.json")));
  const auto& e = meta["processing"]["doppler_estimate"];
  EXPECT_LT(e["confidence"].get<double>(), 0.5) << meta.dump();
  EXPECT_EQ(meta["radar"]["doppler_centroid_hz"].get<double>(), e["centroid_hz"].get<double>());
  expect_failure("doppler " + raw + " --doppler-check sometimes", "expected auto, always or never", path("none"));
  expect_failure("focus " + raw + " --doppler-check never -o " + path("x.npy"), "--doppler-check applies with --doppler auto",
                 path("x.npy"));
}
