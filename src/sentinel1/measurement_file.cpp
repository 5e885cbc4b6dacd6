// A Level-0 measurement file (a sequence of Space Packets, no framing): memory-mapped, its packets
// found by walking their length fields from the start, every header parsed once.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "sarfuse/error.hpp"
#include "sarfuse/sentinel1.hpp"

namespace sarfuse::sentinel1 {

struct MeasurementFile::Impl {
  std::string path;
  const std::uint8_t* base = nullptr;
  std::size_t size = 0;
  std::vector<PacketHeader> headers;
  std::vector<std::size_t> offsets;

  ~Impl() {
    if (base != nullptr) munmap(const_cast<std::uint8_t*>(base), size);
  }
};

MeasurementFile::MeasurementFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw FileError(path + ": not a regular file");
  }
  impl_->size = static_cast<std::size_t>(st.st_size);
  if (impl_->size == 0) {
    close(fd);
    throw Error(path + ": empty: a measurement file holds at least one packet (" + std::to_string(kHeaderBytes) +
                " header bytes)");
  }
  void* p = mmap(nullptr, impl_->size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);  // every page is read
  close(fd);
  if (p == MAP_FAILED) throw FileError(path + ": cannot map (" + std::strerror(errno) + ")");
  impl_->base = static_cast<const std::uint8_t*>(p);
  madvise(p, impl_->size, MADV_SEQUENTIAL);
  for (std::size_t offset = 0; offset < impl_->size;) {
    PacketHeader h;
    try {
      h = parse_packet_header(impl_->base + offset, impl_->size - offset, "");
    } catch (const Error& e) {  // the packet named only on failure (a string per packet costs)
      throw Error(path + ": packet " + std::to_string(impl_->headers.size()) + " (byte " + std::to_string(offset) +
                  ")" + e.what());
    }
    impl_->offsets.push_back(offset);
    offset += h.packet_bytes();
    impl_->headers.push_back(h);
  }
}

MeasurementFile::MeasurementFile(MeasurementFile&&) noexcept = default;
MeasurementFile& MeasurementFile::operator=(MeasurementFile&&) noexcept = default;
MeasurementFile::~MeasurementFile() = default;

const std::string& MeasurementFile::path() const { return impl_->path; }
std::size_t MeasurementFile::packets() const { return impl_->headers.size(); }
const PacketHeader& MeasurementFile::header(std::size_t i) const { return impl_->headers.at(i); }
const std::uint8_t* MeasurementFile::user_data(std::size_t i) const {
  return impl_->base + impl_->offsets.at(i) + kHeaderBytes;
}
std::size_t MeasurementFile::user_data_bytes(std::size_t i) const { return header(i).packet_bytes() - kHeaderBytes; }
std::string MeasurementFile::where(std::size_t i) const { return impl_->path + ": packet " + std::to_string(i); }

}  // namespace sarfuse::sentinel1
