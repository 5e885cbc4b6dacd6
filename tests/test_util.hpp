// Helpers shared by the tests: float64 references and random data.
#pragma once
#include <fstream>
#include <sstream>
#include <cmath>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include <unistd.h>

namespace sarfuse::test {

inline std::vector<std::complex<double>> random_complex(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d;
  std::vector<std::complex<double>> v(n);
  for (auto& x : v) x = {d(g), d(g)};
  return v;
}

// Direct DFT (sign -1 forward) in long double, from an exact twiddle table: the float64 reference.
inline std::vector<std::complex<double>> direct_dft(const std::vector<std::complex<double>>& x, int sign) {
  const std::size_t n = x.size();
  std::vector<long double> c(n), s(n);
  for (std::size_t m = 0; m < n; ++m) {
    const long double a = sign * 2.0L * 3.141592653589793238462643383279502884L * static_cast<long double>(m) / n;
    c[m] = std::cos(a);
    s[m] = std::sin(a);
  }
  std::vector<std::complex<double>> y(n);
  for (std::size_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    std::size_t m = 0;  // (k * j) mod n, advanced without overflow
    for (std::size_t j = 0; j < n; ++j) {
      re += x[j].real() * c[m] - x[j].imag() * s[m];
      im += x[j].real() * s[m] + x[j].imag() * c[m];
      m += k;
      if (m >= n) m -= n;
    }
    y[k] = {static_cast<double>(re), static_cast<double>(im)};
  }
  return y;
}

template <class A, class B>
double rel_l2(const A& a, const B& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const std::complex<double> x(a[i]), y(b[i]);
    num += std::norm(x - y);
    den += std::norm(y);
  }
  return std::sqrt(num / den);
}

// A whole file's bytes ("" when it cannot be read).
inline std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A fresh empty folder under the system temp dir.
inline std::string temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("sarfuse_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

}  // namespace sarfuse::test

namespace sarfuse::test {

// ISLR of an ideal sinc with the project's definition: main lobe between the first nulls, sidelobes
// out to 10 first-null distances on each side. Simpson's rule on sinc^2, independent of the code
// under test.
inline double sinc_islr_db(int nulls = 10) {
  auto f = [](double x) {
    const double s = x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
    return s * s;
  };
  auto integrate = [&](double a, double b) {
    const int n = 200000;
    const double h = (b - a) / n;
    double s = f(a) + f(b);
    for (int i = 1; i < n; ++i) s += f(a + i * h) * (i % 2 ? 4 : 2);
    return s * h / 3;
  };
  return 10 * std::log10(2 * integrate(1, nulls) / integrate(-1, 1));
}

}  // namespace sarfuse::test

namespace sarfuse::test {

// Where the tests find things; environment variables override the build-time paths (a test binary
// run on another machine, e.g. the GPU machine, from a bundle).
inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
inline std::string shared_data_dir() { return env_or("SARFUSE_TEST_DATA", SARFUSE_SHARED_DATA); }
inline std::string source_dir() { return env_or("SARFUSE_TEST_SOURCE", SARFUSE_SOURCE_DIR); }

}  // namespace sarfuse::test
