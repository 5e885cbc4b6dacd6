// A TIFF written strip by strip through libtiff's raw strip writes: each strip goes to the file in one
// write() call, straight from the caller's rows (GDAL's GeoTIFF layer copied every byte through a
// 64 KB buffer; docs/design.md, "Products"). Compressed strips are deflated in parallel first. The
// GDAL_METADATA tag carries the metadata items in the form GDAL reads back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sarfuse::io {

// TIFF SampleFormat values (TIFF 6.0, tag 339).
enum class TiffSampleFormat : int { ieee_float = 3, complex_int = 5, complex_float = 6 };

struct TiffLayout {
  std::size_t width = 0, height = 0, rows_per_strip = 16;
  int samples_per_pixel = 1;  // 2: pixel-interleaved pairs (complex halves as two bands)
  int bits_per_sample = 64;
  TiffSampleFormat sample_format = TiffSampleFormat::complex_float;
};

class TiffStripWriter {
 public:
  enum class Deflate { none, fast, best };
  // Creates `file` (BigTIFF when the image could pass 4 GiB); `name` is the path messages give.
  TiffStripWriter(const std::string& file, const std::string& name, const TiffLayout& layout, Deflate deflate, int threads);
  ~TiffStripWriter();
  TiffStripWriter(const TiffStripWriter&) = delete;
  TiffStripWriter& operator=(const TiffStripWriter&) = delete;

  std::size_t row_bytes() const;
  // `count` rows from image row `first`, which starts a strip; whole strips but at the image's end.
  void write_rows(const unsigned char* rows, std::size_t count, std::size_t first);
  // The GDAL_METADATA items: {name, value} for the dataset, band descriptions and scale per sample.
  void set_metadata(std::vector<std::pair<std::string, std::string>> items,
                    std::vector<std::string> band_descriptions, double band_scale);
  // Writes the directory and closes the file; throws FileError on failure.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sarfuse::io
