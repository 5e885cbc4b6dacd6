// Every CUDA runtime and cuFFT call is checked; a failure becomes a sarfuse::Error naming the call.
#pragma once
#include <cuda_runtime.h>
#include <cufft.h>

#include <string>

#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

[[noreturn]] inline void cuda_fail(cudaError_t e, const char* what, const char* file, int line) {
  // Clear the runtime's record of a non-sticky error (e.g. a failed cudaMalloc), or the next launch
  // check would report it again; a sticky error (a fault in a kernel) stays and every later call fails.
  cudaGetLastError();
  throw Error(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
              "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
[[noreturn]] inline void cufft_fail(cufftResult r, const char* what, const char* file, int line) {
  throw Error(std::string("cuFFT error ") + std::to_string(static_cast<int>(r)) + " in " + what + " (" + file + ":" +
              std::to_string(line) + ")");
}

}  // namespace sarfuse::cuda

#define SARFUSE_CUDA(call)                                                              \
  do {                                                                                  \
    const cudaError_t sarfuse_e_ = (call);                                              \
    if (sarfuse_e_ != cudaSuccess) ::sarfuse::cuda::cuda_fail(sarfuse_e_, #call, __FILE__, __LINE__); \
  } while (0)

#define SARFUSE_CUFFT(call)                                                             \
  do {                                                                                  \
    const cufftResult sarfuse_r_ = (call);                                              \
    if (sarfuse_r_ != CUFFT_SUCCESS) ::sarfuse::cuda::cufft_fail(sarfuse_r_, #call, __FILE__, __LINE__); \
  } while (0)

// After every launch: configuration errors now, execution errors at the next synchronisation.
#define SARFUSE_LAUNCHED(name)                                                          \
  do {                                                                                  \
    const cudaError_t sarfuse_e_ = cudaGetLastError();                                  \
    if (sarfuse_e_ != cudaSuccess) ::sarfuse::cuda::cuda_fail(sarfuse_e_, "launch of " name, __FILE__, __LINE__); \
  } while (0)
