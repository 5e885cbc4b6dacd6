// Host helpers of the standalone GPU experiments (rc_variants.cu, column_variants.cu): a checked CUDA
// call, a float64 reference FFT, and a median timer on CUDA events.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

// In-place radix-2 FFT in float64 (a power-of-two length), unnormalised both ways.
inline void fft_host(std::vector<std::complex<double>>& a, bool inverse = false) {
  const int n = static_cast<int>(a.size());
  for (int i = 1, j = 0; i < n; ++i) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (int len = 2; len <= n; len <<= 1) {
    const double ang = 2 * M_PI / len * (inverse ? 1 : -1);
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; ++k) {
        const std::complex<double> w = std::polar(1.0, ang * k);
        const auto u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
  }
}

// Median of `reps` timings (CUDA events around f, after five warm-up calls), in ms.
struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  template <class F>
  double median_ms(F&& f, int reps = 50) {
    for (int k = 0; k < 5; ++k) f();
    std::vector<float> t;
    for (int k = 0; k < reps; ++k) {
      CK(cudaEventRecord(a));
      f();
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

// Copies the n outputs at `dy` back and prints their relative L2 against the float64 references:
// ref[i][k] is output at(i, k); flagged when not below 1e-5 or when any output is not finite.
template <class At>
void check_outputs(const char* name, const float2* dy, std::size_t n,
                   const std::vector<std::vector<std::complex<double>>>& ref, At at) {
  std::vector<float2> y(n);
  CK(cudaMemcpy(y.data(), dy, n * sizeof(float2), cudaMemcpyDeviceToHost));
  bool finite = true;
  for (const float2& v : y) finite &= std::isfinite(v.x) && std::isfinite(v.y);
  double err2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    for (std::size_t k = 0; k < ref[i].size(); ++k) {
      const float2 o = y[at(i, k)];
      err2 += std::norm(std::complex<double>(o.x, o.y) - ref[i][k]);
      ref2 += std::norm(ref[i][k]);
    }
  const double e = std::sqrt(err2 / ref2);
  std::printf("  %-58s rel L2 vs float64 %.2e%s\n", name, e, finite && e < 1e-5 ? "" : "  ** WRONG **");
}

// The measuring context of one experiment: its timer, the SM count, and the device-to-device copy of
// the data (one read + one write of `bytes`) that every variant's time is put against.
struct Bench {
  Timer tm;
  int sms = 0;
  double bytes = 0, copy = 0;
  Bench(void* dst, const void* src, std::size_t size) : bytes(2.0 * size) {
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    copy = tm.median_ms([&] { CK(cudaMemcpyAsync(dst, src, size, cudaMemcpyDeviceToDevice)); });
    std::printf("copy %zu MB device to device: %.4f ms (%.0f GB/s)\n", size >> 20, copy, bytes / copy / 1e6);
  }
  void report(const char* name, double ms) const {
    std::printf("%-60s %.4f ms  %.0f GB/s  %.0f %% of copy\n", name, ms, bytes / ms / 1e6, 100 * copy / ms);
  }
};
