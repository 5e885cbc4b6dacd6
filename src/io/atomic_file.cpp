#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "sarfuse/error.hpp"
#include "sarfuse/interrupt.hpp"
#include "sarfuse/io.hpp"

namespace fs = std::filesystem;

namespace sarfuse {
void check_output_path(const std::string& path) {
  if (path.empty()) throw Error("output path is empty");
  const fs::path p(path);
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  const auto st = fs::status(parent, ec);
  if (!fs::exists(st)) throw FileError("cannot write '" + path + "': folder '" + parent.string() + "' does not exist");
  if (!fs::is_directory(st)) throw FileError("cannot write '" + path + "': '" + parent.string() + "' is not a folder");
  if (fs::is_directory(fs::status(p, ec))) throw FileError("cannot write '" + path + "': it is a folder");
}

void require_distinct_paths(const std::string& input, const std::string& output) {
  std::error_code ec1, ec2;
  if (fs::weakly_canonical(input, ec1) == fs::weakly_canonical(output, ec2))
    throw Error("output '" + output + "' is the input file; choose another output path");
}
}  // namespace sarfuse

namespace sarfuse::io {

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  check_output_path(path);
  static std::atomic<unsigned> counter{0};
  temp_ = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  file_ = std::fopen(temp_.c_str(), "w+b");  // readable too: map() needs it
  if (!file_) throw FileError("cannot write '" + path + "': " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
  stop_writeback();
  unmap();
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  // In 64 MiB pieces, so a stop request during a long write takes effect (the temporary goes away).
  const char* p = static_cast<const char*>(data);
  for (std::size_t done = 0; done < bytes;) {
    throw_if_interrupted();
    const std::size_t n = std::min<std::size_t>(bytes - done, std::size_t{64} << 20);
    if (std::fwrite(p + done, 1, n, file_) != n)
      throw FileError("writing '" + path_ + "' failed: " + std::strerror(errno));
    done += n;
  }
}

void AtomicFile::write_direct(const void* data, std::size_t bytes) { write_direct_rows(data, bytes, 1, bytes); }

void AtomicFile::write_direct_rows(const void* first_row, std::size_t row_bytes, std::size_t rows,
                                   std::size_t pitch_bytes) {
  constexpr std::size_t kAlign = 4096, kPiece = std::size_t{64} << 20;
  if (!file_) throw Error("'" + path_ + "': write_direct() after hand_to_library()");
  if (rows > 1 && pitch_bytes == row_bytes) {  // contiguous: one row
    row_bytes *= rows;
    rows = 1;
  }
  if (std::fflush(file_) != 0) throw FileError("writing '" + path_ + "' failed: " + std::strerror(errno));
  const off_t at = ::ftello(file_);
  // Whole blocks of each row: a contiguous run ends in a tail written below; rows of several blocks
  // go direct only when each is whole blocks.
  const std::size_t whole = rows == 1 ? row_bytes / kAlign * kAlign : (row_bytes % kAlign ? 0 : row_bytes);
  if (direct_fd_ < 0 && !direct_refused_ && whole) {
    direct_fd_ = ::open(temp_.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    direct_refused_ = direct_fd_ < 0;  // e.g. tmpfs: no direct I/O, write() does it all
    direct_memory_align_ = kAlign;
#ifdef STATX_DIOALIGN
    struct statx sx {};
    if (direct_fd_ >= 0 && ::statx(direct_fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
        (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_mem_align && kAlign % sx.stx_dio_mem_align == 0 &&
        sx.stx_dio_offset_align && kAlign % sx.stx_dio_offset_align == 0)
      direct_memory_align_ = sx.stx_dio_mem_align;  // e.g. 512: rows 512 bytes apart may go direct
#endif
  }
  const char* p = static_cast<const char*>(first_row);
  auto aligned = [&](std::size_t v, std::size_t a) { return v % a == 0; };
  std::size_t done = 0;  // bytes of the rows written, in order
  if (direct_fd_ >= 0 && at >= 0 && whole && aligned(static_cast<std::size_t>(at), kAlign) &&
      aligned(reinterpret_cast<std::uintptr_t>(p), direct_memory_align_) &&
      (rows == 1 || aligned(pitch_bytes, direct_memory_align_))) {
    // Up to kPiece bytes a call: a run of one row's blocks, or whole rows gathered by pwritev.
    const std::size_t rows_a_call = rows == 1 ? 1 : std::clamp<std::size_t>(kPiece / row_bytes, 1, IOV_MAX);
    std::vector<iovec> iov;
    const std::size_t end = rows == 1 ? whole : rows * row_bytes;
    while (done < end) {
      throw_if_interrupted();
      ssize_t w;
      std::size_t n;
      if (rows == 1) {
        n = std::min(whole - done, kPiece);
        w = ::pwrite(direct_fd_, p + done, n, at + static_cast<off_t>(done));
      } else {
        const std::size_t row = done / row_bytes, count = std::min(rows - row, rows_a_call);
        iov.resize(count);
        for (std::size_t k = 0; k < count; ++k)
          iov[k] = {const_cast<char*>(p + (row + k) * pitch_bytes), row_bytes};
        n = count * row_bytes;
        w = ::pwritev(direct_fd_, iov.data(), static_cast<int>(count), at + static_cast<off_t>(done));
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && done == 0 && errno == EINVAL) break;  // alignment the device refuses: all through write()
      if (w < 0) throw FileError("writing '" + path_ + "' failed: " + std::strerror(errno));
      done += static_cast<std::size_t>(w);
      if (static_cast<std::size_t>(w) < n) break;  // short (a size limit, a full disk): write() says why
    }
    if (::fseeko(file_, at + static_cast<off_t>(done), SEEK_SET) != 0)
      throw FileError("writing '" + path_ + "' failed: " + std::strerror(errno));
  }
  // The rest through write(): the rest of a part-written row, then whole rows.
  if (rows == 1) {
    write(p + done, row_bytes - done);
    return;
  }
  for (std::size_t row = done / row_bytes, from = done % row_bytes; row < rows; ++row, from = 0)
    write(p + row * pitch_bytes + from, row_bytes - from);
}

void AtomicFile::start_writeback(std::size_t bytes) {
  if (file_) std::fflush(file_);  // here, on the writer's thread
  if (writeback_fd_ < 0) writeback_fd_ = file_ ? ::dup(::fileno(file_)) : ::open(temp_.c_str(), O_RDONLY);
  if (writeback_fd_ < 0) return;  // a hint only: without it commit()'s fsync does all the work
  {
    std::lock_guard lock(writeback_mutex_);
    writeback_pending_ = true;
    writeback_bytes_ = bytes;
  }
  writeback_asked_.notify_one();
  if (writeback_.joinable()) return;
  writeback_ = std::thread([this] {
    std::unique_lock lock(writeback_mutex_);
    for (;;) {
      writeback_asked_.wait(lock, [this] { return writeback_pending_ || writeback_stop_; });
      if (!writeback_pending_) return;
      writeback_pending_ = false;
      const auto bytes = static_cast<off_t>(writeback_bytes_);
      lock.unlock();
      ::sync_file_range(writeback_fd_, 0, bytes, SYNC_FILE_RANGE_WRITE);  // failure changes nothing
      lock.lock();
    }
  });
}

void AtomicFile::stop_writeback() {
  if (writeback_.joinable()) {
    {
      std::lock_guard lock(writeback_mutex_);
      writeback_pending_ = false;
      writeback_stop_ = true;
    }
    writeback_asked_.notify_one();
    writeback_.join();
  }
  if (writeback_fd_ >= 0) ::close(writeback_fd_);
  writeback_fd_ = -1;
}

std::byte* AtomicFile::map(std::size_t bytes) {
  if (!file_ || mapped_) throw Error("'" + path_ + "': map() needs the file open and not yet mapped");
  if (std::fflush(file_) != 0) throw FileError("writing '" + path_ + "' failed: " + std::strerror(errno));
  const int fd = ::fileno(file_);
  if (const int e = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)))
    throw FileError("writing '" + path_ + "' failed: " + std::strerror(e) + " (reserving its " + std::to_string(bytes) +
                    " bytes)");
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw FileError("cannot write '" + path_ + "': mapping it failed: " + std::strerror(errno));
  mapped_ = static_cast<std::byte*>(p);
  mapped_bytes_ = bytes;
  return mapped_;
}

void AtomicFile::unmap() {
  if (mapped_) ::munmap(mapped_, mapped_bytes_);  // its pages stay in the page cache, dirty until synced
  mapped_ = nullptr;
  mapped_bytes_ = 0;
}

const std::string& AtomicFile::hand_to_library() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  return temp_;
}

void AtomicFile::commit() {
  throw_if_interrupted();
  if (direct_fd_ >= 0) ::close(direct_fd_);  // its data is on the device; the fsync below makes it durable
  direct_fd_ = -1;
  stop_writeback();
  unmap();
  if (file_) {
    const bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
    const int err = errno;
    std::fclose(file_);
    file_ = nullptr;
    if (!ok) throw FileError("writing '" + path_ + "' failed: " + std::strerror(err));
  } else {
    // Written by a library (libtiff, HDF5), which has closed it: on disk before it takes the name, as ours.
    const int fd = ::open(temp_.c_str(), O_RDONLY);
    const bool ok = fd >= 0 && ::fsync(fd) == 0;
    const int err = errno;
    if (fd >= 0) ::close(fd);
    if (!ok) throw FileError("writing '" + path_ + "' failed: " + std::strerror(err));
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw FileError("cannot rename the finished output to '" + path_ + "': " + std::strerror(errno));
  committed_ = true;
}

}  // namespace sarfuse::io

namespace sarfuse {

void write_text_file(const std::string& path, const std::string& text) {
  io::AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw FileError(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw Error(path + ": is a folder, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace sarfuse
