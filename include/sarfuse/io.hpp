// sarfuse: file formats. Outputs are written atomically: to a temporary name in the same folder,
// renamed when complete, so a failed run leaves nothing that looks like a product.
#pragma once
#include <complex>
#include <cstdint>
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
  // Every line of the file as it lies on disk, mapped read-only instead of copied, between
  // zero_before and zero_after lines of zeros: one view of zero_before + lines() + zero_after lines at
  // lines(), not read here: unlike read(), unchecked (a CPU plan checks each line as it converts it,
  // Plan::focus throwing NonFiniteSample). Null where the file's lines cannot be mapped as they are (only a plain
  // .npy on a file system that maps files can). The file must not shrink while mapped.
  class Mapping {
   public:
    virtual ~Mapping() = default;
    const std::byte* lines() const { return lines_; }

   protected:
    const std::byte* lines_ = nullptr;
  };
  virtual std::unique_ptr<Mapping> map_padded(std::size_t zero_before, std::size_t zero_after);

 protected:
  SampleType type_ = SampleType::complex64;
  std::size_t lines_ = 0, samples_ = 0;
  std::string path_;
  bool streamed_ = false;
};

// Reads a complex image (.npy complex64/complex128) as complex64.
ComplexImage read_image(const std::string& path);

void write_npy(const std::string& path, const ComplexImage& img);
// Quicklook PNG (8-bit grey): the image multilooked to at most max_pixels a side with roughly square
// ground pixels (azimuth V/PRF against slant spacing / sin(incidence)), then scaled as SAR viewers do:
// amplitude from 0 to the clip_percentile of the multilooked amplitude (or, db, the top
// dynamic_range_db below the peak).
struct QuicklookOptions {
  enum class Scale { amplitude, db };
  Scale scale = Scale::amplitude;
  double clip_percentile = 99.0;   // amplitude: the grey level 255
  double dynamic_range_db = 50.0;  // db
  double incidence_deg = 35.0;     // for the ground range pixel
  std::size_t max_pixels = 2048;
};
// Throws Error naming the option when a value is out of range (before any work).
void check_quicklook_options(const QuicklookOptions& options);
// Built row by row from the product's rows (no second pass over the product).
class Quicklook {
 public:
  // azimuth_pixel_m / range_pixel_m: ground pixel sizes of the image (0: take the pixels as square).
  Quicklook(std::size_t lines, std::size_t samples, const QuicklookOptions& options = {},
            double azimuth_pixel_m = 0, double range_pixel_m = 0);
  void add_rows(const std::complex<float>* rows, std::size_t count);
  void write(const std::string& path) const;
  std::size_t looks_azimuth() const { return look_az_; }
  std::size_t looks_range() const { return look_rg_; }
  // The 8-bit picture write() stores, row-major (height x width).
  std::vector<unsigned char> pixels() const;
  std::size_t width() const { return w_; }
  std::size_t height() const { return h_; }

 private:
  QuicklookOptions o_;
  std::size_t look_az_ = 1, look_rg_ = 1, h_ = 0, w_ = 0, samples_ = 0, next_ = 0;
  std::vector<double> power_;
};
void write_png(const std::string& path, const ComplexImage& img, const QuicklookOptions& options = {});
// Throws a clear Error when `path` cannot become an output file (its folder is missing or is a file).
void check_output_path(const std::string& path);
// Throws a clear Error when `output` names the same file as `input`.
void require_distinct_paths(const std::string& input, const std::string& output);
void write_text_file(const std::string& path, const std::string& text);
std::string read_text_file(const std::string& path);

// JSON sidecar written next to a product (`slc.npy.json`).
std::string product_sidecar_json(const RadarParams& radar, const FocusOptions& options,
                                 const ProductGeometry& geometry, std::size_t lines, std::size_t samples,
                                 const std::string& input);
// The sidecar JSON with the Doppler estimate the product was focused with (doppler_to_json) added
// under processing.doppler_estimate.
struct DopplerEstimate;
std::string with_doppler_estimate(const std::string& sidecar_json, const DopplerEstimate& estimate);
// eta_first of a product, read from its sidecar when it exists.
std::optional<double> read_sidecar_eta_first(const std::string& product_path);

// Products: the SLC, or a detected (and multilooked) image, in the format the path's extension names:
// .npy, .tif / .tiff (GeoTIFF through libtiff, the processing parameters as GDAL metadata), .h5 / .hdf5 (HDF5:
// a chunked dataset "slc" or "detected", every radar, Doppler and processing parameter as attributes,
// and the axes "azimuth_time_s" and "slant_range_m"). Written atomically.
//
// Complex samples (sample_format): complex64 (the default); complex32, IEEE half pairs (npy and HDF5:
// the compound {r, i} of float16, h5py's layout; GeoTIFF: two bands of 16-bit floats); cint16,
// 16-bit integer pairs (npy and HDF5: the compound {r, i} of int16; GeoTIFF: CInt16) whose value times
// `sample_scale` (in the metadata) is the complex64 value. Detected products are float32.
//
// Compression (HDF5 and GeoTIFF; .npy is never compressed): none; fast (HDF5: the standard byte
// shuffle + deflate filters, so any HDF5 reader opens it without a plugin; chunks compressed in
// parallel, each byte plane stored or coded as its entropy calls for, and written with direct chunk
// writes; GeoTIFF: each strip deflated the same way, unshuffled, in parallel); best (HDF5: fewer planes
// stored, a full match search on run-like planes). automatic: fast for HDF5, none for GeoTIFF (the speed of the disk).
// mantissa_bits N (1..23) rounds float samples to N mantissa bits before compressing (as ISCE3 does to
// make SLCs compressible: relative error <= 2^-(N+1)).
enum class Detection { none, amplitude, intensity, db };
Detection parse_detection(const std::string& text);  // none, amplitude, intensity, db
enum class Compression { automatic, none, fast, best };
Compression parse_compression(const std::string& text);
const char* to_string(Compression c);
struct ProductOptions {
  Detection detect = Detection::none;
  std::size_t looks_azimuth = 1, looks_range = 1;  // multilook (detected products only)
  SampleFormat sample_format = SampleFormat::complex64;
  Compression compression = Compression::automatic;
  int mantissa_bits = 0;  // 0: all
  int threads = 0;        // compression threads (0: all cores)
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
  // As write_rows, for rows written once, `pitch` samples apart in memory (0: samples, packed): a .npy
  // complex64 product takes them past the page cache where the file system allows (O_DIRECT; its data
  // starts on a 4096-byte boundary; rows of whole 4096-byte blocks, 512-byte aligned on most disks), so
  // commit()'s fsync has nothing left to copy. Other products: as write_rows.
  void write_rows_direct(const std::complex<float>* rows, std::size_t count, std::size_t pitch = 0);
  // Rows already in the product's complex32 encoding (IEEE half pairs, rounded to nearest even: what
  // write_rows would make of their complex64 values, e.g. Plan::focus_rows'); complex32 products only.
  void write_complex32_rows(const std::uint16_t* halves, std::size_t count);
  // Products whose file holds the rows as they are made (.npy, complex64, no mantissa rounding, not
  // detected) can take them in place: rows_in_place() is row 0 in the file's own memory (mapped), to be
  // written there by the focusing itself, and rows_placed() counts the next `count` rows done, in order
  // (no copy, and no buffer of their own). Either this or write_rows for one product.
  static bool takes_rows_in_place(const std::string& path, const ProductOptions& options);
  std::complex<float>* rows_in_place();
  void rows_placed(std::size_t count);
  void commit();
  // Seconds spent so far converting and compressing (encode) and handing bytes to the file (write),
  // and in commit (sync: flush, fsync, rename).
  double encode_seconds() const;
  double write_seconds() const;
  double sync_seconds() const;
  std::size_t file_bytes() const;  // after commit
  // cint16: the scale (value = stored x scale), fixed by the first rows written; 0 before.
  double sample_scale() const;
  std::size_t clipped_samples() const;  // cint16: components clipped to +-32767
  // The product's metadata (the sidecar JSON given, plus sample format, compression, scale): what the
  // .json sidecar beside the product holds; final after commit.
  std::string metadata_json() const;
  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Short description of a file: type, shape, and for parameter files the parameters.
std::string describe_file(const std::string& path);

}  // namespace sarfuse
