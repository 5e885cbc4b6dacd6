// dB quicklook PNG (8-bit grey) through libpng.
#include <png.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "io/atomic_file.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse {

Quicklook::Quicklook(std::size_t lines, std::size_t samples, std::size_t max_pixels) : samples_(samples) {
  look_ = std::max<std::size_t>(1, (std::max(lines, samples) + max_pixels - 1) / std::max<std::size_t>(max_pixels, 1));
  h_ = lines / look_;
  w_ = samples / look_;
  if (h_ == 0 || w_ == 0) throw Error("quicklook: image too small");
  power_.assign(h_ * w_, 0.0);
}

void Quicklook::add_rows(const std::complex<float>* rows, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k, ++next_) {
    if (next_ >= h_ * look_) continue;
    double* out = power_.data() + (next_ / look_) * w_;
    const std::complex<float>* r = rows + k * samples_;
    for (std::size_t j = 0; j < w_ * look_; ++j) out[j / look_] += std::norm(r[j]);
  }
}

void write_png(const std::string& path, const ComplexImage& img, double dynamic_range_db, std::size_t max_pixels) {
  Quicklook q(img.lines(), img.samples(), max_pixels);
  q.add_rows(img.data(), img.lines());
  q.write(path, dynamic_range_db);
}

void Quicklook::write(const std::string& path, double dynamic_range_db) const {
  if (!(dynamic_range_db > 0)) throw Error("--png-range-db: expected a positive number of dB");
  const std::vector<double>& power = power_;
  const std::size_t h = h_, w = w_;
  const double top = 10.0 * std::log10(std::max(*std::max_element(power.begin(), power.end()), 1e-300));
  std::vector<png_byte> pixels(h * w);
  for (std::size_t k = 0; k < h * w; ++k) {
    const double db = 10.0 * std::log10(std::max(power[k], 1e-300)) - top;
    pixels[k] = static_cast<png_byte>(std::clamp((db + dynamic_range_db) / dynamic_range_db, 0.0, 1.0) * 255.0 + 0.5);
  }

  io::AtomicFile f(path);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, &info);
    throw Error(path + ": libpng could not start");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw Error(path + ": libpng failed while writing");
  }
  png_init_io(png, f.get());
  png_set_IHDR(png, info, static_cast<png_uint_32>(w), static_cast<png_uint_32>(h), 8, PNG_COLOR_TYPE_GRAY,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (std::size_t i = 0; i < h; ++i) png_write_row(png, pixels.data() + i * w);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  f.commit();
}

}  // namespace sarfuse
