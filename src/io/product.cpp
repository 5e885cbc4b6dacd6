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

// Detected, multilooked image (float32, rows x cols).
std::vector<float> detect(const ComplexImage& slc, const ProductOptions& o, std::size_t& rows, std::size_t& cols) {
  rows = slc.lines() / o.looks_azimuth;
  cols = slc.samples() / o.looks_range;
  if (rows == 0 || cols == 0) throw Error("--multilook: more looks than the image has lines or samples");
  std::vector<float> out(rows * cols);
  const double n = static_cast<double>(o.looks_azimuth * o.looks_range);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      double p = 0;
      for (std::size_t a = 0; a < o.looks_azimuth; ++a)
        for (std::size_t r = 0; r < o.looks_range; ++r) p += std::norm(slc(i * o.looks_azimuth + a, j * o.looks_range + r));
      p /= n;
      double v = p;
      if (o.detect == Detection::amplitude) v = std::sqrt(p);
      else if (o.detect == Detection::db) v = 10.0 * std::log10(std::max(p, 1e-30));
      out[i * cols + j] = static_cast<float>(v);
    }
  return out;
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

void write_geotiff(const std::string& path, const void* data, bool complex, std::size_t rows, std::size_t cols,
                   const std::vector<std::pair<std::string, std::string>>& meta) {
  static std::once_flag once;
  std::call_once(once, [] { GDALAllRegister(); });
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  if (!driver) throw Error("GeoTIFF: GDAL has no GTiff driver");
  io::AtomicFile f(path);
  const std::string& temp = f.hand_to_library();
  char** opts = nullptr;
  opts = CSLSetNameValue(opts, "TILED", "YES");
  opts = CSLSetNameValue(opts, "BIGTIFF", "IF_SAFER");
  GDALDatasetH ds = GDALCreate(driver, temp.c_str(), static_cast<int>(cols), static_cast<int>(rows), 1,
                               complex ? GDT_CFloat32 : GDT_Float32, opts);
  CSLDestroy(opts);
  if (!ds) throw FileError("cannot write '" + path + "': GDAL: " + CPLGetLastErrorMsg());
  for (const auto& [k, v] : meta) GDALSetMetadataItem(ds, ("SARFUSE_" + k).c_str(), v.c_str(), nullptr);
  GDALRasterBandH band = GDALGetRasterBand(ds, 1);
  GDALSetDescription(band, complex ? "slc" : "detected");
  const CPLErr err = GDALRasterIO(band, GF_Write, 0, 0, static_cast<int>(cols), static_cast<int>(rows),
                                  const_cast<void*>(data), static_cast<int>(cols), static_cast<int>(rows),
                                  complex ? GDT_CFloat32 : GDT_Float32, 0, 0);
  const std::string msg = CPLGetLastErrorMsg();
  GDALClose(ds);
  if (err != CE_None) throw FileError("writing '" + path + "' failed: GDAL: " + msg);
  f.commit();
}

struct H5Closer {
  hid_t id;
  herr_t (*close)(hid_t);
  ~H5Closer() {
    if (id >= 0) close(id);
  }
};

void h5_check(hid_t id, const std::string& path, const char* what) {
  if (id < 0) throw FileError("writing '" + path + "' failed: HDF5: " + what);
}

void write_hdf5(const std::string& path, const void* data, bool complex, std::size_t rows, std::size_t cols,
                const std::vector<std::pair<std::string, std::string>>& meta, const nlohmann::json& side) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become our exceptions, not stderr noise
  io::AtomicFile f(path);
  const std::string& temp = f.hand_to_library();
  {
    H5Closer file{H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    h5_check(file.id, path, "create");
    H5Closer type{-1, H5Tclose};
    if (complex) {
      type.id = H5Tcreate(H5T_COMPOUND, 8);
      H5Tinsert(type.id, "r", 0, H5T_NATIVE_FLOAT);
      H5Tinsert(type.id, "i", 4, H5T_NATIVE_FLOAT);
    } else {
      type.id = H5Tcopy(H5T_NATIVE_FLOAT);
    }
    const hsize_t dims[2] = {rows, cols};
    H5Closer space{H5Screate_simple(2, dims, nullptr), H5Sclose};
    H5Closer plist{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
    const hsize_t chunk[2] = {std::min<hsize_t>(rows, 256), std::min<hsize_t>(cols, 256)};
    H5Pset_chunk(plist.id, 2, chunk);
    H5Pset_shuffle(plist.id);
    H5Pset_deflate(plist.id, 4);
    const char* name = complex ? "slc" : "detected";
    H5Closer ds{H5Dcreate2(file.id, name, type.id, space.id, H5P_DEFAULT, plist.id, H5P_DEFAULT), H5Dclose};
    h5_check(ds.id, path, "dataset");
    if (H5Dwrite(ds.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) h5_check(-1, path, "write");
    // Attributes: numbers as doubles, the rest as strings.
    for (const auto& [k, v] : meta) {
      H5Closer scalar{H5Screate(H5S_SCALAR), H5Sclose};
      char* end = nullptr;
      const double num = std::strtod(v.c_str(), &end);
      if (!v.empty() && end && *end == '\0') {
        H5Closer a{H5Acreate2(ds.id, k.c_str(), H5T_NATIVE_DOUBLE, scalar.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
        h5_check(a.id, path, "attribute");
        H5Awrite(a.id, H5T_NATIVE_DOUBLE, &num);
      } else {
        H5Closer st{H5Tcopy(H5T_C_S1), H5Tclose};
        H5Tset_size(st.id, std::max<std::size_t>(v.size(), 1));
        H5Closer a{H5Acreate2(ds.id, k.c_str(), st.id, scalar.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
        h5_check(a.id, path, "attribute");
        H5Awrite(a.id, st.id, v.c_str());
      }
    }
    // Axes: zero-Doppler time of each row, slant range of each column (multilook centres).
    const auto& g = side.at("geometry");
    const double eta0 = g.at("eta_first_s").get<double>(), deta = g.at("azimuth_spacing_s").get<double>();
    const double r0 = g.at("range_of_column_0_m").get<double>(), dr = g.at("range_pixel_spacing_m").get<double>();
    const double la = side.value("looks_azimuth", 1.0), lr = side.value("looks_range", 1.0);
    auto axis = [&](const char* axis_name, std::size_t n, double first, double step, double looks) {
      std::vector<double> v(n);
      for (std::size_t k = 0; k < n; ++k) v[k] = first + step * (k * looks + 0.5 * (looks - 1));
      const hsize_t d[1] = {n};
      H5Closer sp{H5Screate_simple(1, d, nullptr), H5Sclose};
      H5Closer a{H5Dcreate2(file.id, axis_name, H5T_NATIVE_DOUBLE, sp.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
      h5_check(a.id, path, axis_name);
      H5Dwrite(a.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    };
    axis("azimuth_time_s", rows, eta0, deta, la);
    axis("slant_range_m", cols, r0, dr, lr);
    if (H5Fflush(file.id, H5F_SCOPE_GLOBAL) < 0) h5_check(-1, path, "flush");
  }
  f.commit();
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

void write_product(const std::string& path, const ComplexImage& slc, const ProductOptions& o,
                   const std::string& metadata_json) {
  check_product_path(path, o);
  const Format fmt = format_of(path);
  nlohmann::json side = nlohmann::json::parse(metadata_json);
  std::size_t rows = slc.lines(), cols = slc.samples();
  std::vector<float> det;
  const bool complex = o.detect == Detection::none;
  if (!complex) {
    det = detect(slc, o, rows, cols);
    const char* names[] = {"complex64", "amplitude", "intensity", "intensity_db"};
    side["dtype"] = std::string("float32 ") + names[static_cast<int>(o.detect)];
    side["shape"] = {rows, cols};
    side["looks_azimuth"] = o.looks_azimuth;
    side["looks_range"] = o.looks_range;
  }
  std::vector<std::pair<std::string, std::string>> meta;
  flatten(side, "", meta);
  const void* data = complex ? static_cast<const void*>(slc.data()) : static_cast<const void*>(det.data());
  switch (fmt) {
    case Format::npy:
      if (complex) write_npy(path, slc);
      else io::write_npy_2d(path, "<f4", rows, cols, det.data(), det.size() * sizeof(float));
      break;
    case Format::tiff: write_geotiff(path, data, complex, rows, cols, meta); break;
    case Format::hdf5: write_hdf5(path, data, complex, rows, cols, meta, side); break;
  }
}

}  // namespace sarfuse
