// The column experiments' case (column_variants.cu, column_cluster.cu): `cols` columns of n random
// complex points in a row-major array on the device (dx), an output (dy), the twiddles exp(-2 pi i k / n)
// (dtw), float64 FFTs of chosen columns to check outputs against, and cuFFT strided over the columns
// (the peer), checked and timed.
#pragma once
#include <cufft.h>

#include "experiment_util.hpp"

struct ColumnCase {
  int n, cols;
  std::size_t size;
  std::vector<float2> x, tw;
  float2 *dx = nullptr, *dy = nullptr, *dtw = nullptr;
  std::vector<int> checked;
  std::vector<std::vector<std::complex<double>>> ref;

  ColumnCase(int n_, int cols_, std::vector<int> check_cols)
      : n(n_), cols(cols_), size(static_cast<std::size_t>(n_) * cols_), x(size), tw(n_), checked(std::move(check_cols)) {
    std::mt19937 rng(11);
    std::normal_distribution<float> gauss;
    for (auto& v : x) v = make_float2(gauss(rng), gauss(rng));
    for (int k = 0; k < n; ++k) tw[k] = make_float2(std::cos(-2 * M_PI * k / n), std::sin(-2 * M_PI * k / n));
    CK(cudaMalloc(&dx, size * 8));
    CK(cudaMalloc(&dy, size * 8));
    CK(cudaMalloc(&dtw, n * 8));
    CK(cudaMemcpy(dx, x.data(), size * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dtw, tw.data(), n * 8, cudaMemcpyHostToDevice));
    for (int col : checked) {
      std::vector<std::complex<double>> a(n);
      for (int r = 0; r < n; ++r) a[r] = {x[static_cast<std::size_t>(r) * cols + col].x, x[static_cast<std::size_t>(r) * cols + col].y};
      fft_host(a);
      ref.push_back(a);
    }
  }
  void poison() const { CK(cudaMemset(dy, 0xff, size * 8)); }
  void check(const char* name) const {
    check_outputs(name, dy, size, ref, [&](std::size_t i, std::size_t r) { return r * cols + checked[i]; });
  }
  // cuFFT strided (stride = cols, dist 1), checked, then timed on `bench`.
  void cufft_strided(Bench& bench) const {
    cufftHandle plan;
    int len = n, embed = n;
    if (cufftPlanMany(&plan, 1, &len, &embed, cols, 1, &embed, cols, 1, CUFFT_C2C, cols) != CUFFT_SUCCESS) std::exit(1);
    auto run = [&] {
      if (cufftExecC2C(plan, reinterpret_cast<cufftComplex*>(dx), reinterpret_cast<cufftComplex*>(dy), CUFFT_FORWARD) !=
          CUFFT_SUCCESS)
        std::exit(1);
    };
    poison();
    run();
    CK(cudaDeviceSynchronize());
    check("cuFFT strided");
    bench.report("cuFFT strided", bench.tm.median_ms(run));
    cufftDestroy(plan);
  }
};
