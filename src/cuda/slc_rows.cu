// The SLC's kept rows on their way to the host as complex32: a span of rows (wrapping past the last row
// to row 0) converted to IEEE half pairs and packed in order, so half the bytes cross to the host and
// the product writer has nothing left to encode.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/kernels.hpp"

namespace sarfuse::cuda {

namespace {

// Two samples per thread: one 16-byte load, one 8-byte store. __float22half2_rn rounds to nearest even,
// as the writers' F16C conversion does, overflow to infinity included, so the bits are the same.
__global__ void rows_to_half_kernel(const float4* __restrict__ slc, int lines, int pairs_per_row, int first,
                                    int count, uint2* __restrict__ out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(count) * pairs_per_row) return;
  const int r = static_cast<int>(i / pairs_per_row), p = static_cast<int>(i % pairs_per_row);
  const int row = (first + r) % lines;
  const float4 v = __ldg(slc + static_cast<std::size_t>(row) * pairs_per_row + p);
  const __half2 a = __float22half2_rn(make_float2(v.x, v.y)), b = __float22half2_rn(make_float2(v.z, v.w));
  out[i] = make_uint2(*reinterpret_cast<const unsigned*>(&a), *reinterpret_cast<const unsigned*>(&b));
}

// An odd row length: one sample per thread.
__global__ void rows_to_half_odd_kernel(const float2* __restrict__ slc, int lines, int cols, int first, int count,
                                        __half2* __restrict__ out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(count) * cols) return;
  const int r = static_cast<int>(i / cols), c = static_cast<int>(i % cols);
  const int row = (first + r) % lines;
  out[i] = __float22half2_rn(__ldg(slc + static_cast<std::size_t>(row) * cols + c));
}

}  // namespace

void launch_rows_to_half(const float2* slc, int lines, int cols, int first, int count, __half2* out,
                         cudaStream_t stream) {
  constexpr int threads = 256;
  if (count <= 0) return;
  if (cols % 2 == 0) {
    const std::size_t n = static_cast<std::size_t>(count) * (cols / 2);
    rows_to_half_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads, 0, stream>>>(
        reinterpret_cast<const float4*>(slc), lines, cols / 2, first, count, reinterpret_cast<uint2*>(out));
  } else {
    const std::size_t n = static_cast<std::size_t>(count) * cols;
    rows_to_half_odd_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads, 0, stream>>>(
        slc, lines, cols, first, count, out);
  }
  SARFUSE_CUDA(cudaGetLastError());
}

}  // namespace sarfuse::cuda
