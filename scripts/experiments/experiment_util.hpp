// Host helpers of the standalone GPU experiments (rc_variants.cu, column_variants.cu): a checked CUDA
// call, a float64 reference FFT, and a median timer on CUDA events.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
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

// The table exp(-2 pi i k / n), k < n, on the device (the kernels' twiddles).
inline float2* device_twiddle_table(int n) {
  std::vector<float2> t(n);
  for (int k = 0; k < n; ++k) t[k] = make_float2(std::cos(-2 * M_PI * k / n), std::sin(-2 * M_PI * k / n));
  float2* d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(float2)));
  CK(cudaMemcpy(d, t.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  return d;
}

// Median of `reps` timings (CUDA events around f, after five warm-up calls), in ms.
struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  // before(): untimed, ahead of every call (an in-place kernel's input restored, say).
  template <class F, class G = void (*)()>
  double median_ms(F&& f, int reps = 50, G&& before = [] {}) {
    for (int k = 0; k < 5; ++k) before(), f();
    std::vector<float> t;
    for (int k = 0; k < reps; ++k) {
      before();
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

// A range-compression case on the device: `lines` lines of n random complex points (dx), an output
// buffer (dy), a random filter H scaled by 1/n (dh) and the twiddle table exp(-2 pi i k / n) (dtw);
// float64 references of chosen lines, IFFT(FFT(x) H), through `dft(a, inverse)` (unnormalised).
struct RangeCase {
  std::size_t lines, n, size;
  std::vector<float2> x, h, tw;
  float2 *dx = nullptr, *dy = nullptr, *dh = nullptr, *dtw = nullptr;
  RangeCase(int lines_, int n_) : lines(lines_), n(n_), size(lines * n), x(size), h(n), tw(n) {
    std::mt19937 rng(7);
    std::normal_distribution<float> g;
    for (auto& v : x) v = make_float2(g(rng), g(rng));
    for (auto& v : h) v = make_float2(g(rng) / n_, g(rng) / n_);
    for (int k = 0; k < n_; ++k) tw[k] = make_float2(std::cos(-2 * M_PI * k / n_), std::sin(-2 * M_PI * k / n_));
    CK(cudaMalloc(&dx, size * 8));
    CK(cudaMalloc(&dy, size * 8));
    CK(cudaMalloc(&dh, n * 8));
    CK(cudaMalloc(&dtw, n * 8));
    CK(cudaMemcpy(dx, x.data(), size * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dh, h.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dtw, tw.data(), n * 8, cudaMemcpyHostToDevice));
  }
  template <class Dft>
  void set_checked_lines(std::vector<int> check_lines, Dft dft) {
    checked = std::move(check_lines);
    ref.clear();
    for (int l : checked) {
      std::vector<std::complex<double>> a(n);
      for (std::size_t k = 0; k < n; ++k) a[k] = {x[l * n + k].x, x[l * n + k].y};
      dft(a, false);
      for (std::size_t k = 0; k < n; ++k) a[k] *= std::complex<double>(h[k].x, h[k].y);
      dft(a, true);
      ref.push_back(a);
    }
  }
  void poison() const { CK(cudaMemset(dy, 0xff, size * 8)); }
  void check(const char* name) const {
    check_outputs(name, dy, size, ref, [&](std::size_t i, std::size_t k) { return checked[i] * n + k; });
  }
  std::vector<int> checked;
  std::vector<std::vector<std::complex<double>>> ref;
};

// Times go() (writing rc.dy) after checking its poisoned output when `checked`.
template <class Go>
void measure_run(Bench& bench, const RangeCase& rc, const std::string& label, Go&& go, bool checked = true) {
  rc.poison();
  go();
  CK(cudaDeviceSynchronize());
  if (checked) rc.check(label.c_str());
  bench.report(label.c_str(), bench.tm.median_ms(go));
}

// Times `launch(grid)` (a kernel writing rc.dy) after checking its poisoned output when `checked`; the
// label gets the kernel's blocks a SM, registers, local and shared bytes. persistent: a grid of one wave
// (SMs x blocks a SM), else `blocks`.
template <class Launch>
void measure_kernel(Bench& bench, const RangeCase& rc, const void* kernel, int smem, int threads, unsigned blocks,
                    bool persistent, const char* name, Launch&& launch, bool checked = true) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, kernel));
  char label[200];
  std::snprintf(label, sizeof label, "%s (%d/SM, %d regs, %zu B local, %d B smem)", name, per_sm, fa.numRegs,
                fa.localSizeBytes, smem);
  const unsigned grid = persistent ? static_cast<unsigned>(bench.sms * per_sm) : blocks;
  auto go = [&] {
    launch(grid);
    CK(cudaGetLastError());
  };
  measure_run(bench, rc, label, go, checked);
}

// A launch of `grid` blocks of `threads` in clusters of `cluster` along x, for cudaLaunchKernelEx
// (cfg points at this object's attribute: not copyable).
struct ClusterLaunch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1]{};
  ClusterLaunch(unsigned grid, unsigned threads, int smem, unsigned cluster) {
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = static_cast<std::size_t>(smem);
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};
