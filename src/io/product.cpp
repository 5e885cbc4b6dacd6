// Product writers: .npy, GeoTIFF (libtiff), HDF5 (see sarfuse/io.hpp). One writer class for the three
// formats, since they share the row flow (detection, sample encoding, whole strips, writeback); each
// format has its own open_/write_/close_ methods.
#include <hdf5.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <complex>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/chunk_deflater.hpp"
#include "core/memory.hpp"
#include "core/threads.hpp"
#include "io/npy.hpp"
#include "io/sample_encoding.hpp"
#include "io/tiff_strip_writer.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse {

namespace {

std::string extension_of(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

enum class Format { npy, tiff, hdf5 };
Format format_of(const std::string& path) {
  const std::string e = extension_of(path);
  if (e == ".npy") return Format::npy;
  if (e == ".tif" || e == ".tiff") return Format::tiff;
  if (e == ".h5" || e == ".hdf5") return Format::hdf5;
  throw Error("output '" + path + "': unknown product format '" + e + "'; expected .npy, .tif/.tiff or .h5/.hdf5");
}

// The sidecar JSON flattened: "radar.prf_hz" -> "1256.98".
void flatten(const nlohmann::json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_string()) {
    out.emplace_back(prefix, j.get<std::string>());
  } else {
    out.emplace_back(prefix, j.dump());
  }
}

struct H5Closer {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  H5Closer() = default;
  H5Closer(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  H5Closer(const H5Closer&) = delete;
  H5Closer(H5Closer&& o) noexcept : id(o.id), close(o.close) { o.id = -1; }
  H5Closer& operator=(H5Closer&& o) noexcept {
    reset();
    id = o.id;
    close = o.close;
    o.id = -1;
    return *this;
  }
  void reset() {
    if (id >= 0 && close) close(id);
    id = -1;
  }
  ~H5Closer() { reset(); }
};

// HDF5 (a thread-safe build: error settings per thread) on the calling thread: its error stack not
// printed (our messages say it); once per process, no clean-up at exit, where a file whose close
// failed (a full disk) would make it crash.
void quiet_hdf5() {
  static std::once_flag once;
  std::call_once(once, [] { H5dont_atexit(); });
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

void h5_check(hid_t id, const std::string& path, const char* what) {
  if (id < 0) throw FileError("writing '" + path + "' failed: HDF5: " + what);
}

}  // namespace

Detection parse_detection(const std::string& t) {
  if (t == "none") return Detection::none;
  if (t == "amplitude") return Detection::amplitude;
  if (t == "intensity") return Detection::intensity;
  if (t == "db") return Detection::db;
  throw Error("detect: expected none, amplitude, intensity or db (got '" + t + "')");
}

SampleFormat parse_sample_format(const std::string& t) {
  if (t == "complex64") return SampleFormat::complex64;
  if (t == "complex32") return SampleFormat::complex32;
  if (t == "cint16") return SampleFormat::cint16;
  throw Error("sample_format: expected complex64, complex32 or cint16 (got '" + t + "')");
}

const char* to_string(SampleFormat f) {
  switch (f) {
    case SampleFormat::complex64: return "complex64";
    case SampleFormat::complex32: return "complex32";
    case SampleFormat::cint16: return "cint16";
  }
  return "?";
}

Compression parse_compression(const std::string& t) {
  if (t == "auto") return Compression::automatic;
  if (t == "none") return Compression::none;
  if (t == "fast") return Compression::fast;
  if (t == "best") return Compression::best;
  throw Error("compression: expected auto, none, fast or best (got '" + t + "')");
}

const char* to_string(Compression c) {
  switch (c) {
    case Compression::automatic: return "auto";
    case Compression::none: return "none";
    case Compression::fast: return "fast";
    case Compression::best: return "best";
  }
  return "?";
}

void check_product_path(const std::string& path, const ProductOptions& o) {
  check_output_path(path);
  const Format f = format_of(path);
  if (o.looks_azimuth == 0 || o.looks_range == 0) throw Error("multilook: looks must be >= 1");
  if (o.detect == Detection::none && (o.looks_azimuth > 1 || o.looks_range > 1))
    throw Error("multilook applies to detected products (detect amplitude, intensity or db)");
  if (o.detect != Detection::none && o.sample_format != SampleFormat::complex64)
    throw Error("sample_format applies to complex products (detected products are float32)");
  if (f == Format::npy && (o.compression == Compression::fast || o.compression == Compression::best))
    throw Error("compression " + std::string(to_string(o.compression)) + ": .npy products are not compressed; use .h5 or .tif");
  if (o.mantissa_bits != 0 && (o.mantissa_bits < 1 || o.mantissa_bits > 23))
    throw Error("mantissa_bits: expected 1..23 (got " + std::to_string(o.mantissa_bits) + ")");
  if (o.mantissa_bits != 0 && o.sample_format != SampleFormat::complex64)
    throw Error("mantissa_bits applies to float32 samples (complex64 or detected products)");
}

class ProductWriter::Impl {
 public:
  using Clock = std::chrono::steady_clock;
  static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  // HDF5 chunks: 128 rows x 1024 columns (1 MiB of complex64), a strip of them compressed at a time.
  static constexpr std::size_t kChunkRows = 128, kChunkCols = 1024;
  static constexpr std::size_t kTiffStripRows = 16;
  static constexpr std::size_t kWritebackBytes = std::size_t{64} << 20;  // disk writes start every 64 MiB

  Impl(const std::string& path, std::size_t lines, std::size_t samples, const ProductOptions& o, const std::string& meta)
      : file_((check_product_path(path, o), path)), path_(path), fmt_(format_of(path)), o_(o), samples_(samples),
        complex_(o.detect == Detection::none) {
    compression_ = o.compression != Compression::automatic ? o.compression
                   : fmt_ == Format::hdf5                  ? Compression::fast
                                                           : Compression::none;
    threads_ = core::resolve_threads(o.threads);
    side_ = nlohmann::json::parse(meta);
    rows_ = complex_ ? lines : lines / o.looks_azimuth;
    cols_ = complex_ ? samples : samples / o.looks_range;
    if (rows_ == 0 || cols_ == 0) throw Error("multilook: more looks than the image has lines or samples");
    elem_ = complex_ && o.sample_format == SampleFormat::complex64 ? 8 : 4;
    if (!complex_) {
      const char* names[] = {"complex64", "amplitude", "intensity", "intensity_db"};
      side_["dtype"] = std::string("float32 ") + names[static_cast<int>(o.detect)];
      side_["shape"] = {rows_, cols_};
      side_["looks_azimuth"] = o.looks_azimuth;
      side_["looks_range"] = o.looks_range;
      acc_.assign(cols_, 0.0);
      det_.resize(cols_);
    } else {
      side_["sample_format"] = to_string(o.sample_format);
      if (o.sample_format != SampleFormat::complex64) side_["dtype"] = to_string(o.sample_format);
    }
    side_["compression"] = fmt_ == Format::npy ? "none" : compression_description();
    if (o.mantissa_bits) side_["mantissa_bits"] = o.mantissa_bits;
    switch (fmt_) {
      case Format::npy: open_npy(); break;
      case Format::tiff: open_tiff(); break;
      case Format::hdf5: open_hdf5(); break;
    }
  }
  ~Impl() {
    if (fmt_ == Format::hdf5) quiet_hdf5();  // closing a file that failed to write
  }

  void write_rows(const std::complex<float>* rows, std::size_t count) {
    if (complex_) {
      if (out_ + count > rows_) throw Error("product '" + path_ + "': more rows than announced");
      const auto t = Clock::now();
      const void* data = encode(rows, count);
      encode_s_ += since(t);
      emit(data, count);
      return;
    }
    const double n = static_cast<double>(o_.looks_azimuth * o_.looks_range);
    for (std::size_t i = 0; i < count; ++i, ++in_) {
      if (in_ / o_.looks_azimuth >= rows_) continue;  // the lines left over by the looks
      const auto t = Clock::now();
      const std::complex<float>* r = rows + i * samples_;
      for (std::size_t j = 0; j < cols_ * o_.looks_range; ++j) acc_[j / o_.looks_range] += std::norm(r[j]);
      if ((in_ + 1) % o_.looks_azimuth) {
        encode_s_ += since(t);
        continue;
      }
      for (std::size_t j = 0; j < cols_; ++j) {
        const double p = acc_[j] / n;
        double v = p;
        if (o_.detect == Detection::amplitude) v = std::sqrt(p);
        else if (o_.detect == Detection::db) v = 10.0 * std::log10(std::max(p, 1e-30));
        det_[j] = static_cast<float>(v);
        acc_[j] = 0;
      }
      if (o_.mantissa_bits) io::round_mantissa(det_.data(), cols_, o_.mantissa_bits);
      encode_s_ += since(t);
      emit(det_.data(), 1);
    }
  }

  std::complex<float>* rows_in_place() {
    if (!(fmt_ == Format::npy && takes_rows_in_place(o_)))
      throw Error("product '" + path_ + "': only .npy complex64 products without mantissa rounding take rows in place");
    if (!placed_) {
      if (out_) throw Error("product '" + path_ + "': rows in place after rows written");
      const auto t = Clock::now();
      placed_ = reinterpret_cast<std::complex<float>*>(file_.map(header_bytes_ + rows_ * cols_ * elem_) + header_bytes_);
      // Its pages now, on every thread: the focusing's scatter would otherwise fault them in one by one.
      core::prefault_pages(placed_, rows_ * cols_ * elem_, threads_);
      write_s_ += since(t);
    }
    return placed_;
  }
  void rows_placed(std::size_t count) {
    if (!placed_) throw Error("product '" + path_ + "': rows placed without rows_in_place()");
    if (out_ + count > rows_) throw Error("product '" + path_ + "': more rows than announced");
    counted(count);
  }
  // Rows `pitch` samples apart: a .npy product with nothing to encode takes them as they are, past the
  // page cache where it can (AtomicFile::write_direct_rows); others as write_rows, row by row.
  void write_rows_direct(const std::complex<float>* rows, std::size_t count, std::size_t pitch) {
    if (pitch == 0) pitch = samples_;
    if (fmt_ == Format::npy && complex_ && takes_rows_in_place(o_)) {
      if (placed_) throw Error("product '" + path_ + "': rows written after rows in place");
      if (out_ + count > rows_) throw Error("product '" + path_ + "': more rows than announced");
      const auto t = Clock::now();
      file_.write_direct_rows(rows, cols_ * elem_, count, pitch * sizeof(std::complex<float>));
      write_s_ += since(t);
      counted(count);
      return;
    }
    if (pitch == samples_) return write_rows(rows, count);
    for (std::size_t k = 0; k < count; ++k) write_rows(rows + k * pitch, 1);
  }

  static bool takes_rows_in_place(const ProductOptions& o) {
    return o.detect == Detection::none && o.sample_format == SampleFormat::complex64 && o.mantissa_bits == 0;
  }

  void write_complex32_rows(const std::uint16_t* halves, std::size_t count) {
    if (!complex_ || o_.sample_format != SampleFormat::complex32)
      throw Error("product '" + path_ + "': complex32 rows given to a " +
                  (complex_ ? std::string(to_string(o_.sample_format)) : std::string("detected")) + " product");
    if (out_ + count > rows_) throw Error("product '" + path_ + "': more rows than announced");
    emit(halves, count);
  }

  void commit() {
    if (out_ != rows_)
      throw Error("product '" + path_ + "': " + std::to_string(out_) + " of " + std::to_string(rows_) + " rows written");
    const auto t = Clock::now();
    if (o_.sample_format == SampleFormat::cint16 && complex_) {
      side_["sample_scale"] = scale_;
      side_["clipped_components"] = clipped_;
    }
    switch (fmt_) {
      case Format::npy: break;
      case Format::tiff: {
        flush_strip();
        std::vector<std::pair<std::string, std::string>> meta;
        flatten(side_, "", meta);
        for (auto& item : meta) item.first = "SARFUSE_" + item.first;
        const bool half = complex_ && o_.sample_format == SampleFormat::complex32;
        tiff_->set_metadata(std::move(meta),
                            half ? std::vector<std::string>{"slc real", "slc imaginary"}
                                 : std::vector<std::string>{complex_ ? "slc" : "detected"},
                            complex_ && o_.sample_format == SampleFormat::cint16 ? scale_ : 0.0);
        tiff_->close();
        break;
      }
      case Format::hdf5:
        quiet_hdf5();
        flush_strip();
        close_hdf5();
        break;
    }
    file_.commit();
    sync_s_ += since(t);
    committed_bytes_ = static_cast<std::size_t>(std::filesystem::file_size(path_));
  }

  double encode_s_ = 0, write_s_ = 0, sync_s_ = 0;
  std::size_t committed_bytes_ = 0, clipped_ = 0;
  double scale_ = 0;
  nlohmann::json side_;

 private:
  std::string compression_description() const {
    if (compression_ == Compression::none) return "none";
    if (fmt_ == Format::tiff)
      return compression_ == Compression::best ? "deflate:best"
                                               : "deflate:fast (each strip stored, run-length or Huffman coded by its entropy)";
    return compression_ == Compression::best ? "shuffle+deflate:9"
                                             : "shuffle+deflate:fast (byte planes stored, run-length or Huffman coded by their entropy)";
  }

  // The rows in the product's sample format (a pointer to them, or into enc_).
  const void* encode(const std::complex<float>* rows, std::size_t count) {
    const std::size_t n = count * cols_ * 2;  // float components
    const float* in = reinterpret_cast<const float*>(rows);
    const long parts = static_cast<long>(std::min<std::size_t>(static_cast<std::size_t>(threads_), count));
    const std::size_t per = (count + static_cast<std::size_t>(parts) - 1) / static_cast<std::size_t>(parts) * cols_ * 2;
    auto each_part = [&](auto&& f) {
#pragma omp parallel for num_threads(parts) schedule(static)
      for (long p = 0; p < parts; ++p) {
        const std::size_t from = std::min(n, static_cast<std::size_t>(p) * per), to = std::min(n, from + per);
        f(from, to);
      }
    };
    switch (o_.sample_format) {
      case SampleFormat::complex64: {
        if (!o_.mantissa_bits) return rows;
        if (f32_.size() < n) f32_.resize(n);
        each_part([&](std::size_t a, std::size_t b) {
          std::copy(in + a, in + b, f32_.data() + a);
          io::round_mantissa(f32_.data() + a, b - a, o_.mantissa_bits);
        });
        return f32_.data();
      }
      case SampleFormat::complex32: {
        if (enc_.size() < n * 2) enc_.resize(n * 2);
        auto* out = reinterpret_cast<std::uint16_t*>(enc_.data());
        each_part([&](std::size_t a, std::size_t b) { io::floats_to_half(in + a, out + a, b - a); });
        return enc_.data();
      }
      case SampleFormat::cint16: {
        if (scale_ == 0) scale_ = io::cint16_scale(rows, count * samples_);
        if (enc_.size() < n * 2) enc_.resize(n * 2);
        auto* out = reinterpret_cast<std::int16_t*>(enc_.data());
        const float inverse = static_cast<float>(1.0 / scale_);
        std::size_t clipped = 0;
        const long np = parts;
#pragma omp parallel for num_threads(np) schedule(static) reduction(+ : clipped)
        for (long p = 0; p < np; ++p) {
          const std::size_t from = std::min(n, static_cast<std::size_t>(p) * per), to = std::min(n, from + per);
          clipped += io::floats_to_int16(in + from, out + from, to - from, inverse);
        }
        clipped_ += clipped;
        return enc_.data();
      }
    }
    return rows;
  }

  void emit(const void* data, std::size_t count) {
    if (placed_) throw Error("product '" + path_ + "': rows written after rows in place");
    const auto* bytes = static_cast<const unsigned char*>(data);
    if (batch_rows_ == 0) {
      write_rows_now(bytes, count, out_);
    } else {
      // Whole strips (HDF5 chunk rows, TIFF strips) straight from the rows; the rest waits in strip_.
      const std::size_t row_bytes = emitted_row_bytes();
      std::size_t done = 0;
      if (strip_rows_) {
        const std::size_t n = std::min(count, batch_rows_ - strip_rows_);
        std::memcpy(strip_.data() + strip_rows_ * row_bytes, bytes, n * row_bytes);
        strip_rows_ += n;
        done = n;
        if (strip_rows_ == batch_rows_) {
          write_rows_now(strip_.data(), strip_rows_, strip_first_row_);
          strip_first_row_ += strip_rows_;
          strip_rows_ = 0;
        }
      }
      const std::size_t whole = (count - done) / batch_rows_ * batch_rows_;
      if (whole) {
        write_rows_now(bytes + done * row_bytes, whole, strip_first_row_);
        strip_first_row_ += whole;
        done += whole;
      }
      if (done < count) {
        std::memcpy(strip_.data(), bytes + done * row_bytes, (count - done) * row_bytes);
        strip_rows_ = count - done;
      }
    }
    counted(count);
  }

  // `count` more rows in the file: every kWritebackBytes the disk is set writing them.
  void counted(std::size_t count) {
    out_ += count;
    // (Not after the last rows: commit()'s fsync follows.)
    if ((written_since_writeback_ += count * emitted_row_bytes()) >= kWritebackBytes && out_ < rows_) {
      // In place, the rows after these may be being made: only the rows counted are final.
      file_.start_writeback(placed_ ? header_bytes_ + out_ * emitted_row_bytes() : 0);
      written_since_writeback_ = 0;
    }
  }

  // The last, partial strip (at commit).
  void flush_strip() {
    if (!strip_rows_) return;
    write_rows_now(strip_.data(), strip_rows_, strip_first_row_);
    strip_first_row_ += strip_rows_;
    strip_rows_ = 0;
  }

  // `count` encoded rows from product row `first` into the file (for batched formats: whole strips,
  // but at the end).
  void write_rows_now(const unsigned char* data, std::size_t count, std::size_t first) {
    switch (fmt_) {
      case Format::npy: {
        const auto t = Clock::now();
        file_.write(data, count * cols_ * elem_);
        write_s_ += since(t);
        break;
      }
      case Format::tiff: {
        const auto t = Clock::now();
        tiff_->write_rows(data, count, first);
        write_s_ += since(t);
        break;
      }
      case Format::hdf5: {
        quiet_hdf5();
        if (compression_ == Compression::none) {
          const auto t = Clock::now();
          const hsize_t start[2] = {first, 0}, extent[2] = {count, cols_};
          H5Closer file_space{H5Dget_space(h5_ds_.id), H5Sclose};
          H5Sselect_hyperslab(file_space.id, H5S_SELECT_SET, start, nullptr, extent, nullptr);
          H5Closer mem{H5Screate_simple(2, extent, nullptr), H5Sclose};
          if (H5Dwrite(h5_ds_.id, h5_type_.id, mem.id, file_space.id, H5P_DEFAULT, data) < 0) h5_check(-1, path_, "write");
          write_s_ += since(t);
          break;
        }
        write_chunks(data, count, first);
        break;
      }
    }
  }

  // HDF5 with compression: the chunks of `count` rows (whole chunk rows but at the end) from product
  // row `first`, each gathered (zero-padded at the edges), shuffled and deflated in parallel, a group
  // of strips at a time, then written in order with direct chunk writes.
  void write_chunks(const unsigned char* data, std::size_t count, std::size_t first) {
    const std::size_t chunk_cols = std::min(cols_, kChunkCols), per_strip = (cols_ + chunk_cols - 1) / chunk_cols;
    const std::size_t chunk_bytes = chunk_rows_ * chunk_cols * elem_, row_bytes = cols_ * elem_;
    const std::size_t strips = (count + chunk_rows_ - 1) / chunk_rows_;
    const std::size_t group = std::max<std::size_t>(1, 4 * static_cast<std::size_t>(threads_) / per_strip);  // strips at once
    if (deflaters_.empty()) {
      const auto effort = compression_ == Compression::best ? io::ChunkDeflater::Effort::best : io::ChunkDeflater::Effort::fast;
      for (int k = 0; k < threads_; ++k) deflaters_.push_back(std::make_unique<io::ChunkDeflater>(effort));
      gather_.assign(static_cast<std::size_t>(threads_), std::vector<unsigned char>(chunk_bytes));
    }
    for (std::size_t s0 = 0; s0 < strips; s0 += group) {
      auto t = Clock::now();
      const std::size_t ns = std::min(group, strips - s0), n = ns * per_strip;
      if (packed_.size() < n) packed_.resize(n);
      packed_size_.assign(n, 0);
      const long jobs = static_cast<long>(n);
      std::exception_ptr failure;
#pragma omp parallel for num_threads(threads_) schedule(dynamic)
      for (long c = 0; c < jobs; ++c) {
        const std::size_t strip = s0 + static_cast<std::size_t>(c) / per_strip, col0 = (static_cast<std::size_t>(c) % per_strip) * chunk_cols;
        const std::size_t rows = std::min(chunk_rows_, count - strip * chunk_rows_), w = std::min(chunk_cols, cols_ - col0);
        const std::size_t thread = static_cast<std::size_t>(omp_get_thread_num());
        unsigned char* plain = gather_[thread].data();
        if (rows < chunk_rows_ || w < chunk_cols) std::memset(plain, 0, chunk_bytes);
        const unsigned char* src = data + strip * chunk_rows_ * row_bytes + col0 * elem_;
        for (std::size_t r = 0; r < rows; ++r) std::memcpy(plain + r * chunk_cols * elem_, src + r * row_bytes, w * elem_);
        try {
          packed_size_[static_cast<std::size_t>(c)] =
              deflaters_[thread]->compress(plain, chunk_bytes / h5_elem_, h5_elem_, packed_[static_cast<std::size_t>(c)]);
        } catch (...) {
#pragma omp critical(sarfuse_chunk_failure)
          if (!failure) failure = std::current_exception();
        }
      }
      if (failure) std::rethrow_exception(failure);
      encode_s_ += since(t);
      t = Clock::now();
      for (std::size_t c = 0; c < n; ++c) {
        const hsize_t offset[2] = {first + (s0 + c / per_strip) * chunk_rows_, (c % per_strip) * chunk_cols};
        if (H5Dwrite_chunk(h5_ds_.id, H5P_DEFAULT, 0, offset, packed_size_[c], packed_[c].data()) < 0)
          h5_check(-1, path_, "write (direct chunk)");
      }
      write_s_ += since(t);
    }
  }

  // Bytes of one encoded row.
  std::size_t emitted_row_bytes() const { return cols_ * elem_; }

  void open_npy() {
    std::string descr = complex_ ? "<c8" : "<f4";
    if (complex_ && o_.sample_format == SampleFormat::complex32) descr = "[('r', '<f2'), ('i', '<f2')]";
    if (complex_ && o_.sample_format == SampleFormat::cint16) descr = "[('r', '<i2'), ('i', '<i2')]";
    // The rows from a page boundary: write_direct can take them past the page cache.
    const std::string header = io::npy_header_2d(descr.c_str(), rows_, cols_, 4096);
    file_.write(header.data(), header.size());
    header_bytes_ = header.size();
  }

  void open_tiff() {
    const std::string& temp = file_.hand_to_library();
    // Strips of kTiffStripRows rows, written whole as they come: while the focus goes on, not at close.
    batch_rows_ = std::min(rows_, kTiffStripRows);
    strip_.resize(batch_rows_ * emitted_row_bytes());
    io::TiffLayout layout;
    layout.width = cols_;
    layout.height = rows_;
    layout.rows_per_strip = batch_rows_;
    if (!complex_) {
      layout.bits_per_sample = 32;
      layout.sample_format = io::TiffSampleFormat::ieee_float;
    } else if (o_.sample_format == SampleFormat::complex32) {  // halves as two pixel-interleaved bands
      layout.samples_per_pixel = 2;
      layout.bits_per_sample = 16;
      layout.sample_format = io::TiffSampleFormat::ieee_float;
    } else if (o_.sample_format == SampleFormat::cint16) {
      layout.bits_per_sample = 32;
      layout.sample_format = io::TiffSampleFormat::complex_int;
    } else {
      layout.bits_per_sample = 64;
      layout.sample_format = io::TiffSampleFormat::complex_float;
    }
    const auto deflate = compression_ == Compression::none   ? io::TiffStripWriter::Deflate::none
                         : compression_ == Compression::best ? io::TiffStripWriter::Deflate::best
                                                             : io::TiffStripWriter::Deflate::fast;
    tiff_ = std::make_unique<io::TiffStripWriter>(temp, path_, layout, deflate, threads_);
  }

  // HDF5 element types: float32, the compound {r, i} of float32, IEEE half (float32 narrowed to 16
  // bits, h5py reads it as float16) or int16.
  H5Closer element_type() {
    if (!complex_) return H5Closer{H5Tcopy(H5T_NATIVE_FLOAT), H5Tclose};
    hid_t part = -1;
    std::size_t size = 4;
    switch (o_.sample_format) {
      case SampleFormat::complex64: part = H5Tcopy(H5T_NATIVE_FLOAT); break;
      case SampleFormat::complex32:
        part = H5Tcopy(H5T_IEEE_F32LE);
        H5Tset_fields(part, 15, 10, 5, 0, 10);
        H5Tset_precision(part, 16);
        H5Tset_size(part, 2);
        H5Tset_ebias(part, 15);
        size = 2;
        break;
      case SampleFormat::cint16: part = H5Tcopy(H5T_STD_I16LE); size = 2; break;
    }
    if (o_.sample_format == SampleFormat::complex64) size = 4;
    H5Closer p{part, H5Tclose};
    H5Closer t{H5Tcreate(H5T_COMPOUND, 2 * size), H5Tclose};
    H5Tinsert(t.id, "r", 0, p.id);
    H5Tinsert(t.id, "i", size, p.id);
    return t;
  }

  void open_hdf5() {
    quiet_hdf5();
    const std::string& temp = file_.hand_to_library();
    h5_file_ = H5Closer{H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    h5_check(h5_file_.id, path_, "create");
    h5_type_ = element_type();
    h5_elem_ = H5Tget_size(h5_type_.id);
    const hsize_t dims[2] = {rows_, cols_};
    H5Closer space{H5Screate_simple(2, dims, nullptr), H5Sclose};
    H5Closer plist{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
    if (compression_ != Compression::none) {
      chunk_rows_ = std::min(rows_, kChunkRows);  // a fixed-size dataset's chunks may not exceed it
      const hsize_t chunk[2] = {chunk_rows_, std::min<hsize_t>(cols_, kChunkCols)};
      H5Pset_chunk(plist.id, 2, chunk);
      H5Pset_shuffle(plist.id);
      H5Pset_deflate(plist.id, compression_ == Compression::best ? 9 : 1);
      batch_rows_ = chunk_rows_;
      strip_.resize(chunk_rows_ * cols_ * elem_);
    }
    // Space for every element at creation: no fill pass over what is written anyway.
    H5Pset_alloc_time(plist.id, compression_ == Compression::none ? H5D_ALLOC_TIME_EARLY : H5D_ALLOC_TIME_INCR);
    H5Pset_fill_time(plist.id, H5D_FILL_TIME_NEVER);
    H5Pset_obj_track_times(plist.id, false);  // no clock in the file: the same product, the same bytes
    const char* name = complex_ ? "slc" : "detected";
    h5_ds_ = H5Closer{H5Dcreate2(h5_file_.id, name, h5_type_.id, space.id, H5P_DEFAULT, plist.id, H5P_DEFAULT), H5Dclose};
    h5_check(h5_ds_.id, path_, "dataset");
  }

  void write_hdf5_attributes() {
    // Numbers as doubles, the rest as strings.
    std::vector<std::pair<std::string, std::string>> meta;
    flatten(side_, "", meta);
    for (const auto& [k, v] : meta) {
      H5Closer scalar{H5Screate(H5S_SCALAR), H5Sclose};
      char* end = nullptr;
      const double num = std::strtod(v.c_str(), &end);
      if (!v.empty() && end && *end == '\0') {
        H5Closer a{H5Acreate2(h5_ds_.id, k.c_str(), H5T_NATIVE_DOUBLE, scalar.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
        h5_check(a.id, path_, "attribute");
        H5Awrite(a.id, H5T_NATIVE_DOUBLE, &num);
      } else {
        H5Closer st{H5Tcopy(H5T_C_S1), H5Tclose};
        H5Tset_size(st.id, std::max<std::size_t>(v.size(), 1));
        H5Closer a{H5Acreate2(h5_ds_.id, k.c_str(), st.id, scalar.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
        h5_check(a.id, path_, "attribute");
        H5Awrite(a.id, st.id, v.c_str());
      }
    }
  }

  void close_hdf5() {
    write_hdf5_attributes();
    // Axes: zero-Doppler time of each row, slant range of each column (multilook centres).
    const auto& g = side_.at("geometry");
    const double eta0 = g.at("eta_first_s").get<double>(), deta = g.at("azimuth_spacing_s").get<double>();
    const double r0 = g.at("range_of_column_0_m").get<double>(), dr = g.at("range_pixel_spacing_m").get<double>();
    const double la = side_.value("looks_azimuth", 1.0), lr = side_.value("looks_range", 1.0);
    auto axis = [&](const char* axis_name, std::size_t n, double first, double step, double looks) {
      std::vector<double> v(n);
      for (std::size_t k = 0; k < n; ++k) v[k] = first + step * (k * looks + 0.5 * (looks - 1));
      const hsize_t d[1] = {n};
      H5Closer sp{H5Screate_simple(1, d, nullptr), H5Sclose};
      H5Closer untimed{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
      H5Pset_obj_track_times(untimed.id, false);
      H5Closer a{H5Dcreate2(h5_file_.id, axis_name, H5T_NATIVE_DOUBLE, sp.id, H5P_DEFAULT, untimed.id, H5P_DEFAULT),
                 H5Dclose};
      h5_check(a.id, path_, axis_name);
      H5Dwrite(a.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    };
    axis("azimuth_time_s", rows_, eta0, deta, la);
    axis("slant_range_m", cols_, r0, dr, lr);
    if (H5Fflush(h5_file_.id, H5F_SCOPE_GLOBAL) < 0) h5_check(-1, path_, "flush");
    h5_ds_.reset();
    h5_type_.reset();
    h5_file_.reset();
  }

  io::AtomicFile file_;
  std::string path_;
  Format fmt_;
  ProductOptions o_;
  Compression compression_ = Compression::none;
  int threads_ = 1;
  std::size_t samples_ = 0, rows_ = 0, cols_ = 0, in_ = 0, out_ = 0, elem_ = 8, h5_elem_ = 8;
  std::size_t header_bytes_ = 0;             // .npy
  std::complex<float>* placed_ = nullptr;  // .npy: the mapped rows, with rows_in_place()
  bool complex_ = true;
  std::vector<double> acc_;
  std::vector<float> det_, f32_;
  std::vector<unsigned char> enc_;
  // HDF5 with compression: the strip of chunk rows being filled, its compressed chunks.
  // HDF5 with compression and GeoTIFF: rows go to the library in whole strips of batch_rows_; the
  // strip being filled.
  std::size_t batch_rows_ = 0;
  std::vector<unsigned char> strip_;
  std::size_t strip_rows_ = 0, chunk_rows_ = kChunkRows, strip_first_row_ = 0;
  std::size_t written_since_writeback_ = 0;
  std::vector<std::unique_ptr<io::ChunkDeflater>> deflaters_;  // one per thread
  std::vector<std::vector<unsigned char>> packed_, gather_;
  std::vector<std::size_t> packed_size_;
  std::unique_ptr<io::TiffStripWriter> tiff_;
  H5Closer h5_file_, h5_type_, h5_ds_;  // destroyed (closed) before file_, which removes an uncommitted file
};

ProductWriter::ProductWriter(const std::string& path, std::size_t lines, std::size_t samples, const ProductOptions& o,
                             const std::string& metadata_json)
    : impl_(std::make_unique<Impl>(path, lines, samples, o, metadata_json)) {}
ProductWriter::~ProductWriter() = default;
void ProductWriter::write_rows(const std::complex<float>* rows, std::size_t count) { impl_->write_rows(rows, count); }
void ProductWriter::write_rows_direct(const std::complex<float>* rows, std::size_t count, std::size_t pitch) {
  impl_->write_rows_direct(rows, count, pitch);
}
void ProductWriter::write_complex32_rows(const std::uint16_t* halves, std::size_t count) {
  impl_->write_complex32_rows(halves, count);
}
bool ProductWriter::takes_rows_in_place(const std::string& path, const ProductOptions& options) {
  return format_of(path) == Format::npy && Impl::takes_rows_in_place(options);
}
std::complex<float>* ProductWriter::rows_in_place() { return impl_->rows_in_place(); }
void ProductWriter::rows_placed(std::size_t count) { impl_->rows_placed(count); }
void ProductWriter::commit() { impl_->commit(); }
double ProductWriter::encode_seconds() const { return impl_->encode_s_; }
double ProductWriter::write_seconds() const { return impl_->write_s_; }
double ProductWriter::sync_seconds() const { return impl_->sync_s_; }
std::size_t ProductWriter::file_bytes() const { return impl_->committed_bytes_; }
double ProductWriter::sample_scale() const { return impl_->scale_; }
std::size_t ProductWriter::clipped_samples() const { return impl_->clipped_; }
std::string ProductWriter::metadata_json() const { return impl_->side_.dump(2) + "\n"; }

void write_product(const std::string& path, const ComplexImage& slc, const ProductOptions& o,
                   const std::string& metadata_json) {
  ProductWriter w(path, slc.lines(), slc.samples(), o, metadata_json);
  w.write_rows(slc.data(), slc.lines());
  w.commit();
}

}  // namespace sarfuse
