#include <cmath>

#include "sarfuse/error.hpp"
#include "sarfuse/quality.hpp"

namespace sarfuse {

double relative_l2(const ComplexImage& a, const ComplexImage& b) {
  if (a.lines() != b.lines() || a.samples() != b.samples())
    throw Error("compare: images differ in shape (" + std::to_string(a.lines()) + " x " + std::to_string(a.samples()) +
                " vs " + std::to_string(b.lines()) + " x " + std::to_string(b.samples()) + ")");
  double num = 0, den = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const std::complex<double> x(a.data()[k]), y(b.data()[k]);
    num += std::norm(x - y);
    den += std::norm(y);
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double intensity_contrast(const ComplexImage& img) { return intensity_contrast(img, 0, img.samples()); }

double intensity_contrast(const ComplexImage& img, std::size_t first_column, std::size_t last_column) {
  if (first_column >= last_column || last_column > img.samples()) {
    first_column = 0;
    last_column = img.samples();
  }
  double s = 0, s2 = 0;
  for (std::size_t i = 0; i < img.lines(); ++i)
    for (std::size_t j = first_column; j < last_column; ++j) {
      const double p = std::norm(std::complex<double>(img(i, j)));
      s += p;
      s2 += p * p;
    }
  const double n = static_cast<double>(img.lines() * (last_column - first_column));
  if (n == 0 || s == 0) return 0;
  const double mean = s / n;
  return std::sqrt(std::max(0.0, s2 / n - mean * mean)) / mean;
}

}  // namespace sarfuse
