#include "bench/cufftdx_range.hpp"

#include <cstdio>

#include "cuda/check.hpp"

#if SARFUSE_HAVE_CUFFTDX
#include "bench/cufftdx_range_kernel.cuh"
#endif

namespace sarfuse::bench {

#if SARFUSE_HAVE_CUFFTDX
using cufftdx_peer::make_config;

bool have_cufftdx() { return true; }

std::vector<CufftdxRange> cufftdx_range_configs(int n) {
  switch (n) {
    case 2048: return {make_config<2048, 8, 2>(), make_config<2048, 16, 1>(), make_config<2048, 16, 2>()};
    case 4096: return {make_config<4096, 16, 1>(), make_config<4096, 8, 1>(), make_config<4096, 32, 1>()};
    case 8192: return {make_config<8192, 32, 1>(), make_config<8192, 16, 1>()};
    case 16384: return {make_config<16384, 32, 1>(), make_config<16384, 16, 1>()};
    default: return {};
  }
}
#else
bool have_cufftdx() { return false; }
std::vector<CufftdxRange> cufftdx_range_configs(int) { return {}; }
#endif

}  // namespace sarfuse::bench
