// Experiment (issue 20): the RDA's pass 1 (range FFT of the zero-padded raw line x matched filter, the
// spectrum stored) at the nice length the bench's 8192 x 8192 scene takes (9216), the product kernel
// (9 points a thread, 1024 threads, one block a SM) beside other shapes: 16 points (576 threads, the
// radix-9 pass from shared memory), 32 points (288 threads: two blocks a SM) and 36 points on 256 threads with every pass on the registers
// (all_register_fft.cuh), one or two blocks a SM. Every output compared with the product's.
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr -Xptxas -v \
//     scripts/experiments/pass1_variants.cu build/libsarfuse.a -lfftw3f_threads -lfftw3_threads \
//     -lfftw3f -lfftw3 -o p1v && ./p1v LINES NR
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "all_register_fft.cuh"
#include "cuda/kernels.hpp"
#include "cuda/steps/line_slot.cuh"
#include "cuda/steps/load_line.cuh"
#include "cuda/steps/matched_filter.cuh"
#include "cuda/steps/row_storage.cuh"
#include "experiment_util.hpp"

using namespace sarfuse;
using namespace sarfuse::cuda;
using fft::C32;

namespace p1v {

constexpr int N = 9216;

// AllRegisters: experiments::all_register_forward, else the product's block FFT at E points a thread.
template <int E, int MinBlocks, bool AllRegisters>
__global__ void __launch_bounds__(N / E, MinBlocks)
    spectrum_variant(const float2* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                     const float2* __restrict__ tw, float2* __restrict__ out) {
  extern __shared__ __align__(32) C32 smem[];
  const steps::LineSlot<N, 1, E, 1> slot(smem, lines);
  C32 v[E];
  steps::load_raw_line<N, SampleType::complex64>(v, raw, slot.line, nr, slot.tid, slot.active);
  steps::prefetch_ahead_l2<N, E>(raw, slot.line, lines, static_cast<std::size_t>(nr) * sizeof(float2), slot.tid);
  if constexpr (AllRegisters) experiments::all_register_forward<N, E>(v, slot.s, tw, slot.tid);
  else fft::block_fft_forward<N, E>(v, slot.s, tw, slot.tid);
  steps::multiply_by_filter<N>(v, filter, slot.tid);
  steps::Fp32Rows::store_spectrum<N>(v, out, slot.line, slot.active, slot.tid, nullptr, nullptr);
}

int run(int lines, int nr) {
  std::mt19937 gen(11);
  std::normal_distribution<float> g(0.f, 1.f);
  const std::size_t in_count = static_cast<std::size_t>(lines) * nr, out_count = static_cast<std::size_t>(lines) * N;
  std::vector<float2> h_raw(in_count), h_filter(N);
  for (auto& x : h_raw) x = make_float2(g(gen), g(gen));
  for (auto& x : h_filter) x = make_float2(g(gen), g(gen));
  const std::vector<float2> h_tw = fft_twiddle_table(N);
  float2 *raw, *filter, *tw, *out, *copy;
  CK(cudaMalloc(&raw, in_count * 8));
  CK(cudaMalloc(&filter, N * 8));
  CK(cudaMalloc(&tw, N * 8));
  CK(cudaMalloc(&out, out_count * 8));
  CK(cudaMalloc(&copy, out_count * 8));
  CK(cudaMemcpy(raw, h_raw.data(), in_count * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(filter, h_filter.data(), N * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(tw, h_tw.data(), N * 8, cudaMemcpyHostToDevice));
  Timer timer;
  const double t_copy = timer.median_ms([&] { CK(cudaMemcpyAsync(copy, out, out_count * 8, cudaMemcpyDeviceToDevice)); });
  const double bytes = (static_cast<double>(in_count) + out_count) * 8;
  std::printf("N %d, %d lines of %d samples: copy of %.0f MB %.4f ms; the pass's %.0f MB at that rate %.4f ms\n", N, lines,
              nr, out_count * 8 / 1e6, t_copy, bytes / 1e6, t_copy * bytes / (2.0 * out_count * 8));
  auto poison = [&] { CK(cudaMemset(out, 0xff, out_count * 8)); };
  poison();
  const double t_product =
      timer.median_ms([&] { launch_range_spectrum(N, SampleType::complex64, raw, lines, nr, filter, tw, out, nullptr, false); });
  CK(cudaGetLastError());
  std::vector<float2> ref(out_count), got(out_count);
  CK(cudaMemcpy(ref.data(), out, out_count * 8, cudaMemcpyDeviceToHost));
  std::printf("  %-52s %.4f ms\n", "product (9 points, 1024 threads)", t_product);
  int bad = 0;
  auto variant = [&]<int E, int MinBlocks, bool AllRegisters>(const char* name) {
    const auto kernel = &spectrum_variant<E, MinBlocks, AllRegisters>;
    constexpr int smem = steps::LineSlot<N, 1, E, 1>::smem_bytes;
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaFuncAttributes attr{};
    CK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, N / E, smem));
    poison();
    const double t = timer.median_ms([&] { kernel<<<lines, N / E, smem>>>(raw, lines, nr, filter, tw, out); });
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), out, out_count * 8, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (std::size_t i = 0; i < out_count; ++i) {
      const double dx = got[i].x - ref[i].x, dy = got[i].y - ref[i].y;
      num += dx * dx + dy * dy;
      den += static_cast<double>(ref[i].x) * ref[i].x + static_cast<double>(ref[i].y) * ref[i].y;
    }
    const double rel = std::sqrt(num / den);
    const bool ok = rel <= 1e-6;
    bad += !ok;
    std::printf("  %-52s %.4f ms  (%.3fx product)  %d regs, %zu B local, %d/SM  rel L2 vs product %.2e%s\n", name, t,
                t_product / t, attr.numRegs, attr.localSizeBytes, per_sm, rel, ok ? "" : "  MISMATCH");
  };
  variant.template operator()<9, 1, false>("9 points, 1024 threads (the product's body)");
  variant.template operator()<16, 1, false>("16 points, 576 threads");
  variant.template operator()<32, 2, false>("32 points, 288 threads, 2/SM");
  variant.template operator()<32, 1, false>("32 points, 288 threads, 1/SM");
  variant.template operator()<36, 2, true>("36 points, 256 threads, all passes on registers, 2/SM");
  variant.template operator()<36, 1, true>("36 points, 256 threads, all passes on registers, 1/SM");
  CK(cudaFree(raw));
  CK(cudaFree(filter));
  CK(cudaFree(tw));
  CK(cudaFree(out));
  CK(cudaFree(copy));
  return bad;
}

}  // namespace p1v

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 8192;
  const int nr = argc > 2 ? std::atoi(argv[2]) : 8192;
  const int bad = p1v::run(lines, nr);
  std::printf(bad ? "%d variant(s) differ\n" : "every variant matches\n", bad);
  return bad ? 1 : 0;
}
