// `sarfuse decode` and `sarfuse info` on Sentinel-1 Level-0 input: a real packet decoded to .npy with
// its header sidecar, and bad input refused with one message, exit 2 and no output.
#include "cli_fixture.hpp"
#include "io/npy.hpp"
#include "sarfuse/sentinel1.hpp"
#include "sarfuse/simulate.hpp"

namespace {

std::string s1_dir() { return test::shared_data_dir() + "/sentinel1"; }

std::vector<char> bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_F(Cli, DecodeSentinel1Packets) {
  if (!fs::exists(s1_dir() + "/000408-echo.dat"))
    GTEST_SKIP() << "Sentinel-1 test packets not found in " << s1_dir() << " (see the README there)";
  // A measurement file of two real packets (noise, then echo), named as in a .SAFE product.
  fs::create_directories(path("p.SAFE/measurement"));
  const std::string dat = path("p.SAFE/measurement/s1b-s3-raw-s-vv-20200615t162409-20200615t162435-022046-029d76.dat");
  {
    std::ofstream f(dat, std::ios::binary);
    for (const char* stem : {"000000-noise", "000408-echo"}) {
      const auto b = bytes_of(s1_dir() + "/" + stem + ".dat");
      f.write(b.data(), static_cast<std::streamsize>(b.size()));
    }
  }
  const Result info = run("info " + path("p.SAFE"));
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("2 packets, swath S3"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("signals: echo 1, noise 1"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("compression: BAQ5 1, FDBAQ0 1"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("407 packets missing"), std::string::npos) << info.out;

  const Result r = run("decode " + path("p.SAFE") + " --polarization VV -o " + path("echo.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(io::read_npy_header(path("echo.npy")).shape, (std::vector<std::uint64_t>{1, 21558}));
  const auto ref = bytes_of(s1_dir() + "/000408-echo.esa_reference.npy");
  io::NpyHeader rh = io::read_npy_header(s1_dir() + "/000408-echo.esa_reference.npy");
  const auto ours = bytes_of(path("echo.npy"));
  io::NpyHeader oh = io::read_npy_header(path("echo.npy"));
  ASSERT_EQ(ours.size() - oh.data_offset, ref.size() - rh.data_offset);
  EXPECT_TRUE(std::equal(ours.begin() + static_cast<std::ptrdiff_t>(oh.data_offset), ours.end(),
                         ref.begin() + static_cast<std::ptrdiff_t>(rh.data_offset)))
      << "decoded line differs from ESA's decoding";
  const auto side = nlohmann::json::parse(slurp(path("echo.npy.json")));
  EXPECT_EQ(side.at("lines").get<int>(), 1);
  EXPECT_EQ(side.at("headers").at(0).at("secondary_header").at("radar_configuration_support").at("swst").get<int>(), 5271);
  EXPECT_EQ(side.at("packet_index").at(0).get<int>(), 1);

  const Result noise = run("decode " + dat + " --signal noise -o " + path("noise.npy"));
  ASSERT_EQ(noise.code, 0) << noise.err;
  EXPECT_EQ(io::read_npy_header(path("noise.npy")).shape, (std::vector<std::uint64_t>{1, 21558}));
}

TEST_F(Cli, DecodeRefusesBadLevel0Input) {
  if (!fs::exists(s1_dir() + "/000408-echo.dat"))
    GTEST_SKIP() << "Sentinel-1 test packets not found in " << s1_dir() << " (see the README there)";
  auto packet = bytes_of(s1_dir() + "/000408-echo.dat");
  auto write = [&](const std::string& name, std::vector<char> b) {
    std::ofstream(path(name), std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
    return path(name);
  };
  auto truncated = packet;
  truncated.resize(9000);
  auto bad_sync = packet;
  bad_sync[13] = 0;
  auto bad_mode = packet;
  bad_mode[37] = 7;
  auto bad_brc = packet;
  bad_brc[68] = static_cast<char>(bad_brc[68] | 0xe0);
  auto short_length = packet;  // the length field says the user data ends after 100 bytes
  short_length.resize(68 + 100);
  short_length[4] = 0;
  short_length[5] = static_cast<char>(68 + 100 - 7);
  const std::string out = path("lines.npy");
  expect_failure("decode " + write("t.dat", truncated) + " -o " + out,
                 "t.dat: packet 0 (byte 0): packet_data_length 15657: the packet needs 15664 bytes, the file holds 9000", out);
  expect_failure("decode " + write("s.dat", bad_sync) + " -o " + out, "s.dat: packet 0 (byte 0): sync_marker", out);
  expect_failure("decode " + write("m.dat", bad_mode) + " -o " + out, "m.dat: packet 0 (byte 0): baq_mode 7: expected", out);
  expect_failure("decode " + write("b.dat", bad_brc) + " -o " + out, "b.dat: packet 0: channel IE, block 0: BRC 7", out);
  expect_failure("decode " + write("l.dat", short_length) + " -o " + out,
                 "l.dat: packet 0: channel IE, block 2: the sample codes run past the end of the user data (100 bytes)", out);
  expect_failure("decode " + s1_dir() + "/000408-echo.dat --signal bogus -o " + out, "signal: expected echo, noise, txcal or all", out);
  expect_failure("decode " + s1_dir() + "/000408-echo.dat --polarization XY -o " + out, "polarisation: expected VV", out);
  expect_failure("decode " + s1_dir() + "/000408-echo.dat -o " + path("lines.h5"), "decoded lines are written as .npy",
                 path("lines.h5"));
  expect_failure("decode " + path("none.SAFE") + " -o " + out, "none.SAFE: no such file or folder", out);
  EXPECT_FALSE(fs::exists(out + ".json"));
}

// `sarfuse focus TAKE.dat` with no parameters file: the radar parameters from the packets, the Doppler
// centroid estimated, the product and its report written; a polarisation the take lacks refused.
TEST_F(Cli, FocusSentinel1TakeWithoutAParametersFile) {
  using namespace sarfuse::sentinel1;
  PacketHeader first = s3_echo_header();
  first.tx_pulse_length = 150;
  const std::vector<PvtRecord> pvt = polar_orbit(packet_time_s(first), 1.0);
  ComplexImage proxy(1024, 2);
  std::fill(proxy.data(), proxy.data() + proxy.size(), std::complex<float>(1.f, 1.f));
  write_measurement_file(path("proxy.dat"), proxy, first, pvt, {});
  const RadarParams radar = radar_parameters(index_lines(path("proxy.dat"), {}));
  SceneParams s;
  s.azimuth_lines = 1024;
  s.range_samples = 1024;
  s.snr_db = 20;
  s.aperture_s = 0.25;
  s.targets = {{radar.near_range_m + 500.3 * radar.range_spacing_m(), 0.0, 1.0, 0.0}};
  ComplexImage raw = simulate(radar, s, 0);
  for (std::size_t i = 0; i < raw.size(); ++i) raw.data()[i] *= 2000.f;
  write_measurement_file(path("s1a-s3-raw-s-vv-take.dat"), raw, first, pvt, {});

  const Result r = run("focus " + path("s1a-s3-raw-s-vv-take.dat") + " --azimuth circular --backend cpu -o " +
                       path("slc.h5") + " --report " + path("report.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("slc.h5")));
  const auto report = nlohmann::json::parse(slurp(path("report.json")));
  EXPECT_TRUE(report.contains("doppler_estimate")) << report.dump(1).substr(0, 2000);
  EXPECT_EQ(report.at("input").get<std::string>(), path("s1a-s3-raw-s-vv-take.dat"));
  EXPECT_NEAR(report.at("parameters_given").at("prf_hz").get<double>(), radar.prf_hz, 1e-9);
  EXPECT_NEAR(report.at("parameters_given").at("effective_velocity_m_s").get<double>(), radar.effective_velocity_m_s, 1e-9);
  // A precise orbit file instead of the packets' PVT: the same platform here, the same velocity.
  std::ofstream(path("orbit.EOF")) << "<Earth_Explorer_File><Data_Block><List_of_OSVs>"
                                      "<OSV><TAI>TAI=2020-06-15T16:24:46.000000</TAI><X>7078137.0</X><Y>0</Y><Z>0</Z>"
                                      "<VX>0</VX><VY>0</VY><VZ>7500.0</VZ></OSV></List_of_OSVs></Data_Block></Earth_Explorer_File>";
  const Result o = run("focus " + path("s1a-s3-raw-s-vv-take.dat") + " --orbit " + path("orbit.EOF") +
                       " --azimuth circular --backend cpu -o " + path("slc_orbit.npy") + " --report " + path("r2.json"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NEAR(nlohmann::json::parse(slurp(path("r2.json"))).at("parameters_given").at("effective_velocity_m_s").get<double>(),
              radar.effective_velocity_m_s, 1e-3);
  std::ofstream(path("far.EOF")) << "<Earth_Explorer_File><Data_Block><List_of_OSVs>"
                                    "<OSV><TAI>TAI=2020-06-16T16:24:46.000000</TAI><X>7078137.0</X><Y>0</Y><Z>0</Z>"
                                    "<VX>0</VX><VY>0</VY><VZ>7500.0</VZ></OSV></List_of_OSVs></Data_Block></Earth_Explorer_File>";
  expect_failure("focus " + path("s1a-s3-raw-s-vv-take.dat") + " --orbit " + path("far.EOF") + " -o " + path("far.npy"),
                 "not this take's orbit", path("far.npy"));
  expect_failure("focus " + path("s1a-s3-raw-s-vv-take.dat") + " --polarization HH -o " + path("hh.npy"),
                 "no echo packets of polarisation HH", path("hh.npy"));
  expect_failure("focus " + path("nope.npy") + " -o " + path("x.npy"), "--params: required", path("x.npy"));
}
