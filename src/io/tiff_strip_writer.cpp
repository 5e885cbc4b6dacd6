#include "io/tiff_strip_writer.hpp"

#include <omp.h>
#include <tiffio.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <exception>

#include "io/chunk_deflater.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::io {

namespace {

std::string xml_escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// The GDAL_METADATA tag's XML: GDAL's form for dataset items, band descriptions and the band scale.
std::string gdal_metadata_xml(const std::vector<std::pair<std::string, std::string>>& items,
                              const std::vector<std::string>& band_descriptions, double band_scale) {
  std::string xml = "<GDALMetadata>\n";
  for (const auto& [k, v] : items) xml += "  <Item name=\"" + xml_escaped(k) + "\">" + xml_escaped(v) + "</Item>\n";
  for (std::size_t b = 0; b < band_descriptions.size(); ++b)
    xml += "  <Item name=\"DESCRIPTION\" sample=\"" + std::to_string(b) + "\" role=\"description\">" +
           xml_escaped(band_descriptions[b]) + "</Item>\n";
  if (band_scale != 0) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%.17g", band_scale);
    xml += std::string("  <Item name=\"SCALE\" sample=\"0\" role=\"scale\">") + scale + "</Item>\n";
  }
  return xml + "</GDALMetadata>";
}

}  // namespace

struct TiffStripWriter::Impl {
  std::string name;
  TiffLayout layout;
  Deflate deflate;
  int threads;
  TIFF* tif = nullptr;
  std::string message;  // libtiff's last error, from this file's handler
  std::string metadata;
  std::vector<std::unique_ptr<ChunkDeflater>> deflaters;
  std::vector<std::vector<unsigned char>> packed;
  std::vector<std::size_t> packed_size;

  static int on_error(TIFF*, void* self, const char* module, const char* fmt, va_list ap) {
    char text[512];
    std::vsnprintf(text, sizeof text, fmt, ap);
    auto* impl = static_cast<Impl*>(self);
    impl->message = (module ? std::string(module) + ": " : std::string()) + text;
    return 1;
  }
  static int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }  // not printed

  [[noreturn]] void fail(const char* what, int err) const {
    std::string why = message.empty() ? std::string(what) : message;
    if (err) why += std::string(" (") + std::strerror(err) + ")";
    throw FileError("writing '" + name + "' failed: libtiff: " + why);
  }

  std::size_t row_bytes() const {
    return layout.width * static_cast<std::size_t>(layout.samples_per_pixel) * static_cast<std::size_t>(layout.bits_per_sample / 8);
  }
};

TiffStripWriter::TiffStripWriter(const std::string& file, const std::string& name, const TiffLayout& layout, Deflate deflate,
                                 int threads)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.name = name;
  m.layout = layout;
  m.deflate = deflate;
  m.threads = std::max(1, threads);
  const std::uint64_t raw = static_cast<std::uint64_t>(m.row_bytes()) * layout.height;
  const bool big = raw + raw / 256 + (std::uint64_t{1} << 24) >= (std::uint64_t{1} << 32);  // offsets past 4 GiB
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(opts, &Impl::on_error, &m);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, &Impl::on_warning, &m);
  errno = 0;
  m.tif = TIFFOpenExt(file.c_str(), big ? "w8" : "w", opts);
  TIFFOpenOptionsFree(opts);
  if (!m.tif) throw FileError("cannot write '" + name + "': libtiff: " + (m.message.empty() ? std::strerror(errno) : m.message));
  TIFF* t = m.tif;
  // GDAL's own tag, unknown to libtiff's table: one ASCII string.
  static const TIFFFieldInfo gdal_metadata = {TIFFTAG_GDAL_METADATA, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0,
                                              const_cast<char*>("GDALMetadata")};
  if (TIFFMergeFieldInfo(t, &gdal_metadata, 1) != 0) m.fail("registering GDAL_METADATA", 0);
  const bool ok =
      TIFFSetField(t, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(layout.width)) &&
      TIFFSetField(t, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(layout.height)) &&
      TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(layout.samples_per_pixel)) &&
      TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(layout.bits_per_sample)) &&
      TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, static_cast<std::uint16_t>(static_cast<int>(layout.sample_format))) &&
      TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, static_cast<std::uint32_t>(layout.rows_per_strip)) &&
      TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
      TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
      TIFFSetField(t, TIFFTAG_COMPRESSION, deflate == Deflate::none ? COMPRESSION_NONE : COMPRESSION_ADOBE_DEFLATE);
  if (!ok) m.fail("setting the image's tags", 0);
  if (layout.samples_per_pixel == 2) {
    const std::uint16_t extra[1] = {EXTRASAMPLE_UNSPECIFIED};
    if (!TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra)) m.fail("setting the extra sample", 0);
  }
  if (deflate != Deflate::none) {
    const auto effort = deflate == Deflate::best ? ChunkDeflater::Effort::best : ChunkDeflater::Effort::fast;
    for (int k = 0; k < m.threads; ++k) m.deflaters.push_back(std::make_unique<ChunkDeflater>(effort));
  }
}

TiffStripWriter::~TiffStripWriter() {
  if (impl_->tif) TIFFClose(impl_->tif);  // a writer that failed or was abandoned: its file is removed by the caller
}

std::size_t TiffStripWriter::row_bytes() const { return impl_->row_bytes(); }

void TiffStripWriter::write_rows(const unsigned char* rows, std::size_t count, std::size_t first) {
  Impl& m = *impl_;
  const std::size_t per = m.layout.rows_per_strip, bytes_per_row = m.row_bytes();
  const std::size_t strips = (count + per - 1) / per, first_strip = first / per;
  auto strip_bytes = [&](std::size_t s) { return std::min(per, count - s * per) * bytes_per_row; };
  if (m.deflate == Deflate::none) {
    for (std::size_t s = 0; s < strips; ++s) {
      errno = 0;
      if (TIFFWriteRawStrip(m.tif, static_cast<std::uint32_t>(first_strip + s), const_cast<unsigned char*>(rows + s * per * bytes_per_row),
                            static_cast<tmsize_t>(strip_bytes(s))) < 0)
        m.fail("strip write", errno);
    }
    return;
  }
  // TIFF's deflate is a zlib stream per strip, with no shuffle: the strip as one byte plane.
  if (m.packed.size() < strips) m.packed.resize(strips);
  m.packed_size.assign(strips, 0);
  std::exception_ptr failure;
  const long jobs = static_cast<long>(strips);
#pragma omp parallel for num_threads(m.threads) schedule(dynamic)
  for (long s = 0; s < jobs; ++s) {
    const auto k = static_cast<std::size_t>(s);
    try {
      m.packed_size[k] = m.deflaters[static_cast<std::size_t>(omp_get_thread_num())]->compress(
          rows + k * per * bytes_per_row, strip_bytes(k), 1, m.packed[k]);
    } catch (...) {
#pragma omp critical(sarfuse_tiff_strip_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  for (std::size_t s = 0; s < strips; ++s) {
    errno = 0;
    if (TIFFWriteRawStrip(m.tif, static_cast<std::uint32_t>(first_strip + s), m.packed[s].data(), static_cast<tmsize_t>(m.packed_size[s])) < 0)
      m.fail("strip write", errno);
  }
}

void TiffStripWriter::set_metadata(std::vector<std::pair<std::string, std::string>> items,
                                   std::vector<std::string> band_descriptions, double band_scale) {
  impl_->metadata = gdal_metadata_xml(items, band_descriptions, band_scale);
}

void TiffStripWriter::close() {
  Impl& m = *impl_;
  if (!m.metadata.empty() && !TIFFSetField(m.tif, TIFFTAG_GDAL_METADATA, m.metadata.c_str())) m.fail("setting GDAL_METADATA", 0);
  errno = 0;
  if (!TIFFWriteDirectory(m.tif)) m.fail("directory write", errno);
  TIFF* t = m.tif;
  m.tif = nullptr;
  TIFFClose(t);
}

}  // namespace sarfuse::io
