// The CLI end to end: outputs of each sub-command, and for bad input one clear message, exit code 2
// and no output file left behind (a previous file at the path untouched).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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
  Result r = run("focus " + path("raw.npy") + " --params " + path("scene.json") + " -o " + path("slc.npy") +
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
  ASSERT_EQ(run("focus " + path("raw.npy") + " --params " + path("scene.json") + " -o " + path("ref.npy") +
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

TEST_F(Cli, Demo) {
  const Result r = run("demo --out " + path("demo"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"raw.npy", "slc.npy", "slc.npy.json", "slc.png", "report.json", "scene.json"})
    EXPECT_TRUE(fs::exists(path("demo/") + f)) << f;
  EXPECT_NE(r.out.find("az_PSLR"), std::string::npos);
}

TEST_F(Cli, BadInputsFailCleanly) {
  small_scene();
  const std::string scene = path("scene.json"), raw = path("raw.npy"), out = path("out.npy");
  const std::string focus_to_out = " --params " + scene + " -o " + out;
  expect_failure("focus " + path("nope.npy") + focus_to_out, "nope.npy: no such file", out);
  write_npy("f4.npy", "<f4", "(4, 4)", std::string(64, '\0'));
  expect_failure("focus " + path("f4.npy") + focus_to_out, "dtype '<f4' not supported", out);
  write_npy("short.npy", "<c8", "(64, 128)", std::string(100, '\0'));
  expect_failure("focus " + path("short.npy") + focus_to_out, "truncated", out);
  std::string nan_data(64 * 128 * 8, '\0');
  const float nan = std::nanf("");
  std::memcpy(&nan_data[8 * 130], &nan, 4);
  write_npy("nan.npy", "<c8", "(64, 128)", nan_data);
  expect_failure("focus " + path("nan.npy") + focus_to_out, "sample (1, 2) is NaN", out);
  write_npy("tiny.npy", "<c8", "(64, 16)", std::string(64 * 16 * 8, '\1'));
  expect_failure("focus " + path("tiny.npy") + focus_to_out, "longer than the record (16 range samples)", out);

  std::string text = slurp(scene);
  auto with = [&](const std::string& a, const std::string& b) {
    std::string t = text;
    t.replace(t.find(a), a.size(), b);
    return t;
  };
  write_text_file(path("noprf.json"), with("\"prf_hz\"", "\"prf_hz_typo\""));
  expect_failure("focus " + raw + " --params " + path("noprf.json") + " -o " + out, "radar.prf_hz: missing", out);
  write_text_file(path("negprf.json"), with("\"prf_hz\": 600", "\"prf_hz\": -600"));
  expect_failure("focus " + raw + " --params " + path("negprf.json") + " -o " + out, "radar.prf_hz: must be > 0", out);
  write_text_file(path("broken.json"), "{ \"radar\": ");
  expect_failure("focus " + raw + " --params " + path("broken.json") + " -o " + out, "not valid JSON", out);

  expect_failure("focus " + raw + " --params " + scene + " -o " + path("no/such/dir/out.npy"), "does not exist",
                 path("no/such/dir/out.npy"));
  expect_failure("focus " + raw + " --params " + scene + " -o " + path("scene.json/out.npy"), "is not a folder",
                 path("scene.json/out.npy"));
  expect_failure("focus " + raw + focus_to_out + " --range-window blackman", "expected none, hamming", out);
  expect_failure("focus " + raw + focus_to_out + " --rcmc-taps 7", "--rcmc-taps", out);
  expect_failure("focus " + raw + focus_to_out + " --no-such-option", "no-such-option", out);
  expect_failure("simulate " + path("negprf.json") + " -o " + out, "radar.prf_hz", out);
  expect_failure("focus " + raw + focus_to_out + " --pipeline bogus", "--pipeline: expected fused", out);
  expect_failure("focus " + raw + focus_to_out + " --range-fft-size 100", "--range-fft-size 100: must be at least",
                 out);
  expect_failure("focus " + raw + focus_to_out + " --backend cuda --range-fft-size 300",
                 cuda_device_count() > 0 ? "range FFT length 300 must be a power of two" : "--backend cuda", out);
  if (cuda_device_count() == 0)  // on a GPU machine this focus would rightly succeed
    expect_failure("focus " + raw + focus_to_out + " --backend cuda", "--backend cuda", out);

  // Output equal to the input: refused, the input untouched.
  const std::string before = slurp(raw);
  EXPECT_EQ(run("focus " + raw + " --params " + scene + " -o " + raw).code, 2);
  EXPECT_EQ(slurp(raw), before);
  // A previous product survives a failed run.
  write_text_file(out, "previous product");
  EXPECT_EQ(run("focus " + raw + " --params " + path("negprf.json") + " -o " + out).code, 2);
  EXPECT_EQ(slurp(out), "previous product");
}
