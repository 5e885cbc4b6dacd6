// bench --backend cuda and bench fft in a build without the CUDA backend.
#include "bench/bench.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse {

std::string bench_cuda(const CudaBenchOptions&) {
  throw Error("bench --backend cuda: this build has no CUDA backend (nvcc was not found at build time)");
}

}  // namespace sarfuse

namespace sarfuse::gpu {

std::string bench_fft(const FftBenchOptions&) {
  throw Error("bench fft: this build has no CUDA backend (nvcc was not found at build time)");
}

}  // namespace sarfuse::gpu
