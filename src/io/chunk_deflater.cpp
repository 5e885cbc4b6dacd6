// Shuffle + deflate of one HDF5 chunk (io/chunk_deflater.hpp).
//
// Why per plane: after the shuffle a float32 chunk is byte planes, and on SLC samples only the
// sign/exponent planes compress; deflating the random mantissa planes costs three quarters of the
// time for none of the gain. zlib can change level and strategy inside one stream (deflateParams), so
// the planes are stored or coded each as its own entropy says, and the stream stays plain deflate.
#include "io/chunk_deflater.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "io/sample_encoding.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::io {

namespace {
// fast: a plane above this entropy gains at most ~6 % from Huffman coding: stored, at memcpy speed.
// best: only planes that would gain under ~1 % are stored.
constexpr double kFastStoreAbove = 7.5, kBestStoreAbove = 7.9;
// Below this the plane is mostly runs (rounded mantissas, zero padding): run-length coded (fast) or
// with deflate's full match search (best); above it Huffman coded alone, which on noise-like planes
// beats the match search (docs/design.md, "Products").
constexpr double kRunsBelow = 2.0;
}  // namespace

double byte_entropy_estimate(const unsigned char* bytes, std::size_t n) {
  if (n == 0) return 0.0;
  const std::size_t stride = std::max<std::size_t>(1, n / 16384);
  std::array<std::size_t, 256> count{};
  std::size_t taken = 0;
  for (std::size_t k = 0; k < n; k += stride, ++taken) ++count[bytes[k]];
  double bits = 0;
  std::size_t seen = 0;
  for (std::size_t c : count)
    if (c) {
      const double p = static_cast<double>(c) / static_cast<double>(taken);
      bits -= p * std::log2(p);
      ++seen;
    }
  // Miller-Madow: a sample's entropy is short of the source's by about (symbols - 1) / (2 N ln 2).
  bits += static_cast<double>(seen - 1) / (2.0 * static_cast<double>(taken) * std::log(2.0));
  return std::min(bits, 8.0);
}

struct ChunkDeflater::Impl {
  Effort effort;
  z_stream zs{};
  bool zs_ready = false;
  int level = 0, strategy = Z_DEFAULT_STRATEGY;
  std::vector<unsigned char> shuffled;

  ~Impl() {
    if (zs_ready) deflateEnd(&zs);
  }

  std::size_t deflate_planes(std::size_t n, std::size_t size, std::vector<unsigned char>& out) {
    const std::size_t bytes = n * size;
    if (!zs_ready) {
      if (deflateInit2(&zs, level, Z_DEFLATED, 15, 8, strategy) != Z_OK) throw Error("zlib: deflateInit2 failed");
      zs_ready = true;
    } else if (deflateReset(&zs) != Z_OK) {
      throw Error("zlib: deflateReset failed");
    }
    out.resize(compressBound(static_cast<uLong>(bytes)) + 64 * size);
    zs.next_out = out.data();
    zs.avail_out = static_cast<uInt>(out.size());
    for (std::size_t b = 0; b < size; ++b) {
      unsigned char* plane = shuffled.data() + b * n;
      const double e = byte_entropy_estimate(plane, n);
      const bool best = effort == Effort::best;
      int want_level = 0, want_strategy = Z_DEFAULT_STRATEGY;
      if (e <= (best ? kBestStoreAbove : kFastStoreAbove)) {
        want_level = best ? 9 : 1;
        want_strategy = e >= kRunsBelow ? Z_HUFFMAN_ONLY : best ? Z_DEFAULT_STRATEGY : Z_RLE;
      }
      if (want_level != level || want_strategy != strategy) {
        if (deflateParams(&zs, want_level, want_strategy) != Z_OK) throw Error("zlib: deflateParams failed");
        level = want_level;
        strategy = want_strategy;
      }
      zs.next_in = plane;
      zs.avail_in = static_cast<uInt>(n);
      const int rc = deflate(&zs, b + 1 == size ? Z_FINISH : Z_NO_FLUSH);
      if (rc != (b + 1 == size ? Z_STREAM_END : Z_OK) || zs.avail_in != 0)
        throw Error("zlib: a chunk did not fit its bound");
    }
    return static_cast<std::size_t>(zs.total_out);
  }
};

ChunkDeflater::ChunkDeflater(Effort effort) : impl_(std::make_unique<Impl>()) { impl_->effort = effort; }
ChunkDeflater::~ChunkDeflater() = default;

std::size_t ChunkDeflater::compress(const unsigned char* chunk, std::size_t n, std::size_t element_size,
                                    std::vector<unsigned char>& out) {
  Impl& m = *impl_;
  const std::size_t bytes = n * element_size;
  if (m.shuffled.size() < bytes) m.shuffled.resize(bytes);
  byte_shuffle(chunk, m.shuffled.data(), n, element_size);
  return m.deflate_planes(n, element_size, out);
}

}  // namespace sarfuse::io
