// The vkfft-conv baseline as a loadable module (libsarfuse_vkfft.so): VkFFT (Debian's header-only
// libvkfft-dev, CUDA backend through NVRTC and the driver API) in its convolution mode, doing range
// compression in place on lines x n complex64 (columns >= nr read as zero). A module rather than part
// of the library because VkFFT links libcuda, which machines without a GPU driver (CI) lack: the
// library dlopens this only when the vkfft-conv pipeline is asked for.
#define VKFFT_BACKEND 1
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <vkFFT.h>

#include <cstdio>
#include <cstring>
#include <new>

#include "cuda/vkfft/vkfft_plugin_abi.h"

namespace {

struct Conv {
  CUdevice device = 0;
  cudaStream_t stream = nullptr;
  CUdeviceptr kernel = 0;
  void* kernel_ptr = nullptr;
  void* data_ptr = nullptr;
  uint64_t kernel_bytes = 0, data_bytes = 0;
  VkFFTApplication kernel_app = {}, conv_app = {};
  bool kernel_app_made = false, conv_app_made = false;
  ~Conv() {
    if (conv_app_made) deleteVkFFT(&conv_app);
    if (kernel_app_made) deleteVkFFT(&kernel_app);
    if (kernel) cuMemFree(kernel);
  }
};

void say(char* error, int len, const char* what, int code) {
  if (error && len > 0) std::snprintf(error, static_cast<std::size_t>(len), "%s (code %d)", what, code);
}

}  // namespace

extern "C" void* sarfuse_vkfft_conv_create(int n, int lines, int nr, int zero_pad_columns, const float* kernel_time,
                                           void* stream, char* error, int error_len) {
  Conv* c = new (std::nothrow) Conv;
  if (!c) return nullptr;
  c->stream = static_cast<cudaStream_t>(stream);
  CUresult cr = cuCtxGetDevice(&c->device);  // the caller's current (primary) context
  if (cr != CUDA_SUCCESS) {
    say(error, error_len, "vkfft-conv: no current CUDA context (cuCtxGetDevice)", cr);
    delete c;
    return nullptr;
  }
  // The convolution kernel, repeated per line: VkFFT 1.2.26 indexes the kernel per line.
  const std::size_t line_bytes = static_cast<std::size_t>(n) * 8;
  c->kernel_bytes = line_bytes * static_cast<std::size_t>(lines);
  if ((cr = cuMemAlloc(&c->kernel, c->kernel_bytes)) != CUDA_SUCCESS) {
    say(error, error_len, "vkfft-conv: cuMemAlloc of the per-line kernel failed", cr);
    delete c;
    return nullptr;
  }
  for (int l = 0; l < lines; ++l)
    if ((cr = cuMemcpyHtoD(c->kernel + line_bytes * l, kernel_time, line_bytes)) != CUDA_SUCCESS) {
      say(error, error_len, "vkfft-conv: upload of the kernel failed", cr);
      delete c;
      return nullptr;
    }
  c->kernel_ptr = reinterpret_cast<void*>(c->kernel);
  c->data_bytes = c->kernel_bytes;

  auto base = [&] {
    VkFFTConfiguration k = {};
    k.FFTdim = 1;
    k.size[0] = static_cast<uint64_t>(n);
    k.numberBatches = static_cast<uint64_t>(lines);
    k.device = &c->device;
    k.stream = &c->stream;
    k.num_streams = 1;
    k.coordinateFeatures = 1;
    return k;
  };
  VkFFTConfiguration kc = base();
  kc.kernelConvolution = 1;
  kc.buffer = &c->kernel_ptr;
  kc.bufferSize = &c->kernel_bytes;
  VkFFTResult r = initializeVkFFT(&c->kernel_app, kc);
  if (r != VKFFT_SUCCESS) {
    say(error, error_len, "vkfft-conv: VkFFT kernel plan failed", r);
    delete c;
    return nullptr;
  }
  c->kernel_app_made = true;
  VkFFTLaunchParams kl = {};
  kl.buffer = &c->kernel_ptr;
  if ((r = VkFFTAppend(&c->kernel_app, -1, &kl)) != VKFFT_SUCCESS) {
    say(error, error_len, "vkfft-conv: VkFFT kernel transform failed", r);
    delete c;
    return nullptr;
  }

  VkFFTConfiguration cc = base();
  cc.performConvolution = 1;
  cc.conjugateConvolution = 2;  // data spectrum x conj(kernel spectrum)
  cc.normalize = 1;
  cc.kernel = &c->kernel_ptr;
  cc.kernelSize = &c->kernel_bytes;
  cc.buffer = &c->data_ptr;
  cc.bufferSize = &c->data_bytes;
  if (zero_pad_columns && nr < n) {  // VkFFT neither reads the zero columns nor writes past nr
    cc.performZeropadding[0] = 1;
    cc.fft_zeropad_left[0] = static_cast<uint64_t>(nr);
    cc.fft_zeropad_right[0] = static_cast<uint64_t>(n);
  }
  if ((r = initializeVkFFT(&c->conv_app, cc)) != VKFFT_SUCCESS) {
    say(error, error_len, "vkfft-conv: VkFFT convolution plan failed", r);
    delete c;
    return nullptr;
  }
  c->conv_app_made = true;
  if ((cr = cuStreamSynchronize(static_cast<CUstream>(stream))) != CUDA_SUCCESS) {
    say(error, error_len, "vkfft-conv: kernel transform did not complete", cr);
    delete c;
    return nullptr;
  }
  return c;
}

extern "C" int sarfuse_vkfft_conv_run(void* handle, void* data, char* error, int error_len) {
  Conv* c = static_cast<Conv*>(handle);
  c->data_ptr = data;
  VkFFTLaunchParams l = {};
  l.buffer = &c->data_ptr;
  const VkFFTResult r = VkFFTAppend(&c->conv_app, -1, &l);
  if (r != VKFFT_SUCCESS) {
    say(error, error_len, "vkfft-conv: VkFFT convolution launch failed", r);
    return 1;
  }
  return 0;
}

extern "C" void sarfuse_vkfft_conv_destroy(void* handle) { delete static_cast<Conv*>(handle); }
