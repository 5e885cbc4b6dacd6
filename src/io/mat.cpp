#include "io/mat.hpp"

#include <matio.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "sarfuse/error.hpp"

namespace sarfuse::io {

namespace {

struct MatCloser {
  void operator()(mat_t* m) const { Mat_Close(m); }
};
struct VarFreer {
  void operator()(matvar_t* v) const { Mat_VarFree(v); }
};
using MatPtr = std::unique_ptr<mat_t, MatCloser>;
using VarPtr = std::unique_ptr<matvar_t, VarFreer>;

// The first bytes of a variable's miMATRIX element (inflated when the variable is compressed): the
// tags matio trusts when it allocates for the name and dimensions.
void check_matrix_header(const unsigned char* p, std::size_t n, bool swap, std::uint64_t element_bytes,
                         const std::string& where) {
  auto u32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, p + at, 4);
    return swap ? __builtin_bswap32(v) : v;
  };
  auto bad = [&](const std::string& what) { throw Error(where + ": malformed variable header (" + what + ")"); };
  if (n < 16) bad("shorter than its tags");
  if (u32(0) != 14) return;  // not a matrix: matio skips it
  const std::uint64_t body = u32(4);
  if (body + 8 > element_bytes) bad("matrix of " + std::to_string(body) + " bytes in a " + std::to_string(element_bytes) + "-byte element");
  std::size_t at = 8;
  // Array flags, then dimensions, then the name; each tag short or long form.
  for (int sub = 0; sub < 3; ++sub) {
    if (at + 8 > n) return;  // beyond what we looked at: matio reads it within `body`
    const std::uint32_t word = u32(at);
    std::uint64_t size = 0;
    if (word >> 16) {  // small data element: bytes in the high half, data in the next 4 bytes
      size = word >> 16;
      if (size > 4) bad("small element of " + std::to_string(size) + " bytes");
      if (sub < 2) bad(sub == 0 ? "array flags in short form" : "dimensions in short form");
      at += 8;
    } else {
      size = u32(at + 4);
      if (sub == 0 && (word != 6 || size != 8)) bad("array flags are not 8 bytes of miUINT32");
      if (sub == 1 && word != 5) bad("dimensions are not miINT32");
      if (size > body) bad("sub-element of " + std::to_string(size) + " bytes in a " + std::to_string(body) + "-byte matrix");
      if (sub == 1 && (size % 4 != 0 || size > 32 * 4)) bad("dimensions field of " + std::to_string(size) + " bytes");
      if (sub == 1 && at + 8 + size <= n) {
        // Every element takes at least a byte of the variable (a cell at least a tag): more elements
        // than bytes is a lie that matio would allocate for.
        std::uint64_t count = 1;
        for (std::uint64_t d = 0; d < size / 4; ++d) {
          count *= u32(at + 8 + 4 * d);
          if (count > element_bytes) bad("dimensions claim more elements than the variable has bytes");
        }
      }
      if (sub == 2 && size > 4096) bad("name of " + std::to_string(size) + " bytes");
      at += 8 + ((size + 7) / 8) * 8;
    }
  }
}

// Walks the top-level data elements of a v5 file before matio sees it: every element must fit in the
// file, and each variable's header must be sane (matio allocates what those fields claim).
void check_mat_structure(const std::string& path) {
  std::error_code ec;
  const std::uint64_t file_bytes = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  char head[128] = {};
  in.read(head, 128);
  if (ec || in.gcount() < 128 || std::strncmp(head, "MATLAB", 6) != 0)
    throw Error(path + ": not a MATLAB v5 .mat file (expected a 128-byte header starting 'MATLAB')");
  const bool swap = head[126] == 'M' && head[127] == 'I';
  if (!swap && !(head[126] == 'I' && head[127] == 'M'))
    throw Error(path + ": not a MATLAB v5 .mat file (endian indicator is neither 'IM' nor 'MI')");
  std::uint64_t offset = 128;
  for (int element = 0; offset + 8 <= file_bytes; ++element) {
    unsigned char tag[8];
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(tag), 8);
    if (!in) break;
    std::uint32_t type, bytes;
    std::memcpy(&type, tag, 4);
    std::memcpy(&bytes, tag + 4, 4);
    if (swap) {
      type = __builtin_bswap32(type);
      bytes = __builtin_bswap32(bytes);
    }
    const std::string where = path + ": element " + std::to_string(element) + " at byte " + std::to_string(offset);
    if (type >> 16) throw Error(where + ": malformed (a small element at the top level)");
    if (offset + 8 + bytes > file_bytes)
      throw Error(where + ": claims " + std::to_string(bytes) + " bytes, the file has " +
                  std::to_string(file_bytes - offset - 8) + " left (truncated or corrupt)");
    std::vector<unsigned char> first(std::min<std::uint64_t>(bytes, 4096));
    in.read(reinterpret_cast<char*>(first.data()), static_cast<std::streamsize>(first.size()));
    std::vector<unsigned char> view(8 + first.size());
    std::memcpy(view.data(), tag, 8);
    if (!first.empty()) std::memcpy(view.data() + 8, first.data(), first.size());
    if (type == 15) {  // miCOMPRESSED: inflate the start of it to see the matrix tags
      std::vector<unsigned char> out(512);
      z_stream z{};
      if (inflateInit(&z) != Z_OK) throw Error(path + ": zlib initialisation failed");
      z.next_in = first.data();
      z.avail_in = static_cast<uInt>(first.size());
      z.next_out = out.data();
      z.avail_out = static_cast<uInt>(out.size());
      const int r = inflate(&z, Z_SYNC_FLUSH);
      const std::size_t got = out.size() - z.avail_out;
      inflateEnd(&z);
      if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) throw Error(where + ": compressed variable does not inflate");
      // What deflate can expand `bytes` to (at most ~1032:1) bounds the variable's size.
      check_matrix_header(out.data(), got, swap, 1100ull * bytes + 4096, where);
    } else {
      check_matrix_header(view.data(), view.size(), swap, 8ull + bytes, where);
    }
    offset += 8 + ((static_cast<std::uint64_t>(bytes) + 7) / 8) * 8;
  }
}

MatPtr open_mat(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw FileError(path + ": no such file");
  check_mat_structure(path);
  MatPtr m(Mat_Open(path.c_str(), MAT_ACC_RDONLY));
  if (!m) throw Error(path + ": matio could not open this .mat file");
  return m;
}

const char* class_name(matio_classes c) {
  switch (c) {
    case MAT_C_INT8: return "int8";
    case MAT_C_INT16: return "int16";
    case MAT_C_SINGLE: return "single";
    case MAT_C_DOUBLE: return "double";
    case MAT_C_STRUCT: return "struct";
    case MAT_C_CHAR: return "char";
    case MAT_C_CELL: return "cell";
    default: return "other";
  }
}

bool is_supported_class(matio_classes c) {
  return c == MAT_C_INT8 || c == MAT_C_INT16 || c == MAT_C_SINGLE || c == MAT_C_DOUBLE;
}

template <class S, class D>
void transpose_split(const mat_complex_split_t* z, std::size_t na, std::size_t nr, D* dst) {
  const S* re = static_cast<const S*>(z->Re);
  const S* im = static_cast<const S*>(z->Im);
  for (std::size_t j = 0; j < nr; ++j)
    for (std::size_t i = 0; i < na; ++i) {
      dst[2 * (i * nr + j)] = static_cast<D>(re[j * na + i]);
      dst[2 * (i * nr + j) + 1] = static_cast<D>(im[j * na + i]);
    }
}

}  // namespace

RawData read_mat_raw(const std::string& path, const std::string& var) {
  MatPtr mat = open_mat(path);
  std::string name = var;
  if (name.empty()) {
    while (matvar_t* info = Mat_VarReadNextInfo(mat.get())) {
      VarPtr v(info);
      if (v->name && v->name[0] && v->rank == 2 && is_supported_class(v->class_type) && v->isComplex) {
        name = v->name;
        break;
      }
    }
    if (name.empty()) throw Error(path + ": no complex 2-D numeric variable found (name the variable to read)");
    mat = open_mat(path);
  }
  VarPtr info(Mat_VarReadInfo(mat.get(), name.c_str()));
  if (!info) throw Error(path + ": no variable '" + name + "' (see `sarfuse info " + path + "`)");
  if (info->rank != 2)
    throw Error(path + ": variable '" + name + "' has rank " + std::to_string(info->rank) + "; expected a 2-D array");
  if (!is_supported_class(info->class_type))
    throw Error(path + ": variable '" + name + "' is of class " + class_name(info->class_type) +
                "; expected complex int8, int16, single or double");
  if (!info->isComplex) throw Error(path + ": variable '" + name + "' is real; expected complex samples");
  const std::size_t na = info->dims[0], nr = info->dims[1];
  if (na < 2 || nr < 2)
    throw Error(path + ": variable '" + name + "' is " + std::to_string(na) + " x " + std::to_string(nr) +
                "; expected at least 2 x 2");
  if (na > (1ull << 36) / nr) throw Error(path + ": variable '" + name + "' is implausibly large");
  // Before matio allocates: the data must fit in the file, or (zlib-compressed variables) in what
  // deflate can expand it to (at most ~1032:1).
  const std::size_t elem = info->class_type == MAT_C_INT8 ? 1 : info->class_type == MAT_C_INT16 ? 2
                           : info->class_type == MAT_C_SINGLE ? 4 : 8;
  std::error_code ec;
  const std::uintmax_t file_bytes = std::filesystem::file_size(path, ec);
  const std::uintmax_t claimed = static_cast<std::uintmax_t>(na) * nr * 2 * elem;
  if (ec || claimed > 1100 * file_bytes + 4096)
    throw Error(path + ": variable '" + name + "' claims " + std::to_string(na) + " x " + std::to_string(nr) +
                " complex samples (" + std::to_string(claimed) + " bytes) in a " + std::to_string(file_bytes) +
                "-byte file");
  VarPtr v(Mat_VarRead(mat.get(), name.c_str()));
  if (!v || !v->data) throw Error(path + ": could not read variable '" + name + "'");
  RawData raw;
  raw.lines = na;
  raw.samples = nr;
  const auto* z = static_cast<const mat_complex_split_t*>(v->data);
  switch (v->class_type) {
    case MAT_C_INT8:
      raw.type = SampleType::int8_iq;
      raw.bytes.resize(na * nr * 2);
      transpose_split<std::int8_t>(z, na, nr, reinterpret_cast<std::int8_t*>(raw.bytes.data()));
      break;
    case MAT_C_INT16:
      raw.type = SampleType::int16_iq;
      raw.bytes.resize(na * nr * 4);
      transpose_split<std::int16_t>(z, na, nr, reinterpret_cast<std::int16_t*>(raw.bytes.data()));
      break;
    case MAT_C_SINGLE:
      raw.type = SampleType::complex64;
      raw.bytes.resize(na * nr * 8);
      transpose_split<float>(z, na, nr, reinterpret_cast<float*>(raw.bytes.data()));
      break;
    default:
      raw.type = SampleType::complex128;
      raw.bytes.resize(na * nr * 16);
      transpose_split<double>(z, na, nr, reinterpret_cast<double*>(raw.bytes.data()));
      break;
  }
  return raw;
}

std::vector<double> read_mat_real_vector(const std::string& path, const std::string& var) {
  MatPtr mat = open_mat(path);
  std::string name = var;
  if (name.empty()) {
    while (matvar_t* info = Mat_VarReadNextInfo(mat.get())) {
      VarPtr v(info);
      if (v->name && v->name[0] && v->rank == 2 && !v->isComplex && v->class_type >= MAT_C_DOUBLE &&
          v->class_type <= MAT_C_UINT64 && (v->dims[0] == 1 || v->dims[1] == 1)) {
        name = v->name;
        break;
      }
    }
    if (name.empty()) throw Error(path + ": no real numeric vector found");
    mat = open_mat(path);
  }
  VarPtr v(Mat_VarRead(mat.get(), name.c_str()));
  if (!v || !v->data) throw Error(path + ": no variable '" + name + "'");
  if (v->rank != 2 || v->isComplex || (v->dims[0] != 1 && v->dims[1] != 1))
    throw Error(path + ": variable '" + name + "' is not a real vector");
  const std::size_t n = v->dims[0] * v->dims[1];
  std::vector<double> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    switch (v->class_type) {
      case MAT_C_DOUBLE: out[k] = static_cast<const double*>(v->data)[k]; break;
      case MAT_C_SINGLE: out[k] = static_cast<const float*>(v->data)[k]; break;
      case MAT_C_INT8: out[k] = static_cast<const std::int8_t*>(v->data)[k]; break;
      case MAT_C_INT16: out[k] = static_cast<const std::int16_t*>(v->data)[k]; break;
      case MAT_C_INT32: out[k] = static_cast<const std::int32_t*>(v->data)[k]; break;
      case MAT_C_UINT8: out[k] = static_cast<const std::uint8_t*>(v->data)[k]; break;
      case MAT_C_UINT16: out[k] = static_cast<const std::uint16_t*>(v->data)[k]; break;
      case MAT_C_UINT32: out[k] = static_cast<const std::uint32_t*>(v->data)[k]; break;
      default: throw Error(path + ": variable '" + name + "' is of an unsupported class");
    }
  }
  return out;
}

std::string describe_mat(const std::string& path) {
  MatPtr mat = open_mat(path);
  std::string out;
  while (matvar_t* info = Mat_VarReadNextInfo(mat.get())) {
    VarPtr v(info);
    out += std::string("  ") + (v->name ? v->name : "?") + ": " + (v->isComplex ? "complex " : "") +
           class_name(v->class_type);
    for (int d = 0; d < v->rank; ++d) out += (d ? " x " : " ") + std::to_string(v->dims[d]);
    out += "\n";
  }
  return out;
}

}  // namespace sarfuse::io
