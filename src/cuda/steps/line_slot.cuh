// Where a row kernel's thread group works: one group of N/E threads per line, BlockShape<N>::lines lines
// per block, each line with its own slice of (padded) shared memory; and the launch shape that goes
// with it.
#pragma once
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"

namespace sarfuse::cuda::steps {

using fft::BlockShape;
using fft::C32;

template <int N>
struct LineSlot {
  int tid, line;
  bool active;  // false for the padding groups of the last block: they compute, never store
  C32* s;
  __device__ LineSlot(C32* smem, int lines)
      : tid(threadIdx.x),
        line(static_cast<int>(blockIdx.x) * BlockShape<N>::lines + static_cast<int>(threadIdx.y)),
        active(line < lines),
        s(smem + threadIdx.y * fft::smem_size(N)) {}
};

template <int N>
void set_smem(const void* kernel) {
  SARFUSE_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, BlockShape<N>::smem_bytes));
}

template <int N>
dim3 grid_for(int lines) {
  return dim3(static_cast<unsigned>((lines + BlockShape<N>::lines - 1) / BlockShape<N>::lines));
}

template <int N>
dim3 block_for() {
  return dim3(BlockShape<N>::threads, BlockShape<N>::lines);
}

}  // namespace sarfuse::cuda::steps
