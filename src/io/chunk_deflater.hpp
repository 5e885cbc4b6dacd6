// One chunk of an HDF5 dataset through the standard shuffle and deflate filters, compressed the way
// H5Dwrite_chunk takes it: any HDF5 reader inflates it, no plugin needed.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

namespace sarfuse::io {

class ChunkDeflater {
 public:
  // Each shuffled byte plane as its entropy calls for it, in one zlib stream: stored when coding would
  // gain little, Huffman coded when noise-like, run-length (fast) or fully matched (best) when mostly
  // runs. best stores fewer planes and searches matches harder.
  enum class Effort { fast, best };
  explicit ChunkDeflater(Effort effort);
  ~ChunkDeflater();
  ChunkDeflater(const ChunkDeflater&) = delete;
  ChunkDeflater& operator=(const ChunkDeflater&) = delete;

  // Shuffles `n` elements of `element_size` bytes and deflates them into `out` (grown as needed);
  // returns the compressed size. One deflater per thread.
  std::size_t compress(const unsigned char* chunk, std::size_t n, std::size_t element_size,
                       std::vector<unsigned char>& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Order-0 entropy (bits per byte, 0..8) of n bytes, estimated from an evenly spaced sample of them
// (bias-corrected).
double byte_entropy_estimate(const unsigned char* bytes, std::size_t n);

}  // namespace sarfuse::io
