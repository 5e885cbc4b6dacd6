// Quicklook PNG (8-bit grey) through libpng.
#include <png.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "io/atomic_file.hpp"
#include "sarfuse/error.hpp"
#include "sarfuse/io.hpp"

namespace sarfuse {

void check_quicklook_options(const QuicklookOptions& o) {
  if (o.scale == QuicklookOptions::Scale::db && !(o.dynamic_range_db > 0))
    throw Error("png dynamic_range_db: expected a positive number of dB");
  if (!(o.clip_percentile > 0 && o.clip_percentile <= 100)) throw Error("png clip_percentile: expected a percentile in (0, 100]");
  if (!(o.incidence_deg > 0 && o.incidence_deg <= 90)) throw Error("png incidence_deg: expected an angle in (0, 90] degrees");
}

Quicklook::Quicklook(std::size_t lines, std::size_t samples, const QuicklookOptions& o, double azimuth_pixel_m,
                     double range_pixel_m)
    : o_(o), samples_(samples) {
  check_quicklook_options(o);
  // Looks for square ground pixels: the finer axis takes proportionally more looks.
  const double ground_range = range_pixel_m > 0 ? range_pixel_m / std::sin(o.incidence_deg * std::acos(-1.0) / 180) : 0;
  const double ratio = (azimuth_pixel_m > 0 && ground_range > 0) ? ground_range / azimuth_pixel_m : 1.0;  // az looks per rg look
  const double max_px = static_cast<double>(std::max<std::size_t>(o.max_pixels, 1));
  // Smallest range looks with both sides within max_pixels and the pixel square within 25 %.
  for (std::size_t lr = 1;; ++lr) {
    const std::size_t la = std::max<std::size_t>(1, static_cast<std::size_t>(std::lround(lr * ratio)));
    const double aspect = static_cast<double>(la) / static_cast<double>(lr) / ratio;
    const bool square = (aspect >= 0.8 - 1e-9 && aspect <= 1.25 + 1e-9) || lr >= 8;
    if (square && static_cast<double>(samples) / lr <= max_px && static_cast<double>(lines) / la <= max_px) {
      look_az_ = la;
      look_rg_ = lr;
      break;
    }
    if (lr > samples && la > lines) break;
  }
  h_ = lines / look_az_;
  w_ = samples / look_rg_;
  if (h_ == 0 || w_ == 0) throw Error("quicklook: image too small");
  power_.assign(h_ * w_, 0.0);
}

void Quicklook::add_rows(const std::complex<float>* rows, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k, ++next_) {
    if (next_ >= h_ * look_az_) continue;
    double* out = power_.data() + (next_ / look_az_) * w_;
    const std::complex<float>* r = rows + k * samples_;
    for (std::size_t j = 0; j < w_ * look_rg_; ++j) out[j / look_rg_] += std::norm(r[j]);
  }
}

void write_png(const std::string& path, const ComplexImage& img, const QuicklookOptions& o) {
  Quicklook q(img.lines(), img.samples(), o);
  q.add_rows(img.data(), img.lines());
  q.write(path);
}

std::vector<unsigned char> Quicklook::pixels() const {
  std::vector<unsigned char> pixels(h_ * w_);
  if (o_.scale == QuicklookOptions::Scale::db) {
    const double top = 10.0 * std::log10(std::max(*std::max_element(power_.begin(), power_.end()), 1e-300));
    for (std::size_t k = 0; k < pixels.size(); ++k) {
      const double db = 10.0 * std::log10(std::max(power_[k], 1e-300)) - top;
      pixels[k] = static_cast<unsigned char>(std::clamp((db + o_.dynamic_range_db) / o_.dynamic_range_db, 0.0, 1.0) * 255.0 + 0.5);
    }
    return pixels;
  }
  // Amplitude (the looks' mean power's square root), 255 at the clip percentile.
  std::vector<float> amp(power_.size());
  const double looks = static_cast<double>(look_az_ * look_rg_);
  for (std::size_t k = 0; k < amp.size(); ++k) amp[k] = static_cast<float>(std::sqrt(power_[k] / looks));
  std::vector<float> sorted = amp;
  const auto rank = static_cast<std::size_t>(std::min<double>(
      static_cast<double>(sorted.size() - 1), std::floor(o_.clip_percentile / 100.0 * static_cast<double>(sorted.size() - 1))));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(rank), sorted.end());
  double clip = sorted[rank];
  if (!(clip > 0)) clip = std::max<double>(*std::max_element(amp.begin(), amp.end()), 1e-30);
  for (std::size_t k = 0; k < pixels.size(); ++k)
    pixels[k] = static_cast<unsigned char>(std::clamp(amp[k] / clip, 0.0, 1.0) * 255.0 + 0.5);
  return pixels;
}

void Quicklook::write(const std::string& path) const {
  const std::vector<png_byte> pixels = this->pixels();
  const std::size_t h = h_, w = w_;

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
