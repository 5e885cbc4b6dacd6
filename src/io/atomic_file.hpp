// Output files appear complete or not at all: data goes to a temporary file beside the target,
// which is renamed over it on commit() and removed if the writer is destroyed before that.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace sarfuse::io {

class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();
  std::FILE* get() { return file_; }
  void write(const void* data, std::size_t bytes);
  // As write(), but past the page cache where the file system allows it (O_DIRECT: the data, its
  // length and the file offset on 4096-byte boundaries; what is not, and file systems without direct
  // I/O, go through write()): for large data written once, which commit()'s fsync then need not copy.
  void write_direct(const void* data, std::size_t bytes);
  // The same for `rows` rows of row_bytes each, pitch_bytes apart in memory, written one after another:
  // direct when each row is whole 4096-byte blocks on the memory alignment the file system asks for
  // (statx: 512 bytes on most disks), gathered by pwritev.
  void write_direct_rows(const void* first_row, std::size_t row_bytes, std::size_t rows, std::size_t pitch_bytes);
  // For libraries that write a file by name (libtiff, HDF5): closes our handle and returns the temporary
  // path to write; commit() then renames it, destruction without commit() removes it.
  const std::string& hand_to_library();
  // Starts the kernel writing what has been written so far to the disk, without waiting (Linux:
  // sync_file_range, asked on a thread of its own: with the disk's queue full the request blocks, and
  // the writer must not), so that commit()'s fsync has only the tail left. Works after hand_to_library too.
  // `bytes`: the first bytes only (0: all), e.g. what is final of a mapping still being written.
  void start_writeback(std::size_t bytes = 0);
  // The file's first `bytes` bytes as writable memory, for data made in place rather than copied in
  // (after what write() wrote, which the mapping shows). The space is reserved first: a full disk or a
  // file-size limit is an error here, not a SIGBUS later. commit() unmaps it and syncs it with the rest.
  std::byte* map(std::size_t bytes);
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  void stop_writeback();
  void unmap();
  std::byte* mapped_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  int writeback_fd_ = -1;  // the writeback thread's own handle of the temporary file
  int direct_fd_ = -1;     // write_direct's handle (O_DIRECT), opened at its first use
  bool direct_refused_ = false;
  std::size_t direct_memory_align_ = 4096;  // of rows after the first (statx STATX_DIOALIGN)
  std::thread writeback_;
  std::mutex writeback_mutex_;
  std::condition_variable writeback_asked_;
  std::size_t writeback_bytes_ = 0;
  bool writeback_pending_ = false, writeback_stop_ = false;
  bool committed_ = false;
};


}  // namespace sarfuse::io
