// vkfft-conv: the strongest public fused-convolution peer, VkFFT (Debian's header-only libvkfft-dev,
// CUDA backend through NVRTC and the driver API), in its convolution mode, timed against our fused
// range-compression kernel in the same run on the same data. A separate program because VkFFT needs
// libcuda at load time, which machines without a GPU (CI) do not have.
//   sarfuse_vkfft_bench [NA NR [--circular]]
#define VKFFT_BACKEND 1
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <vkFFT.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/fft.hpp"
#include "core/filters.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/kernels.hpp"
#include "sarfuse/params.hpp"

using namespace sarfuse;

namespace {

void vk_check(VkFFTResult r, const char* what) {
  if (r != VKFFT_SUCCESS) throw Error(std::string("VkFFT error ") + std::to_string(static_cast<int>(r)) + " in " + what);
}

template <class F>
double median_ms(int repeats, cudaStream_t s, F&& f) {
  cudaEvent_t a, b;
  SARFUSE_CUDA(cudaEventCreate(&a));
  SARFUSE_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    SARFUSE_CUDA(cudaEventRecord(a, s));
    f();
    SARFUSE_CUDA(cudaEventRecord(b, s));
    SARFUSE_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    SARFUSE_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  const std::size_t na = argc > 2 ? std::stoul(argv[1]) : 4096, nr = argc > 2 ? std::stoul(argv[2]) : 4096;
  const bool circular = argc > 3 && std::string(argv[3]) == "--circular";
  const int repeats = 50;
  const RadarParams radar = default_scene().radar;
  const int h = radar.replica_half_length();
  std::size_t n = 1;
  while (n < (circular ? nr : nr + 2 * h)) n *= 2;
  SARFUSE_CUDA(cudaSetDevice(0));
  SARFUSE_CUDA(cudaFree(nullptr));  // the primary context, which VkFFT's driver calls then use
  CUdevice dev;
  if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS) throw Error("cuDeviceGet failed");
  cudaStream_t stream;
  SARFUSE_CUDA(cudaStreamCreate(&stream));

  // Random non-zero raw lines, at pitch n for VkFFT (its zero padding skips columns >= nr).
  std::mt19937 g(3);
  std::normal_distribution<float> d;
  std::vector<float2> raw(na * nr), padded(na * n, make_float2(0.f, 0.f));
  for (std::size_t i = 0; i < na; ++i)
    for (std::size_t j = 0; j < nr; ++j) raw[i * nr + j] = padded[i * n + j] = make_float2(d(g) + 1e-3f, d(g));
  cuda::DeviceBuffer<float2> d_raw(raw.size()), d_data(padded.size()), d_kernel(padded.size()), d_out(raw.size());
  SARFUSE_CUDA(cudaMemcpy(d_raw.get(), raw.data(), raw.size() * 8, cudaMemcpyHostToDevice));

  // The convolution kernel: the replica, repeated per line (VkFFT 1.2.26 indexes it per line),
  // transformed by a kernel-creation application of the same shape.
  std::vector<float2> kern(na * n, make_float2(0.f, 0.f));
  for (std::size_t i = 0; i < na; ++i)
    for (int k = -h; k <= h; ++k) {
      const auto r = core::replica_sample(radar, k);
      kern[i * n + (k >= 0 ? k : n + k)] = make_float2(float(r.real()), float(r.imag()));
    }
  SARFUSE_CUDA(cudaMemcpy(d_kernel.get(), kern.data(), kern.size() * 8, cudaMemcpyHostToDevice));
  uint64_t buffer_bytes = padded.size() * 8, kernel_bytes = kern.size() * 8;
  void* kernel_ptr = d_kernel.get();
  void* data_ptr = d_data.get();

  // Both applications share the shape: na lines of n points on this device and stream.
  auto base_config = [&] {
    VkFFTConfiguration c = {};
    c.FFTdim = 1;
    c.size[0] = n;
    c.numberBatches = na;
    c.device = &dev;
    c.stream = &stream;
    c.num_streams = 1;
    c.coordinateFeatures = 1;
    return c;
  };
  VkFFTConfiguration kc = base_config();
  kc.kernelConvolution = 1;
  kc.buffer = &kernel_ptr;
  kc.bufferSize = &kernel_bytes;
  VkFFTApplication kapp = {};
  vk_check(initializeVkFFT(&kapp, kc), "kernel plan");
  VkFFTLaunchParams kl = {};
  kl.buffer = &kernel_ptr;
  vk_check(VkFFTAppend(&kapp, -1, &kl), "kernel transform");
  SARFUSE_CUDA(cudaStreamSynchronize(stream));

  VkFFTConfiguration cc = base_config();
  cc.performConvolution = 1;
  cc.conjugateConvolution = 2;  // data spectrum x conj(replica spectrum): the matched filter
  cc.normalize = 1;
  cc.kernel = &kernel_ptr;
  cc.kernelSize = &kernel_bytes;
  cc.buffer = &data_ptr;
  cc.bufferSize = &buffer_bytes;
  if (!circular) {
    cc.performZeropadding[0] = 1;
    cc.fft_zeropad_left[0] = nr;
    cc.fft_zeropad_right[0] = n;
  }
  VkFFTApplication capp = {};
  vk_check(initializeVkFFT(&capp, cc), "convolution plan");
  VkFFTLaunchParams cl = {};
  cl.buffer = &data_ptr;
  auto vk_run = [&] {
    vk_check(VkFFTAppend(&capp, -1, &cl), "convolution");
  };

  // Our fused kernel, same filter definition (conj spectrum of the replica, 1/n folded in).
  const auto hf = core::range_matched_filter(radar, n, Window{});
  std::vector<float2> hf2(n);
  for (std::size_t m = 0; m < n; ++m) hf2[m] = make_float2(float(hf[m].real()), float(hf[m].imag()));
  const auto tw = cuda::fft_twiddle_table(static_cast<int>(n));
  cuda::DeviceBuffer<float2> d_h(n), d_tw(tw.size());
  SARFUSE_CUDA(cudaMemcpy(d_h.get(), hf2.data(), n * 8, cudaMemcpyHostToDevice));
  SARFUSE_CUDA(cudaMemcpy(d_tw.get(), tw.data(), tw.size() * 8, cudaMemcpyHostToDevice));
  auto fused_run = [&] {
    cuda::launch_range_compress_fused(static_cast<int>(n), SampleType::complex64, d_raw.get(), int(na), int(nr),
                                      d_h.get(), d_tw.get(), d_out.get(), int(nr), int(nr), stream);
  };

  // Correctness of both on the first lines, against float64.
  SARFUSE_CUDA(cudaMemcpy(d_data.get(), padded.data(), padded.size() * 8, cudaMemcpyHostToDevice));
  vk_run();
  fused_run();
  SARFUSE_CUDA(cudaStreamSynchronize(stream));
  std::vector<float2> vk_out(padded.size()), our_out(raw.size());
  SARFUSE_CUDA(cudaMemcpy(vk_out.data(), d_data.get(), vk_out.size() * 8, cudaMemcpyDeviceToHost));
  SARFUSE_CUDA(cudaMemcpy(our_out.data(), d_out.get(), our_out.size() * 8, cudaMemcpyDeviceToHost));
  const int check_lines = 4;
  std::vector<std::complex<double>> ref(check_lines * n, 0.0);
  for (int i = 0; i < check_lines; ++i)
    for (std::size_t j = 0; j < nr; ++j) ref[i * n + j] = {raw[i * nr + j].x, raw[i * nr + j].y};
  core::FftPlan<double> fwd({int(n), check_lines, 1, int(n)}, core::FftDirection::forward, ref.data(), ref.data(),
                            FftPlanning::estimate);
  core::FftPlan<double> inv({int(n), check_lines, 1, int(n)}, core::FftDirection::inverse, ref.data(), ref.data(),
                            FftPlanning::estimate);
  fwd.execute(ref.data(), ref.data());
  for (int i = 0; i < check_lines; ++i)
    for (std::size_t m = 0; m < n; ++m) ref[i * n + m] *= hf[m];
  inv.execute(ref.data(), ref.data());
  double e_vk = 0, e_our = 0, norm = 0;
  for (int i = 0; i < check_lines; ++i)
    for (std::size_t j = 0; j < nr; ++j) {
      const std::complex<double> r = ref[i * n + j];
      norm += std::norm(r);
      e_vk += std::norm(std::complex<double>(vk_out[i * n + j].x, vk_out[i * n + j].y) - r);
      e_our += std::norm(std::complex<double>(our_out[i * nr + j].x, our_out[i * nr + j].y) - r);
    }

  const double t_vk = median_ms(repeats, stream, vk_run);
  const double t_fused = median_ms(repeats, stream, fused_run);
  std::printf("vkfft-conv vs fused range compression, %zu x %zu, %s, FFT length %zu, median of %d (CUDA events)\n"
              "  relative L2 vs float64 (first %d lines): vkfft %.2e, fused %.2e\n"
              "  vkfft-conv (VkFFT convolution, in place, pitch %zu)  %8.3f ms\n"
              "  fused (one kernel, raw in, Nr columns out)         %8.3f ms   fused is %.2fx faster\n",
              na, nr, circular ? "circular" : "linear (zero-padded)", n, repeats, check_lines, std::sqrt(e_vk / norm),
              std::sqrt(e_our / norm), n, t_vk, t_fused, t_vk / t_fused);
  deleteVkFFT(&capp);
  deleteVkFFT(&kapp);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "sarfuse_vkfft_bench: %s\n", e.what());
  return 2;
}
