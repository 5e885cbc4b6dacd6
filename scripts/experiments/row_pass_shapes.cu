// Experiment (issue 20): the RDA's row passes, the product's own kernels (range_spectrum_kernel, pass 1;
// range_doppler_kernel, pass 3), at other shapes than the product's: E points a thread (so N / E
// threads a line, one line a block) and registers for MinBlocks blocks a SM. At 5120 (4096 x 4096 and
// 16384 x 4096) the product runs pass 1 as 512 threads of 10, two blocks a SM, and pass 3 as 320 of 16,
// three blocks a SM (two before stop 51); 160 threads of 32 leave room for three to five. Every output compared with the product shape's on the
// bench's squinted geometry (pass 3) or random lines (pass 1).
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src -I scripts/experiments --expt-relaxed-constexpr \
//     -DROW_N=5120 scripts/experiments/row_pass_shapes.cu build-cuda/libsarfuse.a -lfftw3f_threads \
//     -lfftw3_threads -lfftw3f -lfftw3 -o rps5120 && ./rps5120 LINES NR
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/filters.hpp"
#include "cuda/range_pass_kernels.cuh"
#include "experiment_util.hpp"
#include "sarfuse/params.hpp"

#ifndef ROW_N
#define ROW_N 5120
#endif

using namespace sarfuse;
using namespace sarfuse::cuda;

namespace rps {

constexpr int N = ROW_N;
using B = steps::Fp32Butterflies;
using R = steps::Fp32Rows;

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  CK(cudaMalloc(&d, h.size() * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

double rel_l2(const std::vector<float2>& got, const std::vector<float2>& ref, int lines, int cols, int pitch) {
  double num = 0, den = 0;
  for (int r = 0; r < lines; ++r)
    for (int c = 0; c < cols; ++c) {
      const float2 x = got[static_cast<std::size_t>(r) * pitch + c], y = ref[static_cast<std::size_t>(r) * pitch + c];
      if (!std::isfinite(x.x) || !std::isfinite(x.y)) return INFINITY;
      num += (double(x.x) - y.x) * (double(x.x) - y.x) + (double(x.y) - y.y) * (double(x.y) - y.y);
      den += double(y.x) * y.x + double(y.y) * y.y;
    }
  return std::sqrt(num / den);
}

// One shape's line: time against the product's, share of the copy floor of the pass's bytes, the
// kernel's registers, local bytes and blocks a SM, and its outputs against the product's.
void report(const char* pass, const char* shape, const void* kernel, int threads, int smem, double t, double t_product,
            double floor_ms, double rel, int& bad) {
  cudaFuncAttributes attr{};
  CK(cudaFuncGetAttributes(&attr, kernel));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  const bool ok = rel <= 1e-6;
  bad += !ok;
  std::printf("  %s %-28s %.4f ms  %.3fx product  %3.0f %% of its copy floor  %3d regs %4zu B local %d/SM  rel L2 %.2e%s\n",
              pass, shape, t, t_product / t, 100 * floor_ms / t, attr.numRegs, attr.localSizeBytes, per_sm, rel,
              ok ? "" : "  MISMATCH");
}

int run(int lines, int nr) {
  int bad = 0;
  Timer timer;
  std::mt19937 gen(11);
  std::normal_distribution<float> g(0.f, 1.f);
  const std::size_t in_count = static_cast<std::size_t>(lines) * nr, work_count = static_cast<std::size_t>(lines) * N;
  std::vector<float2> h_raw(in_count), h_filter(N);
  for (auto& x : h_raw) x = make_float2(g(gen), g(gen));
  for (auto& x : h_filter) x = make_float2(g(gen) / N, g(gen) / N);
  float2* raw = upload(h_raw);
  float2* filter = upload(h_filter);
  float2* tw = upload(fft_twiddle_table(N));
  float2 *work, *pristine;
  CK(cudaMalloc(&work, work_count * 8));
  CK(cudaMalloc(&pristine, work_count * 8));
  const double t_copy =
      timer.median_ms([&] { CK(cudaMemcpyAsync(pristine, work, work_count * 8, cudaMemcpyDeviceToDevice)); });
  const double floor1 = t_copy * double(in_count + work_count) / (2.0 * work_count);
  const double floor3 = t_copy * double(work_count + static_cast<std::size_t>(lines) * nr) / (2.0 * work_count);
  std::printf("N %d, %d lines, nr %d: copy of %.0f MB %.4f ms; floors at that rate: pass 1 %.4f ms, pass 3 %.4f ms\n",
              N, lines, nr, work_count * 8 / 1e6, t_copy, floor1, floor3);
  std::vector<float2> got(work_count);
  // A pass's product shape and its other shapes: each prepared (untimed), run once, its outputs copied
  // back (the product's kept as the reference), then timed; `cols` of each line compared.
  struct Pass {
    const char* name;
    std::vector<float2> ref;
    double t_product = 0, floor_ms = 0;
    int cols = 0;
  };
  auto measure = [&]<int E>(Pass& pass, const char* shape, bool product, const void* kernel, auto prepare,
                            auto launch) {
    steps::set_smem<N, 1, E>(kernel);
    prepare();
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), work, work_count * 8, cudaMemcpyDeviceToHost));
    if (product) pass.ref = got;
    const double t = timer.median_ms(launch, 50, prepare);
    CK(cudaGetLastError());
    if (product) pass.t_product = t;
    report(pass.name, shape, kernel, N / E, BlockShape<N, E>::smem_bytes, t, pass.t_product, pass.floor_ms,
           rel_l2(got, pass.ref, lines, pass.cols, N), bad);
  };

  // Pass 1: raw lines of nr samples, zero-padded to N, x H, the spectrum stored at pitch N.
  Pass p1{"pass 1", {}, 0, floor1, N};
  auto pass1 = [&]<int E, int MinBlocks>(const char* shape, bool product = false) {
    const auto kernel = &range_spectrum_kernel<N, SampleType::complex64, B, R, E, MinBlocks>;
    measure.template operator()<E>(
        p1, shape, product, reinterpret_cast<const void*>(kernel), [&] { CK(cudaMemsetAsync(work, 0xff, work_count * 8)); },
        [&] {
          kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes>>>(
              raw, lines, nr, filter, tw, work, nullptr, nullptr);
        });
  };
  pass1.template operator()<spectrum_row_elems<N, B, R>, row_pass_min_blocks<N, spectrum_row_elems<N, B, R>>>(
      "(product)", true);
  if constexpr (N == 5120) {
    pass1.template operator()<16, 2>("16 points, 2/SM");
    pass1.template operator()<16, 3>("16 points, 3/SM");
    pass1.template operator()<32, 2>("32 points, 2/SM");
    pass1.template operator()<32, 3>("32 points, 3/SM");
    pass1.template operator()<32, 4>("32 points, 4/SM");
    pass1.template operator()<32, 5>("32 points, 5/SM");
  } else if constexpr (N == 8192) {
    pass1.template operator()<16, 3>("16 points, 3/SM");
    pass1.template operator()<32, 2>("32 points, 2/SM");
    pass1.template operator()<32, 3>("32 points, 3/SM");
  } else if constexpr (N == 9216) {
    pass1.template operator()<32, 3>("32 points, 3/SM");
  }
  // The pass-1 spectrum of the product is pass 3's input.
  CK(cudaMemcpy(pristine, p1.ref.data(), work_count * 8, cudaMemcpyHostToDevice));

  // Pass 3 on the bench's squinted geometry, in place.
  RadarParams radar = default_scene().radar;
  radar.doppler_centroid_hz = 0.3 * radar.prf_hz;
  const core::AzimuthFilter az = core::azimuth_filter(radar, lines, nr, true, Window{}, 0.0);
  const double df = radar.range_sampling_rate_hz / static_cast<double>(N);
  core::DopplerRow* rows = upload(az.rows);
  const core::SincTable table = core::make_sinc_table(8);
  float* weights = upload(core::sinc_table_fp32(table));
  const SincTableView sinc{weights, 8, table.fractions, 2.0f};
  const AzimuthBandView band{nullptr, nullptr, core::AzimuthFilter::kWindowIntervals, 1.0f / lines, 1.0f};
  // In place: every run starts from the pass-1 spectrum, restored outside the events.
  Pass p3{"pass 3", {}, 0, floor3, nr};
  auto pass3 = [&]<int E, int MinBlocks>(const char* shape, bool product = false) {
    const auto kernel = &range_doppler_kernel<N, B, R, E, MinBlocks>;
    measure.template operator()<E>(
        p3, shape, product, reinterpret_cast<const void*>(kernel),
        [&] { CK(cudaMemcpyAsync(work, pristine, work_count * 8, cudaMemcpyDeviceToDevice)); },
        [&] {
          kernel<<<steps::grid_for<N, E>(lines), steps::block_for<N, E>(), BlockShape<N, E>::smem_bytes>>>(
              work, lines, nr, rows, df, sinc, band, tw, nullptr, nullptr);
        });
  };
  pass3.template operator()<doppler_row_elems<N, B, R>, doppler_min_blocks<N, B, R, doppler_row_elems<N, B, R>>>(
      "(product)", true);
  if constexpr (N == 5120) {
    pass3.template operator()<16, 2>("16 points, 2/SM (before stop 51)");
    pass3.template operator()<32, 2>("32 points, 2/SM");
    pass3.template operator()<32, 3>("32 points, 3/SM");
    pass3.template operator()<32, 4>("32 points, 4/SM");
    pass3.template operator()<32, 5>("32 points, 5/SM");
  } else if constexpr (N == 8192 || N == 9216) {
    pass3.template operator()<32, 3>("32 points, 3/SM");
  }
  return bad;
}

}  // namespace rps

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int nr = argc > 2 ? std::atoi(argv[2]) : 4096;
  if (nr > rps::N) return std::fprintf(stderr, "NR: at most %d\n", rps::N), 2;
  const int bad = rps::run(lines, nr);
  std::printf(bad ? "%d shape(s) differ\n" : "every shape matches the product's\n", bad);
  return bad ? 1 : 0;
}
