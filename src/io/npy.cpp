// NumPy .npy reader/writer (format versions 1-3, little-endian, C order).
#include "io/npy.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "io/atomic_file.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse::io {

namespace {

std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const std::regex re("['\"]" + key + "['\"]\\s*:\\s*");
  std::smatch m;
  if (!std::regex_search(header, m, re)) throw Error(path + ": .npy header has no '" + key + "' entry");
  return header.substr(static_cast<std::size_t>(m.position(0) + m.length(0)));
}

}  // namespace

NpyHeader read_npy_header(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw FileError(path + ": no such file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path + ": cannot open");
  NpyHeader h;
  h.file_size = std::filesystem::file_size(path, ec);
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw Error(path + ": not a .npy file (expected the magic string \\x93NUMPY)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
    h.data_offset = 10 + header_len;
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
    h.data_offset = 12 + static_cast<std::uint64_t>(header_len);
  } else {
    throw Error(path + ": .npy format version " + std::to_string(major) + " (expected 1, 2 or 3)");
  }
  if (!in || h.data_offset > h.file_size || header_len > (1u << 20))
    throw Error(path + ": truncated .npy header");
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in) throw Error(path + ": truncated .npy header");

  const std::string d = dict_value(header, "descr", path);
  const std::regex descr_re("^['\"]([^'\"]*)['\"]");
  std::smatch m;
  if (!std::regex_search(d, m, descr_re)) throw Error(path + ": .npy header: unreadable 'descr'");
  h.descr = m[1];
  const std::string f = dict_value(header, "fortran_order", path);
  h.fortran_order = f.rfind("True", 0) == 0;
  const std::string s = dict_value(header, "shape", path);
  const std::regex shape_re("^\\(([^)]*)\\)");
  if (!std::regex_search(s, m, shape_re)) throw Error(path + ": .npy header: unreadable 'shape'");
  const std::string dims = m[1];
  const std::regex num_re("\\d+");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), num_re); it != std::sregex_iterator(); ++it) {
    const std::string ds = it->str();
    if (ds.size() > 15) throw Error(path + ": .npy header: dimension " + ds + " is too large");
    h.shape.push_back(std::stoull(ds));
  }
  return h;
}

std::string npy_header_2d(const char* descr, std::size_t rows, std::size_t cols, std::size_t data_align) {
  // A plain type ("<c8") is quoted; a structured one ("[('r', '<f2'), ('i', '<f2')]") is a list.
  const std::string d = descr[0] == '[' ? std::string(descr) : "'" + std::string(descr) + "'";
  std::string header = std::string("{'descr': ") + d + ", 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((data_align - total % data_align) % data_align, ' ');  // 64: as numpy writes it
  header.push_back('\n');
  std::string prefix("\x93NUMPY\x01\x00", 8);
  prefix.push_back(static_cast<char>(header.size() & 0xff));
  prefix.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  return prefix + header;
}

void write_npy_2d(const std::string& path, const char* descr, std::size_t rows, std::size_t cols, const void* data,
                  std::size_t bytes) {
  const std::string header = npy_header_2d(descr, rows, cols);
  AtomicFile f(path);
  f.write(header.data(), header.size());
  f.write(data, bytes);
  f.commit();
}

RawData npy_raw_layout(const std::string& path, std::uint64_t& data_offset) {
  const NpyHeader h = read_npy_header(path);
  data_offset = h.data_offset;
  RawData raw;
  std::string d = h.descr;
  if (d.size() >= 2 && d[0] == '>' && d.substr(1) != "i1")
    throw Error(path + ": big-endian data ('" + d + "'); expected little-endian complex64 '<c8'");
  if (d == "|i1" || d == "<i1" || d == ">i1" || d == "i1") raw.type = SampleType::int8_iq;
  else if (d == "<i2") raw.type = SampleType::int16_iq;
  else if (d == "<c8") raw.type = SampleType::complex64;
  else if (d == "<c16") raw.type = SampleType::complex128;
  else
    throw Error(path + ": dtype '" + d + "' not supported; expected complex64 '<c8', complex128 '<c16', "
                "or int8 '|i1' / int16 '<i2' with shape (Na, Nr, 2)");
  if (h.fortran_order) throw Error(path + ": Fortran-ordered array; expected C order (fortran_order False)");
  const bool integer = raw.type == SampleType::int8_iq || raw.type == SampleType::int16_iq;
  const std::string shape_text = [&] {
    std::string t = "(";
    for (std::size_t i = 0; i < h.shape.size(); ++i) t += (i ? ", " : "") + std::to_string(h.shape[i]);
    return t + ")";
  }();
  if (integer) {
    if (h.shape.size() != 3 || h.shape[2] != 2)
      throw Error(path + ": integer I/Q data of shape " + shape_text + "; expected (Na, Nr, 2)");
  } else if (h.shape.size() != 2) {
    throw Error(path + ": complex data of shape " + shape_text + "; expected (Na, Nr)");
  }
  raw.lines = h.shape[0];
  raw.samples = h.shape[1];
  if (raw.lines < 2 || raw.samples < 2)
    throw Error(path + ": shape " + shape_text + ": expected at least 2 azimuth lines and 2 range samples");
  const std::uint64_t bps = bytes_per_sample(raw.type);
  if (raw.lines > (1ull << 40) / raw.samples / bps)
    throw Error(path + ": shape " + shape_text + " is implausibly large");
  const std::uint64_t need = raw.lines * raw.samples * bps;
  const std::uint64_t have = h.file_size - h.data_offset;
  if (have < need)
    throw Error(path + ": truncated: shape " + shape_text + " needs " + std::to_string(need) +
                " bytes of data, the file holds " + std::to_string(have));
  return raw;
}

RawData read_npy_raw(const std::string& path) {
  std::uint64_t offset = 0;
  RawData raw = npy_raw_layout(path, offset);
  const std::uint64_t need = raw.lines * raw.samples * bytes_per_sample(raw.type);
  raw.bytes.resize(need);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(raw.bytes.data()), static_cast<std::streamsize>(need));
  if (!in) throw Error(path + ": read error");
  return raw;
}

}  // namespace sarfuse::io

namespace sarfuse {

void write_npy(const std::string& path, const ComplexImage& img) {
  io::write_npy_2d(path, "<c8", img.lines(), img.samples(), img.data(), img.size() * sizeof(std::complex<float>));
}

}  // namespace sarfuse
