// Experiment (issue 20): the RDA's pass 4 at 16 x m azimuth lines with the spectrum in natural order
// taken apart and against other orders, at the shape of 30000 x 6250 (work array pitch 8192, SLC pitch
// = its columns), in one process:
//   product        launch_two_step_inverse_from_natural as it stands (since stop 54: the column pass at
//                  1024 threads into an aligned scratch, the register pass from it into the SLC);
//   column alone   that column pass at 256 / 512 / 1024 threads a block;
//   register alone that register pass on the SLC;
//   aligned SLC    the product with the SLC at a pitch rounded up to 4 columns (32-byte rows);
//   1024 threads   the stop-53 order: the column pass at 1024 threads into the SLC, the register pass
//                  in place there;
//   via scratch    the column pass (1024 threads) into an aligned scratch, the register pass from it
//                  into the SLC (what the product does since stop 54);
//   DIF order      the 16-point step first, in place on the work array (rows k2 + m k1: the natural
//                  spectrum as it lies; DFT, then x exp(+2 pi i n1 k2 / lines)), then the column pass
//                  from its groups into the SLC at rows n1 + 16 n2 (out_interleave): the SLC written once;
//   forward pass   pass 2's column pass (launch_two_step_column_pass: work-pitch rows in, rows 16
//                  apart out, out_interleave) at 256 / 512 / 1024 threads, over the full work pitch;
//   cluster        launch_cluster_inverse_from_natural: one sweep, clusters of 16 blocks (group k1 of a
//                  column tile each in shared memory, the 16-point step through distributed shared memory)
//                  at 256 / 512 / 1024 threads a block, with the clusters the device holds at once;
//   copy floors    the device-to-device copy of the SLC's bytes (one sweep) and of the work array's.
// Every variant's SLC compared with the product's.
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr \
//     scripts/experiments/inverse_natural_pass4.cu -lcufft -o inp4 && ./inp4 30000 6250
// Arguments: lines (16 x a supported column length) and SLC columns; work pitch 8192.
#include "cuda/fft/column_fft.cu"
#include "cuda/fft/two_step_column_fft.cu"
#include "cluster_inverse_pass4.cuh"
#include "experiment_util.hpp"

namespace sarfuse::cuda {
bool own_fft_supports(int n) { return n >= 256 && n <= 16384 && (n & (n - 1)) == 0; }
}  // namespace sarfuse::cuda

using namespace sarfuse::cuda;
using fft::C32;

// The inverse's 16-point step in decimation-in-frequency order, in place: rows k1 m + k2 (natural
// spectrum) -> inverse DFT over k1 -> x exp(+2 pi i n1 k2 / lines) -> rows n1 m + k2.
__global__ void __launch_bounds__(256) dif_step_kernel(float2* a, int pitch, int cols, int m, const float2* __restrict__ tw) {
  constexpr int R = 16;
  const int col = static_cast<int>(blockIdx.x) * 256 + static_cast<int>(threadIdx.x);
  const int k2 = static_cast<int>(blockIdx.y);
  if (col >= cols) return;
  C32 x[R];
#pragma unroll
  for (int r = 0; r < R; ++r) x[r] = fft::conj(fft::to_c32(a[(static_cast<std::size_t>(r) * m + k2) * pitch + col]));
  fft::dft<R>(x);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    C32 y = r == 0 ? x[0] : x[r] * fft::to_c32(__ldg(tw + k2 * r));  // conj(y) = IDFT x conj(W^(k2 r))
    a[(static_cast<std::size_t>(r) * m + k2) * pitch + col] = fft::to_float2(fft::conj(y));
  }
}

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 30000, cols = argc > 2 ? std::atoi(argv[2]) : 6250;
  const int pitch = 8192, m = lines / 16, aligned = (cols + 3) / 4 * 4;
  const std::size_t work_n = static_cast<std::size_t>(lines) * pitch, slc_n = static_cast<std::size_t>(lines) * aligned;
  std::vector<float2> x(work_n);
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  float2 *spec, *work, *slc, *slc2, *tw, *part;
  CK(cudaMalloc(&spec, work_n * 8));
  CK(cudaMalloc(&work, work_n * 8));
  CK(cudaMalloc(&slc, slc_n * 8));
  CK(cudaMalloc(&slc2, slc_n * 8));
  CK(cudaMemcpy(spec, x.data(), work_n * 8, cudaMemcpyHostToDevice));
  tw = device_twiddle_table(lines);
  part = device_twiddle_table(m);
  std::printf("%d lines (16 x %d) x %d columns, work pitch %d; aligned SLC pitch %d\n", lines, m, cols, pitch, aligned);
  Timer tm;
  const double copy_slc = tm.median_ms([&] { CK(cudaMemcpyAsync(slc2, slc, static_cast<std::size_t>(lines) * cols * 8, cudaMemcpyDeviceToDevice)); });
  const double copy_work = tm.median_ms([&] { CK(cudaMemcpyAsync(work, spec, work_n * 8, cudaMemcpyDeviceToDevice)); });
  std::printf("copy of the SLC's bytes (one read + one write) %.4f ms; of the work array %.4f ms\n", copy_slc, copy_work);
  auto product = [&](float2* out, int out_pitch) {
    launch_two_step_inverse_from_natural(lines, spec, pitch, work, natural_scratch_pitch(cols), out, out_pitch, cols, tw,
                                         part, nullptr);
  };
  auto column_pass = [&](int threads) {
    ColumnScaling s;
    s.in_interleave = 16;
    launch_column_fft(m, threads, spec, pitch, slc, cols, cols, true, part, nullptr, s, 16);
  };
  auto restore = [&] { CK(cudaMemcpyAsync(work, spec, work_n * 8, cudaMemcpyDeviceToDevice)); };
  auto dif = [&] {
    dif_step_kernel<<<dim3((cols + 255) / 256, m), 256>>>(work, pitch, cols, m, tw);
    ColumnScaling s;
    s.out_interleave = 16;
    launch_column_fft(m, 512, work, pitch, slc2, cols, cols, true, part, nullptr, s, 16);
  };
  auto two_passes = [&](int threads, float2* mid, int mid_pitch) {
    ColumnScaling s;
    s.in_interleave = 16;
    launch_column_fft(m, threads, spec, pitch, mid, mid_pitch, cols, true, part, nullptr, s, 16);
    launch_radix_columns<16>(true, mid, mid_pitch, slc2, cols, cols, m, tw, nullptr);
  };
  auto forward_pass = [&](int threads) {
    ColumnScaling s;
    s.out_interleave = 16;
    launch_column_fft(m, threads, spec, pitch, work, pitch, pitch, false, part, nullptr, s, 16);
  };
  for (int round = 0; round < 2; ++round) {
    const double t_prod = tm.median_ms([&] { product(slc, cols); }, 20);
    const double t_aligned = tm.median_ms([&] { product(slc2, aligned); }, 20);
    const double t256 = tm.median_ms([&] { column_pass(256); }, 20), t512 = tm.median_ms([&] { column_pass(512); }, 20),
                 t1024 = tm.median_ms([&] { column_pass(1024); }, 20);
    const double t_reg = tm.median_ms([&] { launch_radix_columns<16>(true, slc, cols, slc, cols, cols, m, tw, nullptr); }, 20);
    const double t_dif = tm.median_ms(dif, 20, restore);
    const double t_dif_step = tm.median_ms([&] { dif_step_kernel<<<dim3((cols + 255) / 256, m), 256>>>(work, pitch, cols, m, tw); }, 20, restore);
    const double t_1024 = tm.median_ms([&] { two_passes(1024, slc2, cols); }, 20);
    const double t_scratch = tm.median_ms([&] { two_passes(1024, work, aligned); }, 20);
    std::printf("round %d: product %.4f ms | aligned SLC %.4f | column pass alone 256 / 512 / 1024 threads %.4f / %.4f / %.4f "
                "| register pass alone %.4f | DIF order %.4f (its step alone %.4f)\n",
                round, t_prod, t_aligned, t256, t512, t1024, t_reg, t_dif, t_dif_step);
    std::printf("         1024 threads %.4f ms | via aligned scratch %.4f ms\n", t_1024, t_scratch);
    double t_fwd[3];
    for (int i = 0; i < 3; ++i)
      t_fwd[i] = tm.median_ms([&] { forward_pass(256 << i); }, 20);
    for (int threads : {256, 512, 1024}) {
      const double t_cluster = tm.median_ms([&] {
        launch_cluster_inverse_from_natural(lines, spec, pitch, slc2, cols, cols, tw, part, nullptr, threads);
      }, 20);
      std::printf("         cluster (one sweep), %4d threads a block (%d clusters active at once) %.4f ms\n", threads,
                  cluster_inverse_active_clusters(lines, threads), t_cluster);
    }
    std::printf("         forward column pass (pass 2, %d columns) 256 / 512 / 1024 threads %.4f / %.4f / %.4f ms\n", pitch,
                t_fwd[0], t_fwd[1], t_fwd[2]);
  }
  // Outputs: each variant's SLC against the product's.
  auto host = [&](const float2* d, int p) {
    std::vector<float2> h(static_cast<std::size_t>(lines) * p);
    CK(cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost));
    return h;
  };
  auto compare = [&](const char* name, const std::vector<float2>& ref, const std::vector<float2>& got, int p) {
    double num = 0, den = 0;
    for (int r = 0; r < lines; ++r)
      for (int c = 0; c < cols; ++c) {
        const float2 a = ref[static_cast<std::size_t>(r) * cols + c], b = got[static_cast<std::size_t>(r) * p + c];
        num += (double(a.x) - b.x) * (double(a.x) - b.x) + (double(a.y) - b.y) * (double(a.y) - b.y);
        den += double(a.x) * a.x + double(a.y) * a.y;
      }
    std::printf("%s vs product: relative L2 %.3e\n", name, std::sqrt(num / den));
  };
  CK(cudaMemset(slc, 0xff, slc_n * 8));
  product(slc, cols);
  const auto ref = host(slc, cols);
  CK(cudaMemset(slc2, 0xff, slc_n * 8));
  product(slc2, aligned);
  compare("aligned SLC", ref, host(slc2, aligned), aligned);
  CK(cudaMemset(slc2, 0xff, slc_n * 8));
  two_passes(1024, slc2, cols);
  compare("1024 threads", ref, host(slc2, cols), cols);
  CK(cudaMemset(slc2, 0xff, slc_n * 8));
  two_passes(1024, work, aligned);
  compare("via aligned scratch", ref, host(slc2, cols), cols);
  CK(cudaMemset(slc2, 0xff, slc_n * 8));
  if (cluster_inverse_from_natural_fits(lines)) {
    for (int threads : {256, 512, 1024}) {
      CK(cudaMemset(slc2, 0xff, slc_n * 8));
      launch_cluster_inverse_from_natural(lines, spec, pitch, slc2, cols, cols, tw, part, nullptr, threads);
      std::printf("%4d threads: ", threads);
      compare("cluster (one sweep)", ref, host(slc2, cols), cols);
    }
  }
  CK(cudaMemset(slc2, 0xff, slc_n * 8));
  restore();
  dif();
  compare("DIF order", ref, host(slc2, cols), cols);
  // The product against float64 at a few columns.
  std::vector<std::complex<double>> w(lines);
  for (int j = 0; j < lines; ++j) w[j] = std::polar(1.0, 2 * M_PI * j / lines);
  double num = 0, den = 0;
  for (int c : {1, cols - 1}) {
    std::vector<std::complex<double>> col(lines), out(lines);
    for (int r = 0; r < lines; ++r) col[r] = {x[static_cast<std::size_t>(r) * pitch + c].x, x[static_cast<std::size_t>(r) * pitch + c].y};
    for (int n = 0; n < lines; ++n) {  // direct inverse DFT (lines need not be a power of two)
      std::complex<double> s = 0;
      for (int k = 0, j = 0; k < lines; ++k, j = (j + n) % lines) s += col[k] * w[j];
      out[n] = s;
    }
    for (int r = 0; r < lines; ++r) {
      const float2 gv = ref[static_cast<std::size_t>(r) * cols + c];
      num += std::norm(std::complex<double>(gv.x, gv.y) - out[r]);
      den += std::norm(out[r]);
    }
  }
  std::printf("product vs float64 (2 columns, direct DFT): relative L2 %.3e\n", std::sqrt(num / den));
  return 0;
}
