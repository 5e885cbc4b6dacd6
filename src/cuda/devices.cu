// The CUDA devices this build sees, and the context of device 0.
#include <cuda_runtime.h>

#include "cuda/backend.hpp"
#include "cuda/check.hpp"
#include "cuda/cufft_library.hpp"
#include "sarfuse/error.hpp"

#include <string>

namespace sarfuse::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error here
    return 0;
  }
  return n;
}

bool initialize_device() {
  // cuFFT (opened on first use, 280 MB) before the context, as when it was linked: loaded on another
  // thread beside the context's creation it held the process up instead (docs/performance.md). A
  // library that cannot be opened is the first plan's error, where it is needed.
  try {
    (void)cufft();
  } catch (const Error&) {
  }
  return device_count() > 0 && cudaFree(nullptr) == cudaSuccess;  // creates the primary context
}

bool release_device() {
  if (cudaDeviceReset() == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

void* allocate_device(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("device memory: cannot allocate " + std::to_string(bytes) + " bytes: " + cudaGetErrorString(e));
  }
  return p;
}

void free_device(void* p) {
  if (p && cudaFree(p) != cudaSuccess) cudaGetLastError();  // at release: nothing left to do about it
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (int i = 0; i < device_count(); ++i) {
    cudaDeviceProp p{};
    SARFUSE_CUDA(cudaGetDeviceProperties(&p, i));
    out.push_back({i, p.name, p.totalGlobalMem, p.major, p.minor, p.multiProcessorCount});
  }
  return out;
}

}  // namespace sarfuse::cuda
