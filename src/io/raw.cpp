// Dispatch of raw readers by file extension, sample checks, file descriptions.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/mat.hpp"
#include "io/npy.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse {

const char* to_string(SampleType t) {
  switch (t) {
    case SampleType::complex64: return "complex64";
    case SampleType::complex128: return "complex128";
    case SampleType::int8_iq: return "int8 I/Q";
    case SampleType::int16_iq: return "int16 I/Q";
  }
  return "?";
}

std::size_t bytes_per_sample(SampleType t) {
  switch (t) {
    case SampleType::complex64: return 8;
    case SampleType::complex128: return 16;
    case SampleType::int8_iq: return 2;
    case SampleType::int16_iq: return 4;
  }
  return 0;
}

namespace {

std::string extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// Rejects NaN/Inf in lines [first, first + count) held at `data`.
template <class F>
void check_finite(const void* data, std::size_t first, std::size_t count, std::size_t samples, const std::string& path) {
  const F* p = static_cast<const F*>(data);
  const std::size_t n = 2 * count * samples;
  for (std::size_t k = 0; k < n; ++k)
    if (!std::isfinite(p[k])) {
      const std::size_t s = k / 2;
      throw Error(path + ": sample (" + std::to_string(first + s / samples) + ", " + std::to_string(s % samples) +
                  ") is " + (std::isnan(p[k]) ? "NaN" : "infinite") + "; expected finite values");
    }
}

void check_finite(SampleType type, const void* data, std::size_t first, std::size_t count, std::size_t samples,
                  const std::string& path) {
  if (type == SampleType::complex64) check_finite<float>(data, first, count, samples, path);
  if (type == SampleType::complex128) check_finite<double>(data, first, count, samples, path);
}

class NpyRawFile final : public RawFile {
 public:
  explicit NpyRawFile(const std::string& path) : in_(path, std::ios::binary) {
    const RawData layout = io::npy_raw_layout(path, offset_);
    type_ = layout.type;
    lines_ = layout.lines;
    samples_ = layout.samples;
    path_ = path;
    streamed_ = true;
    if (!in_) throw FileError(path + ": cannot open");
  }
  void read(std::size_t first, std::size_t count, void* dst) override {
    if (first + count > lines_) throw Error(path_ + ": lines " + std::to_string(first) + "+" + std::to_string(count) + " beyond the file");
    const std::size_t row = samples_ * bytes_per_sample(type_);
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset_ + first * row));
    in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(count * row));
    if (!in_) throw FileError(path_ + ": read error at line " + std::to_string(first));
    check_finite(type_, dst, first, count, samples_, path_);
  }

 private:
  std::ifstream in_;
  std::uint64_t offset_ = 0;
};

class MemoryRawFile final : public RawFile {
 public:
  MemoryRawFile(RawData raw, const std::string& path) : raw_(std::move(raw)) {
    type_ = raw_.type;
    lines_ = raw_.lines;
    samples_ = raw_.samples;
    path_ = path;
  }
  void read(std::size_t first, std::size_t count, void* dst) override {
    const std::size_t row = samples_ * bytes_per_sample(type_);
    std::memcpy(dst, raw_.bytes.data() + first * row, count * row);
  }

 private:
  RawData raw_;  // checked when read
};

}  // namespace

RawData read_raw(const std::string& path, const std::string& var) {
  const std::string ext = extension(path);
  RawData raw;
  if (ext == ".npy") {
    if (!var.empty()) throw Error(path + ": --var applies to .mat files only");
    raw = io::read_npy_raw(path);
  } else if (ext == ".mat") {
    raw = io::read_mat_raw(path, var);
  } else {
    throw Error(path + ": unknown raw format '" + ext + "'; expected .npy or .mat");
  }
  throw_if_interrupted();
  check_finite(raw.type, raw.bytes.data(), 0, raw.lines, raw.samples, path);
  return raw;
}

std::unique_ptr<RawFile> RawFile::open(const std::string& path, const std::string& var) {
  if (extension(path) == ".npy") {
    if (!var.empty()) throw Error(path + ": --var applies to .mat files only");
    return std::make_unique<NpyRawFile>(path);
  }
  return std::make_unique<MemoryRawFile>(read_raw(path, var), path);
}

ComplexImage read_image(const std::string& path) {
  if (extension(path) != ".npy") throw Error(path + ": expected a complex .npy image");
  const RawData raw = io::read_npy_raw(path);
  if (raw.type != SampleType::complex64 && raw.type != SampleType::complex128)
    throw Error(path + ": image of type " + std::string(to_string(raw.type)) + "; expected complex64 or complex128");
  ComplexImage img(raw.lines, raw.samples);
  if (raw.type == SampleType::complex64) {
    std::memcpy(img.data(), raw.bytes.data(), img.size() * sizeof(std::complex<float>));
  } else {
    const auto* src = reinterpret_cast<const std::complex<double>*>(raw.bytes.data());
    for (std::size_t k = 0; k < img.size(); ++k) img.data()[k] = std::complex<float>(src[k]);
  }
  return img;
}

std::string describe_file(const std::string& path) {
  const std::string ext = extension(path);
  std::ostringstream s;
  if (ext == ".npy") {
    const io::NpyHeader h = io::read_npy_header(path);
    s << path << ": NumPy array, dtype '" << h.descr << "', shape (";
    for (std::size_t i = 0; i < h.shape.size(); ++i) s << (i ? ", " : "") << h.shape[i];
    s << "), " << (h.fortran_order ? "Fortran" : "C") << " order, " << h.file_size << " bytes\n";
    std::error_code ec;
    if (std::filesystem::exists(path + ".json", ec)) s << "sidecar " << path << ".json:\n" << read_text_file(path + ".json");
  } else if (ext == ".mat") {
    s << path << ": MATLAB file, variables:\n" << io::describe_mat(path);
  } else if (ext == ".json") {
    const ParamsFile p = load_params(path);
    const RadarParams& r = p.radar;
    s << path << ": parameters\n"
      << "  wavelength " << r.wavelength_m() << " m, chirp bandwidth " << r.chirp_bandwidth_hz() / 1e6 << " MHz ("
      << (r.chirp_rate_hz_per_s < 0 ? "down" : "up") << "-chirp), replica " << r.replica_length() << " samples\n"
      << "  range spacing " << r.range_spacing_m() << " m, Doppler centroid " << r.doppler_centroid_hz << " Hz ("
      << r.doppler_centroid_hz / r.prf_hz << " PRF)\n";
    if (p.scene)
      s << "  scene " << p.scene->azimuth_lines << " x " << p.scene->range_samples << ", " << p.scene->targets.size()
        << " targets\n";
    s << to_json_text(p);
  } else {
    throw Error(path + ": unknown file type '" + ext + "'; expected .npy, .mat or .json");
  }
  return s.str();
}

}  // namespace sarfuse
