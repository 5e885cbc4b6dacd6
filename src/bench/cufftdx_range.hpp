// The cuFFTDx peer of the fused range compression (built where NVIDIA's MathDx headers are found):
// one kernel per line, load -> cuFFTDx block FFT -> x H -> cuFFTDx block IFFT -> store, in the layout
// cuFFTDx keeps in registers, for power-of-two lengths 2048..16384 (circular, FFT length = line length).
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace sarfuse::bench {

struct CufftdxRange {
  std::string config;  // "256 threads x 16 elements, 1 FFT per block, 65536 B shared"
  std::function<void(const float2* in, float2* out, const float2* filter, int lines, cudaStream_t s)> run;
};

// Every configuration built for length n (empty when none: another length, or no MathDx).
std::vector<CufftdxRange> cufftdx_range_configs(int n);
bool have_cufftdx();

}  // namespace sarfuse::bench
