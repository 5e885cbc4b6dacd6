// The CLI on bad input: one clear message, exit code 2 and no output file left behind (a previous file
// at the path untouched).
#include "cli_fixture.hpp"

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
  cases.push_back({"var-on-npy", "focus --azimuth circular " + raw + " --var data" + focus_to_out, "a variable name applies to .mat files only", out});

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
  cases.push_back({"option-rcmc-taps", "focus --azimuth circular " + raw + focus_to_out + " --rcmc-taps 7", "rcmc_taps: expected an even number", out});
  cases.push_back({"option-unknown", "focus --azimuth circular " + raw + focus_to_out + " --no-such-option", "no-such-option", out});
  cases.push_back({"option-pipeline", "focus --azimuth circular " + raw + focus_to_out + " --pipeline bogus", "pipeline: expected fused", out});
  cases.push_back({"option-range-fft-too-short", "focus --azimuth circular " + raw + focus_to_out + " --range-fft-size 100",
                   "range_fft_size 100: must be at least", out});
  cases.push_back({"option-doppler-bandwidth-above-prf", "focus --azimuth circular " + raw + focus_to_out + " --azimuth-bandwidth 700",
                   "azimuth_bandwidth_hz: expected a value in (0, PRF", out});
  cases.push_back({"option-doppler-centroid-nan", "focus --azimuth circular " + raw + focus_to_out + " --doppler-centroid nan",
                   "--doppler-centroid: expected a finite frequency", out});
  cases.push_back({"option-gpu-memory-size", "focus --azimuth circular " + raw + focus_to_out + " --max-gpu-memory lots",
                   "--max-gpu-memory: expected a positive size", out});
  cases.push_back({"option-plan", "focus --azimuth circular " + raw + focus_to_out + " --plan fast",
                   "fft_planning: expected estimate or measure", out});
  cases.push_back({"option-precision", "focus --azimuth circular " + raw + focus_to_out + " --precision fp8",
                   "precision: expected fp32, fp64, fp16-storage, fp16 or tf32x3", out});
  cases.push_back({"option-fp16-storage-on-cpu",
                   "focus --azimuth circular " + raw + focus_to_out + " --backend cpu --precision fp16-storage",
                   "precision fp16-storage: a GPU mode", out});
  cases.push_back({"option-tf32x3-on-cpu",
                   "focus --azimuth circular " + raw + focus_to_out + " --backend cpu --precision tf32x3",
                   "precision tf32x3: a GPU mode (FFTs on the tensor cores)", out});
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
                   cuda_device_count() > 0 ? "range FFT length 300 must be a power of two" : "backend cuda", out});

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

// A product that cannot be written: past the file-size limit (ulimit -f), or in a folder that takes no
// new files (/proc): one message naming the file, exit 2, nothing left.
TEST_F(Cli, UnwritableProductsFailCleanly) {
  small_scene();
  const std::string cli = test::env_or("SARFUSE_TEST_CLI", SARFUSE_CLI);
  const std::string base = " --params " + path("scene.json") + " --azimuth circular --backend cpu ";
  // complex32: the rows written from the encoder's buffer rather than the caller's.
  for (const char* ext : {".npy", ".h5", ".tif"})
    for (const char* format : {"complex64", "complex32"}) {
      SCOPED_TRACE(std::string(ext) + " " + format);
      const std::string out = path(std::string("limited") + ext);
      const std::string cmd = "sh -c 'ulimit -f 16; exec " + cli + " focus " + path("raw.npy") + base + "--sample-format " +
                              format + " -o " + out + "' >" + dir + "/stdout 2>" + dir + "/stderr";
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
                 "png clip_percentile: expected a percentile in (0, 100]", path("q.npy"));
}
