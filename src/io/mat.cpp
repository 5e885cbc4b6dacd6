#include "io/mat.hpp"

#include <matio.h>

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

MatPtr open_mat(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw FileError(path + ": no such file");
  // Check the v5 header ourselves before handing bytes to matio.
  std::ifstream in(path, std::ios::binary);
  char head[128] = {};
  in.read(head, 128);
  if (in.gcount() < 128 || std::strncmp(head, "MATLAB", 6) != 0)
    throw Error(path + ": not a MATLAB v5 .mat file (expected a 128-byte header starting 'MATLAB')");
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
      if (v->rank == 2 && is_supported_class(v->class_type) && v->isComplex) {
        name = v->name;
        break;
      }
    }
    if (name.empty()) throw Error(path + ": no complex 2-D numeric variable found (use --var NAME)");
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
