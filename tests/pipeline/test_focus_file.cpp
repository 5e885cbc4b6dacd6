// focus_file (sarfuse/focus_file.hpp): overlapped and sequential stages give the same product bit for
// bit; a session reuses its plan; every product format x sample format reads back through its own
// reader within the format's stated error; the quicklook's scaling.
#include <gdal.h>
#include <gtest/gtest.h>
#include <matio.h>
#include <hdf5.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "scenes.hpp"
#include "io/sample_encoding.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/focus_file.hpp"
#include "sarfuse/io.hpp"
#include "sarfuse/simulate.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace sarfuse;

namespace {


// A squinted take long enough for several linear blocks, written as int8 I/Q (the plan converts) or
// complex64.
struct Take {
  std::string dir = test::temp_dir("focus_file");
  ParamsFile p = test::squinted_satellite_scene();
  std::string raw = dir + "/raw.npy";
  Take() {
    p.scene->azimuth_lines = 6144;
    p.scene->range_samples = 512;
    write_npy(raw, simulate(p.radar, *p.scene, 2));
  }
  ~Take() { fs::remove_all(dir); }
  FocusRequest request(const std::string& out) const {
    FocusRequest r;
    r.input = raw;
    r.radar = p.radar;
    r.output = dir + "/" + out;
    r.options.backend = Backend::cpu;
    r.options.threads = 2;
    return r;
  }
};

// Random complex rows with a wide dynamic range (a few bright samples), as an SLC has.
ComplexImage random_slc(std::size_t lines, std::size_t samples, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  ComplexImage img(lines, samples);
  for (std::size_t k = 0; k < img.size(); ++k) img.data()[k] = {n(g) * 30.0f, n(g) * 30.0f};
  for (std::size_t k = 0; k < 20; ++k) img.data()[(k * 7919) % img.size()] *= 50.0f;
  return img;
}

std::string metadata_for(std::size_t lines, std::size_t samples) {
  RadarParams r = default_scene().radar;
  return product_sidecar_json(r, FocusOptions{}, ProductGeometry{}, lines, samples, "test");
}

// The product read back as complex64 through its own reader (npy: the bytes; HDF5 C API; GDAL) and
// its cint16 scale from the metadata.
ComplexImage read_back(const std::string& path, SampleFormat f, std::size_t lines, std::size_t samples) {
  ComplexImage img(lines, samples);
  const std::string ext = fs::path(path).extension().string();
  const std::size_t n = lines * samples;
  double scale = 1;
  if (f == SampleFormat::cint16) scale = nlohmann::json::parse(test::file_bytes(path + ".json")).at("sample_scale").get<double>();
  std::vector<std::uint16_t> half(2 * n);
  std::vector<std::int16_t> ints(2 * n);
  if (ext == ".npy") {
    const std::string bytes = test::file_bytes(path);
    const std::size_t header = 10 + (static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8);
    const std::string h = bytes.substr(10, header - 10);
    const char* data = bytes.data() + header;
    if (f == SampleFormat::complex64) {
      EXPECT_NE(h.find("'<c8'"), std::string::npos) << h;
      std::memcpy(img.data(), data, n * 8);
    } else if (f == SampleFormat::complex32) {
      EXPECT_NE(h.find("[('r', '<f2'), ('i', '<f2')]"), std::string::npos) << h;
      std::memcpy(half.data(), data, n * 4);
    } else {
      EXPECT_NE(h.find("[('r', '<i2'), ('i', '<i2')]"), std::string::npos) << h;
      std::memcpy(ints.data(), data, n * 4);
    }
  } else if (ext == ".h5") {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(file, 0);
    const hid_t ds = H5Dopen2(file, "slc", H5P_DEFAULT);
    const hid_t t = H5Tcreate(H5T_COMPOUND, f == SampleFormat::complex64 ? 8 : 4);
    // Read as the native element (the library converts half to float only on request): float pairs,
    // raw 16-bit halves (checked below against the IEEE decoding), int16 pairs.
    if (f == SampleFormat::complex64) {
      H5Tinsert(t, "r", 0, H5T_NATIVE_FLOAT);
      H5Tinsert(t, "i", 4, H5T_NATIVE_FLOAT);
      EXPECT_GE(H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, img.data()), 0);
    } else if (f == SampleFormat::complex32) {
      // HDF5 converts its 16-bit float to float32 itself: the reader's view of the type.
      const hid_t t32 = H5Tcreate(H5T_COMPOUND, 8);
      H5Tinsert(t32, "r", 0, H5T_NATIVE_FLOAT);
      H5Tinsert(t32, "i", 4, H5T_NATIVE_FLOAT);
      EXPECT_GE(H5Dread(ds, t32, H5S_ALL, H5S_ALL, H5P_DEFAULT, img.data()), 0);
      H5Tclose(t32);
      const hid_t ft = H5Dget_type(ds);
      const hid_t member = H5Tget_member_type(ft, 0);
      EXPECT_EQ(H5Tget_size(member), 2u);
      H5Tclose(member);
      H5Tclose(ft);
    } else {
      H5Tinsert(t, "r", 0, H5T_NATIVE_INT16);
      H5Tinsert(t, "i", 2, H5T_NATIVE_INT16);
      EXPECT_GE(H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints.data()), 0);
      const hid_t a = H5Aopen(ds, "sample_scale", H5P_DEFAULT);
      double s = 0;
      H5Aread(a, H5T_NATIVE_DOUBLE, &s);
      H5Aclose(a);
      EXPECT_EQ(s, scale);
    }
    H5Tclose(t);
    H5Dclose(ds);
    H5Fclose(file);
    if (f == SampleFormat::complex32) return img;
  } else {
    GDALAllRegister();
    GDALDatasetH ds = GDALOpen(path.c_str(), GA_ReadOnly);
    EXPECT_NE(ds, nullptr);
    if (f == SampleFormat::complex32) {
      EXPECT_EQ(GDALGetRasterCount(ds), 2);
      EXPECT_STREQ(GDALGetMetadataItem(GDALGetRasterBand(ds, 1), "NBITS", "IMAGE_STRUCTURE"), "16");
      int bands[2] = {1, 2};
      EXPECT_EQ(GDALDatasetRasterIO(ds, GF_Read, 0, 0, int(samples), int(lines), img.data(), int(samples), int(lines),
                                    GDT_Float32, 2, bands, 8, GSpacing(samples) * 8, 4),
                CE_None);
    } else {
      GDALRasterBandH b = GDALGetRasterBand(ds, 1);
      EXPECT_EQ(GDALGetRasterDataType(b), f == SampleFormat::cint16 ? GDT_CInt16 : GDT_CFloat32);
      if (f == SampleFormat::cint16) EXPECT_EQ(GDALGetRasterScale(b, nullptr), scale);
      EXPECT_EQ(GDALRasterIO(b, GF_Read, 0, 0, int(samples), int(lines),
                             f == SampleFormat::cint16 ? static_cast<void*>(ints.data()) : static_cast<void*>(img.data()),
                             int(samples), int(lines), f == SampleFormat::cint16 ? GDT_CInt16 : GDT_CFloat32, 0, 0),
                CE_None);
    }
    GDALClose(ds);
    if (f == SampleFormat::complex32) return img;
  }
  auto* v = reinterpret_cast<float*>(img.data());
  if (f == SampleFormat::complex32) io::half_to_floats(half.data(), v, 2 * n);
  if (f == SampleFormat::cint16)
    for (std::size_t k = 0; k < 2 * n; ++k) v[k] = static_cast<float>(ints[k] * scale);
  return img;
}

}  // namespace

// The stages overlapped (three threads, two buffers each) or one after another: the same bytes, in
// linear blocks and in one circular block; and a session's second scene reuses the plan and gives the
// same product as a fresh one.
TEST(FocusFile, OverlappedEqualsSequentialAndSessionsReusePlans) {
  Take t;
  FocusRequest a = t.request("overlap.npy"), b = t.request("sequential.npy");
  a.block_lines = b.block_lines = 2048;
  b.overlap = false;
  const FocusReport ra = focus_file(a), rb = focus_file(b);
  EXPECT_GE(ra.blocks.blocks, 3u) << ra.layout;
  EXPECT_EQ(ra.slc_transfer, "kept rows, in place in the product");
  EXPECT_EQ(test::file_bytes(a.output), test::file_bytes(b.output));
  // Rows focused into the mapped .npy are the rows the writer copies into any other product.
  FocusRequest h = t.request("copied.h5");
  h.block_lines = 2048;
  h.product.compression = Compression::none;
  const FocusReport rh = focus_file(h);
  EXPECT_EQ(rh.slc_transfer, "kept rows");
  const ComplexImage placed = read_back(a.output, SampleFormat::complex64, ra.rows, ra.samples);
  const ComplexImage copied = read_back(h.output, SampleFormat::complex64, ra.rows, ra.samples);
  EXPECT_EQ(std::memcmp(placed.data(), copied.data(), placed.size() * sizeof(placed.data()[0])), 0);
  EXPECT_EQ(test::file_bytes(a.output + ".json"), test::file_bytes(b.output + ".json"));
  EXPECT_GT(ra.timings.focus.total, 0);
  EXPECT_GT(ra.product_bytes, ra.rows * ra.samples * 8);
  FocusRequest c = t.request("circular_overlap.npy"), d = t.request("circular_sequential.npy");
  c.circular = d.circular = true;
  d.overlap = false;
  const FocusReport rc = focus_file(c);
  focus_file(d);
  EXPECT_EQ(test::file_bytes(c.output), test::file_bytes(d.output));
  // One block: the kept rows written directly from the plan's scene, the rows any other product gets.
  EXPECT_EQ(rc.slc_transfer, "kept rows, written directly from the plan's scene");
  FocusRequest ch = t.request("circular_copied.h5");
  ch.circular = true;
  ch.product.compression = Compression::none;
  focus_file(ch);
  const ComplexImage direct = read_back(c.output, SampleFormat::complex64, rc.rows, rc.samples);
  const ComplexImage direct_copied = read_back(ch.output, SampleFormat::complex64, rc.rows, rc.samples);
  EXPECT_EQ(std::memcmp(direct.data(), direct_copied.data(), direct.size() * sizeof(direct.data()[0])), 0);
  // A session's second one-block scene reuses the plan and holds its rows again; an fp64 plan (whose
  // scene is not complex64) fills a slot first: the bytes its .h5 gets.
  {
    FocusSession one;
    FocusRequest e = t.request("held_first.npy"), f = t.request("held_second.npy");
    e.circular = f.circular = true;
    one.focus(e);
    const FocusReport rf = one.focus(f);
    EXPECT_TRUE(rf.plan_reused);
    EXPECT_EQ(rf.slc_transfer, "kept rows, written directly from the plan's scene");
    EXPECT_EQ(test::file_bytes(f.output), test::file_bytes(c.output));
    FocusRequest g = t.request("fp64.npy"), gh = t.request("fp64.h5");
    g.circular = gh.circular = true;
    g.options.precision = gh.options.precision = Precision::fp64;
    gh.product.compression = Compression::none;
    const FocusReport rg = focus_file(g);
    focus_file(gh);
    EXPECT_EQ(rg.slc_transfer, "kept rows, written directly");
    const ComplexImage slot = read_back(g.output, SampleFormat::complex64, rg.rows, rg.samples);
    const ComplexImage slot_copied = read_back(gh.output, SampleFormat::complex64, rg.rows, rg.samples);
    EXPECT_EQ(std::memcmp(slot.data(), slot_copied.data(), slot.size() * sizeof(slot.data()[0])), 0);
    EXPECT_NE(std::memcmp(slot.data(), direct.data(), slot.size() * sizeof(slot.data()[0])), 0);  // fp64 indeed
  }

  FocusSession session;
  FocusRequest first = t.request("first.npy"), second = t.request("second.npy");
  first.block_lines = second.block_lines = 2048;
  const FocusReport r1 = session.focus(first), r2 = session.focus(second);
  EXPECT_FALSE(r1.plan_reused);
  EXPECT_TRUE(r2.plan_reused);
  EXPECT_LT(r2.timings.plan, r1.timings.plan + 1e-3);
  EXPECT_EQ(test::file_bytes(second.output), test::file_bytes(a.output));
  EXPECT_NE(r2.report_json.find("\"plan_reused\": true"), std::string::npos);
}

// One block of an .npy on the CPU: the plan reads the file's pages where they lie (mapped, with zero
// lines around them); the same take from a .mat (held by matio, copied into the block buffer) gives
// the same bytes, linear and circular.
TEST(FocusFile, MappedInputEqualsReadInput) {
  Take t;
  {
    const ComplexImage c = read_image(t.raw);
    std::vector<float> re(c.size()), im(c.size());  // MATLAB column order
    for (std::size_t i = 0; i < c.lines(); ++i)
      for (std::size_t j = 0; j < c.samples(); ++j) {
        re[j * c.lines() + i] = c(i, j).real();
        im[j * c.lines() + i] = c(i, j).imag();
      }
    mat_complex_split_t z{re.data(), im.data()};
    std::size_t dims[2] = {c.lines(), c.samples()};
    mat_t* m = Mat_CreateVer((t.dir + "/raw.mat").c_str(), nullptr, MAT_FT_MAT5);
    ASSERT_TRUE(m);
    matvar_t* v = Mat_VarCreate("raw", MAT_C_SINGLE, MAT_T_SINGLE, 2, dims, &z, MAT_F_COMPLEX);
    ASSERT_EQ(Mat_VarWrite(m, v, MAT_COMPRESSION_NONE), 0);
    Mat_VarFree(v);
    Mat_Close(m);
  }
  for (const bool circular : {false, true}) {
    SCOPED_TRACE(circular ? "circular" : "linear");
    const std::string name = circular ? "circular" : "linear";
    FocusRequest a = t.request(name + "_mapped.npy"), b = t.request(name + "_read.npy");
    b.input = t.dir + "/raw.mat";
    a.circular = b.circular = circular;
    if (!circular) a.block_lines = b.block_lines = 8192;
    const FocusReport ra = focus_file(a), rb = focus_file(b);
    ASSERT_EQ(ra.blocks.blocks, 1u) << ra.layout;
    EXPECT_EQ(ra.input_access, "mapped");
    EXPECT_EQ(rb.input_access, "read");
    EXPECT_EQ(test::file_bytes(a.output), test::file_bytes(b.output));
  }
}

// int8 I/Q input goes to the plan as it is (the plan converts): the same product as its complex64
// values.
TEST(FocusFile, IntegerInputFocusesLikeItsComplexValues) {
  Take t;
  const ComplexImage c = read_image(t.raw);
  float peak = 0;
  for (std::size_t k = 0; k < c.size(); ++k) peak = std::max({peak, std::fabs(c.data()[k].real()), std::fabs(c.data()[k].imag())});
  AlignedBuffer<std::byte> iq(c.size() * 2);
  ComplexImage rounded(c.lines(), c.samples());
  for (std::size_t k = 0; k < c.size(); ++k) {
    const auto re = static_cast<std::int8_t>(std::lround(c.data()[k].real() / peak * 127));
    const auto im = static_cast<std::int8_t>(std::lround(c.data()[k].imag() / peak * 127));
    iq.data()[2 * k] = static_cast<std::byte>(re);
    iq.data()[2 * k + 1] = static_cast<std::byte>(im);
    rounded.data()[k] = {float(re), float(im)};
  }
  {
    std::ofstream f(t.dir + "/iq.npy", std::ios::binary);
    std::string h = "{'descr': '|i1', 'fortran_order': False, 'shape': (" + std::to_string(c.lines()) + ", " +
                    std::to_string(c.samples()) + ", 2), }";
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h.push_back('\n');
    f.write("\x93NUMPY\x01\x00", 8);
    f.put(static_cast<char>(h.size() & 0xff));
    f.put(static_cast<char>(h.size() >> 8));
    f << h;
    f.write(reinterpret_cast<const char*>(iq.data()), static_cast<std::streamsize>(iq.size()));
  }
  write_npy(t.dir + "/rounded.npy", rounded);
  FocusRequest a = t.request("from_int8.npy"), b = t.request("from_c64.npy");
  a.input = t.dir + "/iq.npy";
  b.input = t.dir + "/rounded.npy";
  a.block_lines = b.block_lines = 2048;
  focus_file(a);
  focus_file(b);
  EXPECT_EQ(test::file_bytes(a.output), test::file_bytes(b.output));
}

// Every product format x sample format x compression, written by ProductWriter in uneven row blocks
// and read back by the format's own reader: complex64 exact (mantissa rounding within 2^-(N+1)),
// complex32 the IEEE half rounding of each component, cint16 within half a step of its scale.
TEST(ProductFormats, EverySampleFormatRoundTripsThroughItsReader) {
  const std::string dir = test::temp_dir("formats");
  const std::size_t lines = 300, samples = 1100;  // partial HDF5 chunks on both axes
  const ComplexImage slc = random_slc(lines, samples, 7);
  for (const char* ext : {".npy", ".h5", ".tif"})
    for (SampleFormat f : {SampleFormat::complex64, SampleFormat::complex32, SampleFormat::cint16})
      for (Compression c : {Compression::none, Compression::fast, Compression::best}) {
        if (std::string(ext) == ".npy" && c != Compression::none) continue;
        for (int bits : {0, 12}) {
          if (bits && f != SampleFormat::complex64) continue;
          const std::string path = dir + "/p" + ext;
          SCOPED_TRACE(std::string(ext) + " " + to_string(f) + " " + to_string(c) + " bits " + std::to_string(bits));
          ProductOptions o;
          o.sample_format = f;
          o.compression = c;
          o.mantissa_bits = bits;
          o.threads = 2;
          {
            ProductWriter w(path, lines, samples, o, metadata_for(lines, samples));
            for (std::size_t row = 0; row < lines;) {  // uneven blocks, as the pipeline's runs are
              const std::size_t n = std::min<std::size_t>(lines - row, 37 + row % 91);
              w.write_rows(slc.row(row), n);
              row += n;
            }
            w.commit();
            write_text_file(path + ".json", w.metadata_json());
            if (f == SampleFormat::cint16) EXPECT_EQ(w.clipped_samples(), 0u);
            EXPECT_EQ(w.file_bytes(), fs::file_size(path));
          }
          const ComplexImage back = read_back(path, f, lines, samples);
          const double scale = f == SampleFormat::cint16
                                   ? nlohmann::json::parse(test::file_bytes(path + ".json")).at("sample_scale").get<double>()
                                   : 0;
          double worst = 0;
          for (std::size_t k = 0; k < slc.size(); ++k)
            for (int part = 0; part < 2; ++part) {
              const double x = part ? slc.data()[k].imag() : slc.data()[k].real();
              const double y = part ? back.data()[k].imag() : back.data()[k].real();
              double bound = 0;
              if (f == SampleFormat::complex64) bound = bits ? std::ldexp(std::fabs(x), -(bits + 1)) : 0;
              // Half rounding: half an ulp, or half the subnormal step 2^-24.
              if (f == SampleFormat::complex32) bound = std::max(std::ldexp(std::fabs(x), -11), std::ldexp(1.0, -25));
              if (f == SampleFormat::cint16) bound = 0.5 * scale + std::ldexp(std::fabs(x), -22);  // + float rounding
              worst = std::max(worst, std::fabs(y - x) - bound);
            }
          EXPECT_LE(worst, 0.0);
          const auto meta = nlohmann::json::parse(test::file_bytes(path + ".json"));
          EXPECT_EQ(meta.at("sample_format"), to_string(f));
          fs::remove(path);
        }
      }
  fs::remove_all(dir);
}

// HDF5 fast compression is standard shuffle + deflate (any reader), and smaller than none on SLC-like
// data once the mantissa is rounded.
TEST(ProductFormats, Hdf5CompressionIsStandardDeflate) {
  const std::string dir = test::temp_dir("h5deflate");
  const ComplexImage slc = random_slc(256, 1024, 3);
  std::size_t size[2] = {};
  for (int k = 0; k < 2; ++k) {
    ProductOptions o;
    o.compression = k ? Compression::fast : Compression::none;
    o.mantissa_bits = 10;
    const std::string path = dir + "/p" + std::to_string(k) + ".h5";
    ProductWriter w(path, slc.lines(), slc.samples(), o, metadata_for(slc.lines(), slc.samples()));
    w.write_rows(slc.data(), slc.lines());
    w.commit();
    size[k] = w.file_bytes();
    if (k) {
      const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      const hid_t ds = H5Dopen2(f, "slc", H5P_DEFAULT);
      const hid_t plist = H5Dget_create_plist(ds);
      ASSERT_EQ(H5Pget_nfilters(plist), 2);
      unsigned flags = 0, cd[4] = {};
      std::size_t nelem = 4;
      char name[64];
      EXPECT_EQ(H5Pget_filter2(plist, 0, &flags, &nelem, cd, sizeof name, name, nullptr), H5Z_FILTER_SHUFFLE);
      nelem = 4;
      EXPECT_EQ(H5Pget_filter2(plist, 1, &flags, &nelem, cd, sizeof name, name, nullptr), H5Z_FILTER_DEFLATE);
      H5Pclose(plist);
      H5Dclose(ds);
      H5Fclose(f);
    }
  }
  std::printf("HDF5 256 x 1024, 10 mantissa bits: none %zu bytes, fast %zu bytes (%.2fx)\n", size[0], size[1],
              double(size[0]) / double(size[1]));
  EXPECT_LT(size[1], size[0] * 0.8);
  fs::remove_all(dir);
}

TEST(ProductFormats, OptionsThatDoNotApplyAreRefused) {
  ProductOptions o;
  o.compression = Compression::fast;
  EXPECT_THROW(check_product_path("/tmp/x.npy", o), Error);
  o = {};
  o.detect = Detection::amplitude;
  o.sample_format = SampleFormat::cint16;
  EXPECT_THROW(check_product_path("/tmp/x.h5", o), Error);
  o = {};
  o.mantissa_bits = 30;
  EXPECT_THROW(check_product_path("/tmp/x.h5", o), Error);
  o.mantissa_bits = 8;
  o.sample_format = SampleFormat::complex32;
  EXPECT_THROW(check_product_path("/tmp/x.h5", o), Error);
  EXPECT_THROW(parse_sample_format("complex16"), Error);
  EXPECT_THROW(parse_compression("zip"), Error);
}

// The portable conversion (no F16C) gives the same halves as the processor's: every half back to
// float, random floats and the edges (ties, subnormals, overflow, infinities) to half.
TEST(SampleEncoding, PortableHalfMatchesTheProcessor) {
  std::vector<std::uint16_t> all(65536);
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = static_cast<std::uint16_t>(k);
  std::vector<float> f(all.size());
  io::half_to_floats(all.data(), f.data(), all.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    const float p = io::half_to_float_portable(all[k]);
    if (std::isnan(f[k])) EXPECT_TRUE(std::isnan(p)) << k;
    else EXPECT_EQ(p, f[k]) << k;
  }
  std::mt19937 g(5);
  std::vector<float> v;
  for (int k = 0; k < 200000; ++k) {
    std::uint32_t bits = g();
    float x;
    std::memcpy(&x, &bits, 4);
    if (!std::isnan(x)) v.push_back(x);
  }
  for (float x : {0.0f, -0.0f, 65504.0f, 65520.0f, 65519.99f, 1e30f, -1e30f, std::ldexp(1.0f, -24), std::ldexp(1.0f, -25),
                  std::ldexp(1.5f, -25), std::ldexp(3.0f, -26), std::ldexp(1.0f, -14), 1.0f + std::ldexp(1.0f, -11),
                  1.0f + std::ldexp(3.0f, -11), INFINITY, -INFINITY})
    v.push_back(x);
  std::vector<std::uint16_t> h(v.size());
  io::floats_to_half(v.data(), h.data(), v.size());
  for (std::size_t k = 0; k < v.size(); ++k) EXPECT_EQ(io::float_to_half_portable(v[k]), h[k]) << v[k];
}

TEST(SampleEncoding, HalfRoundingAndMantissaRounding) {
  const float in[] = {1.0f, 1.0f + std::ldexp(1.0f, -11), 65504.0f, 1e-8f, -2.5f, 3.14159f};
  std::uint16_t h[6];
  float back[6];
  io::floats_to_half(in, h, 6);
  io::half_to_floats(h, back, 6);
  EXPECT_EQ(h[0], 0x3c00);
  EXPECT_EQ(back[1], 1.0f);  // a tie rounds to even
  EXPECT_EQ(h[2], 0x7bff);
  EXPECT_EQ(back[4], -2.5f);
  EXPECT_NEAR(back[5], 3.14159f, std::ldexp(3.14159f, -11));
  float m[] = {1.0f + std::ldexp(1.0f, -10) + std::ldexp(1.0f, -12), 1.0f + std::ldexp(3.0f, -11)};
  io::round_mantissa(m, 2, 10);
  EXPECT_EQ(m[0], 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(m[1], 1.0f + std::ldexp(1.0f, -9));  // 1.5 ulp: the tie to even goes up
  std::int16_t q[3];
  const float v[] = {10.4f, -10.6f, 1e9f};
  EXPECT_EQ(io::floats_to_int16(v, q, 3, 1.0f), 1u);
  EXPECT_EQ(q[0], 10);
  EXPECT_EQ(q[1], -11);
  EXPECT_EQ(q[2], 32767);
}

// The quicklook in amplitude, 255 at the 99th percentile: a speckled scene fills the grey range
// (the dB picture of the same scene, scaled from its brightest pixel, sits near black).
TEST(Quicklook, AmplitudeScalingShowsASpeckledScene) {
  const ComplexImage slc = random_slc(1024, 768, 11);
  Quicklook q(slc.lines(), slc.samples(), {}, 5.0, 4.0 * std::sin(35.0 * M_PI / 180));
  q.add_rows(slc.data(), slc.lines());
  EXPECT_EQ(q.looks_azimuth(), q.looks_range());  // 5 m azimuth x 4 m ground range: square enough
  std::vector<unsigned char> px = q.pixels();
  std::vector<unsigned char> sorted = px;
  std::sort(sorted.begin(), sorted.end());
  const unsigned median = sorted[sorted.size() / 2];
  const double at255 = static_cast<double>(std::count(px.begin(), px.end(), 255)) / static_cast<double>(px.size());
  EXPECT_GT(median, 60u);
  EXPECT_LT(median, 200u);
  EXPECT_NEAR(at255, 0.01, 0.005);
  // Ground range pixels twice the azimuth pixel: twice the azimuth looks.
  Quicklook r(slc.lines(), slc.samples(), {}, 2.0, 4.0 * std::sin(35.0 * M_PI / 180));
  EXPECT_EQ(r.looks_azimuth(), 2 * r.looks_range());
}
