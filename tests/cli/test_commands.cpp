// The CLI end to end: each sub-command's outputs and products.
#include "cli_fixture.hpp"

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

// Product formats by extension: GeoTIFF (read through GDAL) and HDF5 hold the same complex samples as the .npy,
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
    EXPECT_STREQ(GDALGetDescription(b), "slc");
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
  expect_failure(base + path("x.npy") + " --multilook 2x2", "multilook applies to detected products", path("x.npy"));
  expect_failure(base + path("x.npy") + " --detect phase", "detect: expected none", path("x.npy"));
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
