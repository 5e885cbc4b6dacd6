// Product writers: .npy, GeoTIFF (GDAL), HDF5 (see sarfuse/io.hpp).
#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_string.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/npy.hpp"
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

void h5_check(hid_t id, const std::string& path, const char* what) {
  if (id < 0) throw FileError("writing '" + path + "' failed: HDF5: " + what);
}

}  // namespace

Detection parse_detection(const std::string& t) {
  if (t == "none") return Detection::none;
  if (t == "amplitude") return Detection::amplitude;
  if (t == "intensity") return Detection::intensity;
  if (t == "db") return Detection::db;
  throw Error("--detect: expected none, amplitude, intensity or db (got '" + t + "')");
}

void check_product_path(const std::string& path, const ProductOptions& o) {
  check_output_path(path);
  format_of(path);
  if (o.looks_azimuth == 0 || o.looks_range == 0) throw Error("--multilook: looks must be >= 1");
  if (o.detect == Detection::none && (o.looks_azimuth > 1 || o.looks_range > 1))
    throw Error("--multilook applies to detected products: add --detect amplitude, intensity or db");
}

class ProductWriter::Impl {
 public:
  Impl(const std::string& path, std::size_t lines, std::size_t samples, const ProductOptions& o, const std::string& meta)
      : file_((check_product_path(path, o), path)), path_(path), fmt_(format_of(path)), o_(o), samples_(samples),
        complex_(o.detect == Detection::none) {
    side_ = nlohmann::json::parse(meta);
    rows_ = complex_ ? lines : lines / o.looks_azimuth;
    cols_ = complex_ ? samples : samples / o.looks_range;
    if (rows_ == 0 || cols_ == 0) throw Error("--multilook: more looks than the image has lines or samples");
    if (!complex_) {
      const char* names[] = {"complex64", "amplitude", "intensity", "intensity_db"};
      side_["dtype"] = std::string("float32 ") + names[static_cast<int>(o.detect)];
      side_["shape"] = {rows_, cols_};
      side_["looks_azimuth"] = o.looks_azimuth;
      side_["looks_range"] = o.looks_range;
      acc_.assign(cols_, 0.0);
      det_.resize(cols_);
    }
    flatten(side_, "", meta_);
    switch (fmt_) {
      case Format::npy: open_npy(); break;
      case Format::tiff: open_tiff(); break;
      case Format::hdf5: open_hdf5(); break;
    }
  }
  ~Impl() {
    if (ds_) GDALClose(ds_);
  }

  void write_rows(const std::complex<float>* rows, std::size_t count) {
    if (complex_) {
      if (out_ + count > rows_) throw Error("product '" + path_ + "': more rows than announced");
      emit(rows, count);
      return;
    }
    const double n = static_cast<double>(o_.looks_azimuth * o_.looks_range);
    for (std::size_t i = 0; i < count; ++i, ++in_) {
      if (in_ / o_.looks_azimuth >= rows_) continue;  // the lines left over by the looks
      const std::complex<float>* r = rows + i * samples_;
      for (std::size_t j = 0; j < cols_ * o_.looks_range; ++j) acc_[j / o_.looks_range] += std::norm(r[j]);
      if ((in_ + 1) % o_.looks_azimuth) continue;
      for (std::size_t j = 0; j < cols_; ++j) {
        const double p = acc_[j] / n;
        double v = p;
        if (o_.detect == Detection::amplitude) v = std::sqrt(p);
        else if (o_.detect == Detection::db) v = 10.0 * std::log10(std::max(p, 1e-30));
        det_[j] = static_cast<float>(v);
        acc_[j] = 0;
      }
      emit(det_.data(), 1);
    }
  }

  void commit() {
    if (out_ != rows_)
      throw Error("product '" + path_ + "': " + std::to_string(out_) + " of " + std::to_string(rows_) + " rows written");
    switch (fmt_) {
      case Format::npy: break;
      case Format::tiff: {
        GDALDatasetH ds = ds_;
        ds_ = nullptr;
        CPLErrorReset();
        GDALClose(ds);  // flushes the tiles
        if (CPLGetLastErrorType() >= CE_Failure)
          throw FileError("writing '" + path_ + "' failed: GDAL: " + CPLGetLastErrorMsg());
        break;
      }
      case Format::hdf5: close_hdf5(); break;
    }
    file_.commit();
  }

 private:
  std::size_t value_bytes() const { return complex_ ? sizeof(std::complex<float>) : sizeof(float); }

  void emit(const void* data, std::size_t count) {
    switch (fmt_) {
      case Format::npy: file_.write(data, count * cols_ * value_bytes()); break;
      case Format::tiff: {
        const GDALDataType t = complex_ ? GDT_CFloat32 : GDT_Float32;
        if (GDALRasterIO(band_, GF_Write, 0, static_cast<int>(out_), static_cast<int>(cols_), static_cast<int>(count),
                         const_cast<void*>(data), static_cast<int>(cols_), static_cast<int>(count), t, 0, 0) != CE_None)
          throw FileError("writing '" + path_ + "' failed: GDAL: " + CPLGetLastErrorMsg());
        break;
      }
      case Format::hdf5: {
        const hsize_t start[2] = {out_, 0}, extent[2] = {count, cols_};
        H5Closer file_space{H5Dget_space(h5_ds_.id), H5Sclose};
        H5Sselect_hyperslab(file_space.id, H5S_SELECT_SET, start, nullptr, extent, nullptr);
        H5Closer mem{H5Screate_simple(2, extent, nullptr), H5Sclose};
        if (H5Dwrite(h5_ds_.id, h5_type_.id, mem.id, file_space.id, H5P_DEFAULT, data) < 0) h5_check(-1, path_, "write");
        break;
      }
    }
    out_ += count;
  }

  void open_npy() {
    const std::string header = io::npy_header_2d(complex_ ? "<c8" : "<f4", rows_, cols_);
    file_.write(header.data(), header.size());
  }

  void open_tiff() {
    static std::once_flag once;
    std::call_once(once, [] { GDALAllRegister(); });
    GDALDriverH driver = GDALGetDriverByName("GTiff");
    if (!driver) throw Error("GeoTIFF: GDAL has no GTiff driver");
    const std::string& temp = file_.hand_to_library();
    char** opts = nullptr;
    opts = CSLSetNameValue(opts, "TILED", "YES");
    opts = CSLSetNameValue(opts, "BIGTIFF", "IF_SAFER");
    ds_ = GDALCreate(driver, temp.c_str(), static_cast<int>(cols_), static_cast<int>(rows_), 1,
                     complex_ ? GDT_CFloat32 : GDT_Float32, opts);
    CSLDestroy(opts);
    if (!ds_) throw FileError("cannot write '" + path_ + "': GDAL: " + CPLGetLastErrorMsg());
    for (const auto& [k, v] : meta_) GDALSetMetadataItem(ds_, ("SARFUSE_" + k).c_str(), v.c_str(), nullptr);
    band_ = GDALGetRasterBand(ds_, 1);
    GDALSetDescription(band_, complex_ ? "slc" : "detected");
  }

  void open_hdf5() {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become our exceptions, not stderr noise
    const std::string& temp = file_.hand_to_library();
    h5_file_ = H5Closer{H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    h5_check(h5_file_.id, path_, "create");
    if (complex_) {
      h5_type_ = H5Closer{H5Tcreate(H5T_COMPOUND, 8), H5Tclose};
      H5Tinsert(h5_type_.id, "r", 0, H5T_NATIVE_FLOAT);
      H5Tinsert(h5_type_.id, "i", 4, H5T_NATIVE_FLOAT);
    } else {
      h5_type_ = H5Closer{H5Tcopy(H5T_NATIVE_FLOAT), H5Tclose};
    }
    const hsize_t dims[2] = {rows_, cols_};
    H5Closer space{H5Screate_simple(2, dims, nullptr), H5Sclose};
    H5Closer plist{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
    const hsize_t chunk[2] = {std::min<hsize_t>(rows_, 256), std::min<hsize_t>(cols_, 256)};
    H5Pset_chunk(plist.id, 2, chunk);
    H5Pset_shuffle(plist.id);
    H5Pset_deflate(plist.id, 4);
    // A chunk cache that holds a whole row of chunks, so rows written one block at a time are
    // compressed once.
    H5Closer access{H5Pcreate(H5P_DATASET_ACCESS), H5Pclose};
    const std::size_t row_of_chunks = chunk[0] * ((cols_ + 255) / 256 * 256) * value_bytes();
    H5Pset_chunk_cache(access.id, 1031, 2 * row_of_chunks, 1.0);
    const char* name = complex_ ? "slc" : "detected";
    h5_ds_ = H5Closer{H5Dcreate2(h5_file_.id, name, h5_type_.id, space.id, H5P_DEFAULT, plist.id, access.id), H5Dclose};
    h5_check(h5_ds_.id, path_, "dataset");
    // Attributes: numbers as doubles, the rest as strings.
    for (const auto& [k, v] : meta_) {
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
      H5Closer a{H5Dcreate2(h5_file_.id, axis_name, H5T_NATIVE_DOUBLE, sp.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
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
  std::size_t samples_ = 0, rows_ = 0, cols_ = 0, in_ = 0, out_ = 0;
  bool complex_ = true;
  nlohmann::json side_;
  std::vector<std::pair<std::string, std::string>> meta_;
  std::vector<double> acc_;
  std::vector<float> det_;
  GDALDatasetH ds_ = nullptr;
  GDALRasterBandH band_ = nullptr;
  H5Closer h5_file_, h5_type_, h5_ds_;  // destroyed (closed) before file_, which removes an uncommitted file
};

ProductWriter::ProductWriter(const std::string& path, std::size_t lines, std::size_t samples, const ProductOptions& o,
                             const std::string& metadata_json)
    : impl_(std::make_unique<Impl>(path, lines, samples, o, metadata_json)) {}
ProductWriter::~ProductWriter() = default;
void ProductWriter::write_rows(const std::complex<float>* rows, std::size_t count) { impl_->write_rows(rows, count); }
void ProductWriter::commit() { impl_->commit(); }

void write_product(const std::string& path, const ComplexImage& slc, const ProductOptions& o,
                   const std::string& metadata_json) {
  ProductWriter w(path, slc.lines(), slc.samples(), o, metadata_json);
  w.write_rows(slc.data(), slc.lines());
  w.commit();
}

}  // namespace sarfuse
