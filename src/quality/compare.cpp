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

double intensity_contrast(const ComplexImage& img) {
  double s = 0, s2 = 0;
  for (std::size_t k = 0; k < img.size(); ++k) {
    const double p = std::norm(std::complex<double>(img.data()[k]));
    s += p;
    s2 += p * p;
  }
  const double n = static_cast<double>(img.size());
  const double mean = s / n;
  return std::sqrt(std::max(0.0, s2 / n - mean * mean)) / mean;
}

}  // namespace sarfuse
