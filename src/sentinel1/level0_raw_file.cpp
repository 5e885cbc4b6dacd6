// A Level-0 product as the focusing pipeline's raw input (sarfuse::RawFile): its lines of one signal
// and polarisation decoded into memory, complex64, read out in blocks.
#include <cstring>

#include "sarfuse/io.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

namespace {

class Level0RawFile final : public RawFile {
 public:
  Level0RawFile(const std::string& product, const DecodeOptions& o) {
    decode_lines(product, o, decoded_);
    type_ = SampleType::complex64;
    lines_ = decoded_.lines;
    samples_ = decoded_.samples;
    path_ = product;
  }
  void read(std::size_t first, std::size_t count, void* dst) override {
    std::memcpy(dst, decoded_.data.row(first), count * samples_ * sizeof(std::complex<float>));
  }

 private:
  DecodedLines decoded_;
};

}  // namespace

std::unique_ptr<RawFile> open_level0(const std::string& product, const DecodeOptions& options) {
  return std::make_unique<Level0RawFile>(product, options);
}

}  // namespace sarfuse::sentinel1
