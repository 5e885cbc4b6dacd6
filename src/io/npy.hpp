#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sarfuse/image.hpp"

namespace sarfuse::io {

struct NpyHeader {
  std::string descr;               // e.g. "<c8"
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;   // bytes from the start of the file
  std::uint64_t file_size = 0;
};

NpyHeader read_npy_header(const std::string& path);
// Type and shape of a raw .npy (no samples read), checked as read_npy_raw checks them; data_offset
// gets the samples' position in the file.
RawData npy_raw_layout(const std::string& path, std::uint64_t& data_offset);
// Reads raw samples: complex64/complex128 (Na, Nr) or int8/int16 (Na, Nr, 2).
RawData read_npy_raw(const std::string& path);

// The .npy v1 preamble (magic, version, header) of a C-ordered 2-D array; the data follows it, at a
// multiple of data_align bytes from the start (numpy: 64).
std::string npy_header_2d(const char* descr, std::size_t rows, std::size_t cols, std::size_t data_align = 64);
// A 2-D array (`descr` e.g. "<c8", "<f4") of rows x cols written as .npy v1, atomically.
void write_npy_2d(const std::string& path, const char* descr, std::size_t rows, std::size_t cols, const void* data,
                  std::size_t bytes);
}  // namespace sarfuse::io
