// sarfuse: images and raw-sample views.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

namespace sarfuse {

// Aligned allocation: 64 bytes (cache lines, FFTW's SIMD), and for large buffers 2 MiB with a
// transparent-huge-page hint, so the strided walks of the azimuth passes do not thrash the TLB.
void* allocate_aligned(std::size_t bytes);
void free_aligned(void* p) noexcept;

template <class T>
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t n) { resize(n); }
  void resize(std::size_t n) {
    if (n == size_) return;
    data_.reset();
    size_ = 0;
    if (n == 0) return;
    data_.reset(static_cast<T*>(allocate_aligned(n * sizeof(T))));
    size_ = n;
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(T* p) const { free_aligned(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_ = 0;
};

// Owning complex image, row-major: row = azimuth line, column = range sample.
template <class T>
class Image {
 public:
  using value_type = std::complex<T>;
  Image() = default;
  Image(std::size_t lines, std::size_t samples) : lines_(lines), samples_(samples), buf_(lines * samples) {}
  std::size_t lines() const { return lines_; }
  std::size_t samples() const { return samples_; }
  std::size_t size() const { return lines_ * samples_; }
  value_type* data() { return buf_.data(); }
  const value_type* data() const { return buf_.data(); }
  value_type* row(std::size_t i) { return buf_.data() + i * samples_; }
  const value_type* row(std::size_t i) const { return buf_.data() + i * samples_; }
  value_type& operator()(std::size_t i, std::size_t j) { return buf_[i * samples_ + j]; }
  const value_type& operator()(std::size_t i, std::size_t j) const { return buf_[i * samples_ + j]; }

 private:
  std::size_t lines_ = 0, samples_ = 0;
  AlignedBuffer<value_type> buf_;
};

using ComplexImage = Image<float>;

enum class SampleType { complex64, complex128, int8_iq, int16_iq };
const char* to_string(SampleType t);
std::size_t bytes_per_sample(SampleType t);  // one complex sample

// Non-owning view of raw samples, row-major (lines x samples); integer types interleave I,Q.
struct RawView {
  SampleType type = SampleType::complex64;
  const void* data = nullptr;
  std::size_t lines = 0;
  std::size_t samples = 0;
};

// Complex samples of a product (sarfuse/io.hpp says how each format stores them): complex64; complex32,
// IEEE half real and imaginary parts; cint16, 16-bit integer pairs times a scale.
enum class SampleFormat { complex64, complex32, cint16 };
SampleFormat parse_sample_format(const std::string& text);
const char* to_string(SampleFormat f);

// Owning raw samples as read from a file, kept in their compact on-disk type.
struct RawData {
  SampleType type = SampleType::complex64;
  std::size_t lines = 0;
  std::size_t samples = 0;
  AlignedBuffer<std::byte> bytes;
  RawView view() const { return {type, bytes.data(), lines, samples}; }
};

inline RawView view_of(const ComplexImage& img) {
  return {SampleType::complex64, img.data(), img.lines(), img.samples()};
}

}  // namespace sarfuse
