// Output files appear complete or not at all: data goes to a temporary file beside the target,
// which is renamed over it on commit() and removed if the writer is destroyed before that.
#pragma once
#include <condition_variable>
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
  // For libraries that write a file by name (libtiff, HDF5): closes our handle and returns the temporary
  // path to write; commit() then renames it, destruction without commit() removes it.
  const std::string& hand_to_library();
  // Starts the kernel writing what has been written so far to the disk, without waiting (Linux:
  // sync_file_range, asked on a thread of its own: with the disk's queue full the request blocks, and
  // the writer must not), so that commit()'s fsync has only the tail left. Works after hand_to_library too.
  void start_writeback();
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  void stop_writeback();
  int writeback_fd_ = -1;  // the writeback thread's own handle of the temporary file
  std::thread writeback_;
  std::mutex writeback_mutex_;
  std::condition_variable writeback_asked_;
  bool writeback_pending_ = false, writeback_stop_ = false;
  bool committed_ = false;
};


}  // namespace sarfuse::io
