// Dispatch of raw readers by file extension, sample checks, file descriptions.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <type_traits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/raw_rows.hpp"
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

// Rejects NaN/Inf in lines [first, first + count) held at `data`, naming the file and the sample.
void check_finite(SampleType type, const void* data, std::size_t first, std::size_t count, std::size_t samples,
                  const std::string& path) {
  const RawView v{type, data, count, samples};
  for (std::size_t i = 0; i < count; ++i)
    if (const std::size_t j = core::first_non_finite(v, i); j < samples)
      throw Error(path + ": sample (" + std::to_string(first + i) + ", " + std::to_string(j) + ") is " +
                  (core::sample_is_nan(v, i, j) ? "NaN" : "infinite") + "; expected finite values");
}

class NpyRawFile final : public RawFile {
 public:
  explicit NpyRawFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY)) {
    const RawData layout = io::npy_raw_layout(path, offset_);
    type_ = layout.type;
    lines_ = layout.lines;
    samples_ = layout.samples;
    path_ = path;
    streamed_ = true;
    if (fd_ < 0) throw FileError(path + ": cannot open: " + std::strerror(errno));
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~NpyRawFile() override { ::close(fd_); }
  NpyRawFile(const NpyRawFile&) = delete;
  NpyRawFile& operator=(const NpyRawFile&) = delete;
  std::unique_ptr<Mapping> map_padded(std::size_t zero_before, std::size_t zero_after) override;
  void read(std::size_t first, std::size_t count, void* dst) override {
    if (first + count > lines_) throw Error(path_ + ": lines " + std::to_string(first) + "+" + std::to_string(count) + " beyond the file");
    const std::size_t row = samples_ * bytes_per_sample(type_);
    auto* out = static_cast<char*>(dst);
    const std::size_t bytes = count * row;
    for (std::size_t done = 0; done < bytes;) {  // pread: no shared file position
      const ssize_t n = ::pread(fd_, out + done, bytes - done, static_cast<off_t>(offset_ + first * row + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw FileError(path_ + ": read error at line " + std::to_string(first + done / row) +
                                  (n < 0 ? std::string(": ") + std::strerror(errno) : std::string(": file ends early")));
      done += static_cast<std::size_t>(n);
    }
    check_finite(type_, dst, first, count, samples_, path_);
  }

 private:
  int fd_ = -1;
  std::uint64_t offset_ = 0;
};

// One reservation of zero pages holding the file's pages at the right place: the zero lines ahead and
// behind are anonymous pages never written (the kernel's zero page), the lines the file's page cache.
class PaddedMapping final : public RawFile::Mapping {
 public:
  PaddedMapping(int fd, std::uint64_t data_offset, std::size_t data_bytes, std::size_t before_bytes,
                std::size_t after_bytes, const std::string& path) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t in_page = static_cast<std::size_t>(data_offset % page);
    auto up = [page](std::size_t n) { return (n + page - 1) / page * page; };
    const std::size_t ahead = up(before_bytes + in_page);  // anonymous bytes before the file's first page
    const std::size_t file_bytes = up(in_page + data_bytes);
    size_ = ahead + file_bytes + up(after_bytes);
    void* r = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) throw FileError(path + ": cannot reserve address space to map it: " + std::strerror(errno));
    base_ = static_cast<std::byte*>(r);
    std::byte* file_page = base_ + ahead;
    // Read-only: a private writable mapping would be copied page by page when populated.
    if (::mmap(file_page, file_bytes, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd,
               static_cast<off_t>(data_offset - in_page)) == MAP_FAILED) {
      const int e = errno;
      ::munmap(base_, size_);
      throw FileError(path + ": cannot map it: " + std::strerror(e));
    }
    ::madvise(file_page, file_bytes, MADV_SEQUENTIAL);
    // The file's bytes that share a page with the lines but are not lines (the header before them,
    // anything after them) become zeros where the view shows them: those pages copied, once.
    auto zero = [&](std::byte* from, std::size_t n) {
      if (n == 0) return;
      std::byte* first_page = base_ + static_cast<std::size_t>(from - base_) / page * page;
      const std::size_t len = up(static_cast<std::size_t>(from + n - first_page));
      if (::mprotect(first_page, len, PROT_READ | PROT_WRITE) != 0) {
        const int e = errno;
        ::munmap(base_, size_);
        throw FileError(path + ": cannot clear the mapped header: " + std::strerror(e));
      }
      std::memset(from, 0, n);
      ::mprotect(first_page, len, PROT_READ);
    };
    std::byte* data = file_page + in_page;
    if (before_bytes) zero(file_page, in_page);
    struct stat st {};
    const std::size_t data_end = static_cast<std::size_t>(data_offset) + data_bytes;
    if (after_bytes && ::fstat(fd, &st) == 0 && static_cast<std::size_t>(st.st_size) > data_end)
      zero(data + data_bytes, std::min(file_bytes - in_page - data_bytes, static_cast<std::size_t>(st.st_size) - data_end));
    lines_ = data - before_bytes;
  }
  ~PaddedMapping() override { ::munmap(base_, size_); }
  PaddedMapping(const PaddedMapping&) = delete;
  PaddedMapping& operator=(const PaddedMapping&) = delete;

 private:
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
};

std::unique_ptr<RawFile::Mapping> NpyRawFile::map_padded(std::size_t zero_before, std::size_t zero_after) {
  const std::size_t row = samples_ * bytes_per_sample(type_);
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < offset_ + lines_ * row)
    return nullptr;  // short: read() names where it ends
  std::unique_ptr<PaddedMapping> m;
  try {
    m = std::make_unique<PaddedMapping>(fd_, offset_, lines_ * row, zero_before * row, zero_after * row, path_);
  } catch (const FileError&) {
    return nullptr;  // a file system that does not map files: read() it is (its errors name the file)
  }
  return m;
}

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
    if (!var.empty()) throw Error(path + ": a variable name applies to .mat files only");
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

std::unique_ptr<RawFile::Mapping> RawFile::map_padded(std::size_t, std::size_t) { return nullptr; }

std::unique_ptr<RawFile> RawFile::open(const std::string& path, const std::string& var) {
  if (extension(path) == ".npy") {
    if (!var.empty()) throw Error(path + ": a variable name applies to .mat files only");
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
