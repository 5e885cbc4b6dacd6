#include <gtest/gtest.h>
#include <matio.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <fstream>
#include <vector>

#include "io/atomic_file.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"
#include "sarfuse/io.hpp"
#include "test_util.hpp"

using namespace sarfuse;
namespace fs = std::filesystem;

// A hand-made .npy file: header text as numpy writes it, then `data`.
static void write_npy_file(const std::string& path, const std::string& descr, const std::string& shape,
                           const void* data, std::size_t bytes, bool fortran = false) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h.push_back('\n');
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(h.size() & 0xff), static_cast<char>(h.size() >> 8)};
  f.write(len, 2);
  f.write(h.data(), static_cast<std::streamsize>(h.size()));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

static std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class Io : public ::testing::Test {
 protected:
  std::string dir = test::temp_dir("io");
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(Io, NpyRoundTripComplex64) {
  ComplexImage img(3, 5);
  for (std::size_t k = 0; k < img.size(); ++k) img.data()[k] = {static_cast<float>(k), -0.5f * k};
  write_npy(dir + "/a.npy", img);
  const ComplexImage back = read_image(dir + "/a.npy");
  ASSERT_EQ(back.lines(), 3u);
  ASSERT_EQ(back.samples(), 5u);
  EXPECT_EQ(std::memcmp(back.data(), img.data(), img.size() * 8), 0);
  EXPECT_EQ((fs::file_size(dir + "/a.npy") - img.size() * 8) % 64, 0u);  // header padded as numpy does
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().extension(), ".npy") << "temporary left behind";
}

TEST_F(Io, ReadsComplex128AndIntegerIq) {
  const std::complex<double> c[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};
  write_npy_file(dir + "/c16.npy", "<c16", "(2, 2)", c, sizeof c);
  RawData r = read_raw(dir + "/c16.npy");
  EXPECT_EQ(r.type, SampleType::complex128);
  EXPECT_EQ(reinterpret_cast<const std::complex<double>*>(r.bytes.data())[3], c[3]);

  const std::int8_t i8[2 * 3 * 2] = {1, -1, 3, -3, 5, -5, 7, -7, 9, -9, 11, -11};
  write_npy_file(dir + "/i8.npy", "|i1", "(2, 3, 2)", i8, sizeof i8);
  r = read_raw(dir + "/i8.npy");
  EXPECT_EQ(r.type, SampleType::int8_iq);
  EXPECT_EQ(r.lines, 2u);
  EXPECT_EQ(r.samples, 3u);
  EXPECT_EQ(std::memcmp(r.bytes.data(), i8, sizeof i8), 0);

  const std::int16_t i16[2 * 2 * 2] = {1000, -1000, 2, 3, -4, 5, 6, -7};
  write_npy_file(dir + "/i16.npy", "<i2", "(2, 2, 2)", i16, sizeof i16);
  r = read_raw(dir + "/i16.npy");
  EXPECT_EQ(r.type, SampleType::int16_iq);
  EXPECT_EQ(std::memcmp(r.bytes.data(), i16, sizeof i16), 0);
}

// The mapped view holds exactly what read() gives, between zero lines, whatever the header's length
// and whatever follows the lines in the file (their pages are shared with the header and the tail).
TEST_F(Io, MappedLinesAreTheFileBetweenZeroLines) {
  const std::size_t lines = 7, samples = 600;  // 4800-byte lines: no line starts on a page
  std::vector<std::complex<float>> c(lines * samples);
  for (std::size_t k = 0; k < c.size(); ++k) c[k] = {1.0f + k, -0.25f * k};
  std::vector<std::byte> with_trailer(c.size() * 8 + 100, std::byte{0x5a});
  std::memcpy(with_trailer.data(), c.data(), c.size() * 8);
  write_npy_file(dir + "/c8.npy", "<c8", "(7, 600)", with_trailer.data(), with_trailer.size());
  const auto file = RawFile::open(dir + "/c8.npy");
  for (const auto& [before, after] : {std::pair<std::size_t, std::size_t>{0, 0}, {3, 2}, {1, 0}, {0, 5}}) {
    SCOPED_TRACE(std::to_string(before) + " zero lines before, " + std::to_string(after) + " after");
    const auto m = file->map_padded(before, after);
    ASSERT_TRUE(m);
    std::vector<std::complex<float>> read(c.size());
    file->read(0, lines, read.data());
    const auto* view = reinterpret_cast<const std::complex<float>*>(m->lines());
    for (std::size_t k = 0; k < before * samples; ++k) ASSERT_EQ(view[k], std::complex<float>{}) << k;
    EXPECT_EQ(std::memcmp(view + before * samples, read.data(), read.size() * 8), 0);
    for (std::size_t k = 0; k < after * samples; ++k)
      ASSERT_EQ(view[(before + lines) * samples + k], std::complex<float>{}) << k;
  }

  const std::int8_t i8[2 * 3 * 2] = {1, -1, 3, -3, 5, -5, 7, -7, 9, -9, 11, -11};
  write_npy_file(dir + "/i8.npy", "|i1", "(2, 3, 2)", i8, sizeof i8);
  const auto m8 = RawFile::open(dir + "/i8.npy")->map_padded(1, 1);
  ASSERT_TRUE(m8);
  const std::int8_t zeros[6] = {};
  EXPECT_EQ(std::memcmp(m8->lines(), zeros, 6), 0);
  EXPECT_EQ(std::memcmp(m8->lines() + 6, i8, sizeof i8), 0);
  EXPECT_EQ(std::memcmp(m8->lines() + 6 + sizeof i8, zeros, 6), 0);

  // Mapped lines are not read, so not checked (a CPU plan checks them as it converts them); read() is.
  c[2 * samples + 17] = {0, std::numeric_limits<float>::infinity()};
  write_npy_file(dir + "/inf.npy", "<c8", "(7, 600)", c.data(), c.size() * 8);
  const auto inf_file = RawFile::open(dir + "/inf.npy");
  const auto minf = inf_file->map_padded(2, 2);
  ASSERT_TRUE(minf);
  EXPECT_TRUE(std::isinf(reinterpret_cast<const std::complex<float>*>(minf->lines())[(2 + 2) * samples + 17].imag()));
  EXPECT_NE(error_of([&] { inf_file->read(0, 7, c.data()); }).find("sample (2, 17) is infinite"), std::string::npos);
}

TEST_F(Io, BadNpyFilesGiveClearErrors) {
  const float f[8] = {};
  write_npy_file(dir + "/f4.npy", "<f4", "(2, 4)", f, sizeof f);
  EXPECT_NE(error_of([&] { read_raw(dir + "/f4.npy"); }).find("dtype '<f4' not supported"), std::string::npos);
  write_npy_file(dir + "/trunc.npy", "<c8", "(4, 4)", f, sizeof f);
  EXPECT_NE(error_of([&] { read_raw(dir + "/trunc.npy"); }).find("truncated"), std::string::npos);
  write_npy_file(dir + "/1d.npy", "<c8", "(4,)", f, sizeof f);
  EXPECT_NE(error_of([&] { read_raw(dir + "/1d.npy"); }).find("expected (Na, Nr)"), std::string::npos);
  write_npy_file(dir + "/i8bad.npy", "|i1", "(2, 4)", f, 8);
  EXPECT_NE(error_of([&] { read_raw(dir + "/i8bad.npy"); }).find("expected (Na, Nr, 2)"), std::string::npos);
  write_npy_file(dir + "/fo.npy", "<c8", "(2, 2)", f, 32, true);
  EXPECT_NE(error_of([&] { read_raw(dir + "/fo.npy"); }).find("Fortran"), std::string::npos);
  const std::complex<float> nan[4] = {{0, 0}, {0, std::nanf("")}, {0, 0}, {0, 0}};
  write_npy_file(dir + "/nan.npy", "<c8", "(2, 2)", nan, sizeof nan);
  EXPECT_NE(error_of([&] { read_raw(dir + "/nan.npy"); }).find("sample (0, 1) is NaN"), std::string::npos);
  std::ofstream(dir + "/junk.npy") << "hello";
  EXPECT_NE(error_of([&] { read_raw(dir + "/junk.npy"); }).find("not a .npy file"), std::string::npos);
  EXPECT_NE(error_of([&] { read_raw(dir + "/missing.npy"); }).find("missing.npy: no such file"), std::string::npos);
  EXPECT_NE(error_of([&] { read_raw(dir + "/x.bin"); }).find("expected .npy or .mat"), std::string::npos);
}

TEST_F(Io, WritesAreAtomic) {
  ComplexImage img(2, 2);
  EXPECT_NE(error_of([&] { write_npy(dir + "/no/such/folder/a.npy", img); }).find("does not exist"), std::string::npos);
  std::ofstream(dir + "/file") << "x";
  EXPECT_NE(error_of([&] { write_npy(dir + "/file/a.npy", img); }).find("is not a folder"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

// The early write-out (on the atomic file's own thread) asked for between writes, by our handle and
// after a library took the file over: the committed file holds exactly what was written; a file
// destroyed uncommitted with a write-out asked for leaves nothing.
TEST_F(Io, AtomicFileWritesOutEarlyAndCommitsWholeFiles) {
  std::string bytes(3 << 20, '\0');
  for (std::size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<char>(k * 131 % 251);
  {
    io::AtomicFile f(dir + "/ours.bin");
    for (int piece = 0; piece < 3; ++piece) {
      f.write(bytes.data() + (piece << 20), 1 << 20);
      f.start_writeback();
    }
    f.commit();
  }
  EXPECT_TRUE(test::file_bytes(dir + "/ours.bin") == bytes);
  {
    io::AtomicFile f(dir + "/library.bin");
    const std::string temp = f.hand_to_library();
    std::ofstream out(temp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    out.flush();
    f.start_writeback();
    out.write(bytes.data() + bytes.size() / 2, static_cast<std::streamsize>(bytes.size() / 2));
    out.close();
    f.start_writeback();
    f.commit();
  }
  EXPECT_TRUE(test::file_bytes(dir + "/library.bin") == bytes);
  {
    io::AtomicFile f(dir + "/dropped.bin");
    f.write(bytes.data(), bytes.size());
    f.start_writeback();
  }
  EXPECT_FALSE(fs::exists(dir + "/dropped.bin"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);  // no temporaries
}

// Direct writes (past the page cache where the file system allows it): aligned data after a
// 4096-byte header, a tail that is not a whole block, a source that is not page-aligned and an
// offset that is not: the committed file holds exactly the bytes written, in order.
TEST_F(Io, DirectWritesHoldTheBytesWritten) {
  constexpr std::size_t kPage = 4096;
  const std::size_t n = (3 << 20) + 100;
  auto* aligned = static_cast<char*>(std::aligned_alloc(kPage, (n / kPage + 2) * kPage));
  for (std::size_t k = 0; k < n + kPage; ++k) aligned[k] = static_cast<char>(k * 131 % 251);
  const std::string header(kPage, 'h');
  {
    io::AtomicFile f(dir + "/direct.bin");
    f.write(header.data(), header.size());
    f.write_direct(aligned, n);           // aligned source and offset: whole blocks direct, the tail written
    f.write_direct(aligned + 1, kPage);   // neither: all written through the page cache
    f.write_direct(aligned, 2 * kPage);   // an offset not on a block boundary
    f.commit();
  }
  std::string expected = header + std::string(aligned, n) + std::string(aligned + 1, kPage) + std::string(aligned, 2 * kPage);
  EXPECT_TRUE(test::file_bytes(dir + "/direct.bin") == expected);
  // Rows apart in memory, written one after another: whole blocks 512 bytes apart (direct where the
  // disk takes that alignment, gathered), rows that are not whole blocks, an unaligned pitch, and a
  // second call after a tail left the offset off a block boundary.
  {
    io::AtomicFile f(dir + "/rows.bin");
    f.write(header.data(), header.size());
    f.write_direct_rows(aligned, kPage, 300, kPage + 512);
    f.write_direct_rows(aligned + 512, 1000, 3, 1536);
    f.write_direct_rows(aligned, 2 * kPage, 2, 2 * kPage + 8);
    f.write_direct_rows(aligned, kPage, 5, kPage + 512);
    f.commit();
  }
  expected = header;
  auto rows = [&](const char* p, std::size_t row, std::size_t count, std::size_t pitch) {
    for (std::size_t k = 0; k < count; ++k) expected += std::string(p + k * pitch, row);
  };
  rows(aligned, kPage, 300, kPage + 512);
  rows(aligned + 512, 1000, 3, 1536);
  rows(aligned, 2 * kPage, 2, 2 * kPage + 8);
  rows(aligned, kPage, 5, kPage + 512);
  EXPECT_TRUE(test::file_bytes(dir + "/rows.bin") == expected);
  std::free(aligned);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);  // no temporaries
}

// A stop requested while a product's companions are written (InterruptsDeferred) lets them finish;
// outside it, the atomic writer stops and leaves nothing.
TEST_F(Io, CompanionFilesFinishWhileAStopIsDeferred) {
  request_interrupt(SIGINT);
  {
    const InterruptsDeferred companions;
    write_text_file(dir + "/sidecar.json", "{}");
  }
  EXPECT_EQ(test::file_bytes(dir + "/sidecar.json"), "{}");
  EXPECT_THROW(write_text_file(dir + "/late.json", "{}"), Interrupted);
  clear_interrupt();
  EXPECT_FALSE(fs::exists(dir + "/late.json"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST_F(Io, ReadsComplexInt8MatInRowOrder) {
  const std::size_t na = 3, nr = 4;
  std::int8_t re[na * nr], im[na * nr];  // MATLAB column order: element (i, j) at j * na + i
  for (std::size_t i = 0; i < na; ++i)
    for (std::size_t j = 0; j < nr; ++j) {
      re[j * na + i] = static_cast<std::int8_t>(10 * i + j);
      im[j * na + i] = static_cast<std::int8_t>(-static_cast<int>(10 * i + j));
    }
  mat_complex_split_t z{re, im};
  size_t dims[2] = {na, nr};
  mat_t* m = Mat_CreateVer((dir + "/d.mat").c_str(), nullptr, MAT_FT_MAT5);
  ASSERT_TRUE(m);
  matvar_t* v = Mat_VarCreate("data", MAT_C_INT8, MAT_T_INT8, 2, dims, &z, MAT_F_COMPLEX);
  ASSERT_EQ(Mat_VarWrite(m, v, MAT_COMPRESSION_ZLIB), 0);
  Mat_VarFree(v);
  Mat_Close(m);
  for (const std::string var : {"data", ""}) {
    const RawData r = read_raw(dir + "/d.mat", var);
    ASSERT_EQ(r.type, SampleType::int8_iq);
    ASSERT_EQ(r.lines, na);
    ASSERT_EQ(r.samples, nr);
    const auto* p = reinterpret_cast<const std::int8_t*>(r.bytes.data());
    for (std::size_t i = 0; i < na; ++i)
      for (std::size_t j = 0; j < nr; ++j) {
        EXPECT_EQ(p[2 * (i * nr + j)], static_cast<int>(10 * i + j));
        EXPECT_EQ(p[2 * (i * nr + j) + 1], -static_cast<int>(10 * i + j));
      }
  }
  EXPECT_NE(error_of([&] { read_raw(dir + "/d.mat", "nope"); }).find("no variable 'nope'"), std::string::npos);
  std::ofstream(dir + "/bad.mat") << "not a mat file at all";
  EXPECT_NE(error_of([&] { read_raw(dir + "/bad.mat"); }).find("not a MATLAB v5 .mat file"), std::string::npos);
}

TEST(IoShared, RadarsatMatHasTheDocumentedShape) {
  const std::string path = test::shared_data_dir() + "/radarsat1/scene5/CDdata1.mat";
  if (!fs::exists(path)) GTEST_SKIP() << "RADARSAT-1 data not found at " << path << " (../shared absent)";
  const RawData r = read_raw(path, "data");
  EXPECT_EQ(r.type, SampleType::int8_iq);
  EXPECT_EQ(r.lines, 1536u);
  EXPECT_EQ(r.samples, 2048u);
  const auto* p = reinterpret_cast<const std::int8_t*>(r.bytes.data());
  for (std::size_t k = 0; k < 2 * r.lines * r.samples; k += 997) {
    EXPECT_EQ(std::abs(p[k]) % 2, 1) << "4-bit odd-integer I/Q expected";
    EXPECT_LE(std::abs(p[k]), 15);
  }
}
