// The CLI tests' fixture: runs the built binary with arguments, captures exit status, stdout and
// stderr; a small simulated scene; hand-made .npy files; the bad-input expectation (exit 2, the message,
// no output and no temporary file left behind).
#pragma once
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

// A named namespace (not an unnamed one): the fixture is one class across the test files, as gtest
// requires of one test suite.
namespace cli_test {

struct Result {
  int code;
  std::string out, err;
};

inline std::string slurp(const std::string& p) {
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

}  // namespace cli_test

using cli_test::Cli;
using cli_test::Result;
using cli_test::slurp;
