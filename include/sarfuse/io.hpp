// sarfuse: file formats. Outputs are written atomically: to a temporary name in the same folder,
// renamed when complete, so a failed run leaves nothing that looks like a product.
#pragma once
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"
#include "sarfuse/params.hpp"
#include "sarfuse/plan.hpp"

namespace sarfuse {

// .npy: complex64/complex128 (Na, Nr) or int8/int16 (Na, Nr, 2). .mat (MATLAB v5): `var` names the
// variable (default: the first numeric one); complex int8/int16/single/double.
// Rejects NaN/Inf samples, naming the file.
RawData read_raw(const std::string& path, const std::string& var = "");
// Raw lines read on demand, so a take of any length is focused with bounded memory. .npy: read from
// disk block by block (never held whole); .mat: matio reads the variable whole, which is then held.
class RawFile {
 public:
  static std::unique_ptr<RawFile> open(const std::string& path, const std::string& var = "");
  virtual ~RawFile() = default;
  SampleType type() const { return type_; }
  std::size_t lines() const { return lines_; }
  std::size_t samples() const { return samples_; }
  const std::string& path() const { return path_; }
  bool streamed() const { return streamed_; }
  // Lines [first, first + count) in their on-disk sample type into dst (count x samples x
  // bytes_per_sample); rejects NaN/Inf samples, naming the file and the sample.
  virtual void read(std::size_t first, std::size_t count, void* dst) = 0;

 protected:
  SampleType type_ = SampleType::complex64;
  std::size_t lines_ = 0, samples_ = 0;
  std::string path_;
  bool streamed_ = false;
};

// Reads a complex image (.npy complex64/complex128) as complex64.
ComplexImage read_image(const std::string& path);

void write_npy(const std::string& path, const ComplexImage& img);
// dB quicklook: |x|^2 multilooked so neither side exceeds max_pixels, dynamic_range_db below the peak.
void write_png(const std::string& path, const ComplexImage& img, double dynamic_range_db = 50.0,
               std::size_t max_pixels = 2048);
// The dB quicklook built row by row (for products written in blocks): the same picture as write_png.
class Quicklook {
 public:
  Quicklook(std::size_t lines, std::size_t samples, std::size_t max_pixels = 2048);
  void add_rows(const std::complex<float>* rows, std::size_t count);
  void write(const std::string& path, double dynamic_range_db = 50.0) const;

 private:
  std::size_t look_ = 1, h_ = 0, w_ = 0, samples_ = 0, next_ = 0;
  std::vector<double> power_;
};
// Throws a clear Error when `path` cannot become an output file (its folder is missing or is a file).
void check_output_path(const std::string& path);
void write_text_file(const std::string& path, const std::string& text);
std::string read_text_file(const std::string& path);

// JSON sidecar written next to a product (`slc.npy.json`).
std::string product_sidecar_json(const RadarParams& radar, const FocusOptions& options,
                                 const ProductGeometry& geometry, std::size_t lines, std::size_t samples,
                                 const std::string& input);
// eta_first of a product, read from its sidecar when it exists.
std::optional<double> read_sidecar_eta_first(const std::string& product_path);

// Products: the SLC, or a detected (and multilooked) image, in the format the path's extension names:
// .npy (complex64 / float32), .tif / .tiff (GeoTIFF through GDAL: CFloat32 / Float32, the processing
// parameters as metadata), .h5 / .hdf5 (HDF5: a chunked, deflate-compressed dataset "slc" (complex64 as
// the compound {r, i}, h5py's layout) or "detected" (float32), every radar, Doppler and processing
// parameter as attributes, and the axes "azimuth_time_s" and "slant_range_m"). Written atomically.
enum class Detection { none, amplitude, intensity, db };
Detection parse_detection(const std::string& text);  // none, amplitude, intensity, db
struct ProductOptions {
  Detection detect = Detection::none;
  std::size_t looks_azimuth = 1, looks_range = 1;  // multilook (detected products only)
};
// Throws Error for an unknown extension or options the format cannot hold, before any work.
void check_product_path(const std::string& path, const ProductOptions& options);
// `metadata_json` is the product's sidecar JSON (product_sidecar_json), flattened into attributes.
void write_product(const std::string& path, const ComplexImage& slc, const ProductOptions& options,
                   const std::string& metadata_json);

// The same, row by row: rows of the SLC in order (write_rows), then commit(); the file appears only
// on commit, complete (destroyed before: nothing is left). Detected products multilook as rows arrive.
class ProductWriter {
 public:
  ProductWriter(const std::string& path, std::size_t lines, std::size_t samples, const ProductOptions& options,
                const std::string& metadata_json);
  ProductWriter(const ProductWriter&) = delete;
  ProductWriter& operator=(const ProductWriter&) = delete;
  ~ProductWriter();
  void write_rows(const std::complex<float>* rows, std::size_t count);
  void commit();
  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Short description of a file: type, shape, and for parameter files the parameters.
std::string describe_file(const std::string& path);

}  // namespace sarfuse
