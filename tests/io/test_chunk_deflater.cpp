// The HDF5 chunk codec against zlib's own inflate: every kind of plane it treats differently.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

#include "io/chunk_deflater.hpp"
#include "io/sample_encoding.hpp"

using namespace sarfuse;

namespace {

// inflate + un-shuffle: what an HDF5 reader does with the chunk.
std::vector<unsigned char> read_back(const std::vector<unsigned char>& packed, std::size_t size, std::size_t n,
                                     std::size_t element) {
  std::vector<unsigned char> shuffled(n * element), plain(n * element);
  uLongf got = static_cast<uLongf>(shuffled.size());
  EXPECT_EQ(uncompress(shuffled.data(), &got, packed.data(), static_cast<uLong>(size)), Z_OK);
  EXPECT_EQ(got, shuffled.size());
  for (std::size_t b = 0; b < element; ++b)
    for (std::size_t k = 0; k < n; ++k) plain[k * element + b] = shuffled[b * n + k];
  return plain;
}

std::vector<unsigned char> bytes_of(const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  return {b, b + n};
}

}  // namespace

TEST(ChunkDeflater, EveryKindOfChunkInflatesToItself) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 30.0f);
  const std::size_t n = 128 * 1024;
  std::vector<std::complex<float>> slc(n);
  for (auto& v : slc) v = {normal(rng), normal(rng)};
  std::vector<std::complex<float>> rounded = slc;
  io::round_mantissa(reinterpret_cast<float*>(rounded.data()), 2 * n, 10);
  std::vector<std::int16_t> cint16(2 * n);
  for (auto& v : cint16) v = static_cast<std::int16_t>(std::lround(normal(rng) * 20));
  std::vector<std::complex<float>> padded(n);  // a partial edge chunk: a few rows, zeros after them
  std::copy(slc.begin(), slc.begin() + 3000, padded.begin());
  struct Case {
    const char* name;
    std::vector<unsigned char> bytes;
    std::size_t element;
    double min_ratio;  // fast
  } cases[] = {
      {"random complex64", bytes_of(slc.data(), 8 * n), 8, 1.10},
      {"10 mantissa bits", bytes_of(rounded.data(), 8 * n), 8, 2.0},
      {"cint16", bytes_of(cint16.data(), 4 * n), 4, 1.25},
      {"mostly zero padding", bytes_of(padded.data(), 8 * n), 8, 20.0},
      {"odd size", bytes_of(slc.data(), 8 * 1001), 8, 1.05},
  };
  for (const auto effort : {io::ChunkDeflater::Effort::fast, io::ChunkDeflater::Effort::best}) {
    io::ChunkDeflater deflater(effort);  // one deflater for every case: its stream is reset each time
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      const std::size_t elements = c.bytes.size() / c.element;
      std::vector<unsigned char> packed;
      const std::size_t size = deflater.compress(c.bytes.data(), elements, c.element, packed);
      ASSERT_GT(size, 0u);
      EXPECT_EQ(read_back(packed, size, elements, c.element), c.bytes);
      const double ratio = static_cast<double>(c.bytes.size()) / static_cast<double>(size);
      std::printf("%-20s %s ratio %.3f\n", c.name, effort == io::ChunkDeflater::Effort::fast ? "fast" : "best", ratio);
      EXPECT_GE(ratio, c.min_ratio);
    }
  }
}

TEST(ChunkDeflater, EntropyEstimateSpansConstantToRandom) {
  std::vector<unsigned char> constant(100000, 42), two(100000), random(100000);
  std::mt19937 rng(3);
  for (std::size_t k = 0; k < two.size(); ++k) two[k] = static_cast<unsigned char>(rng() & 1);
  for (auto& b : random) b = static_cast<unsigned char>(rng());
  EXPECT_DOUBLE_EQ(io::byte_entropy_estimate(constant.data(), constant.size()), 0.0);
  EXPECT_NEAR(io::byte_entropy_estimate(two.data(), two.size()), 1.0, 0.02);
  EXPECT_NEAR(io::byte_entropy_estimate(random.data(), random.size()), 8.0, 0.1);
  EXPECT_DOUBLE_EQ(io::byte_entropy_estimate(random.data(), 0), 0.0);
}
