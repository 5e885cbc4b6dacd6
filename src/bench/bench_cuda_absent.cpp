// bench --backend cuda in a build without the CUDA backend.
#include "bench/bench.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse {

std::string bench_cuda(const CudaBenchOptions&) {
  throw Error("bench --backend cuda: this build has no CUDA backend (nvcc was not found at build time)");
}

}  // namespace sarfuse
