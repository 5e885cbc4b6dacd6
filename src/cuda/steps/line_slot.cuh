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

// Buffers: the line's exchange buffers (fft::Exchange), each smem_size(N) slots; E: points a thread;
// Lines: lines a block.
template <int N, int Buffers = 1, int E = fft::kElems<N>, int Lines = BlockShape<N, E>::lines>
struct LineSlot {
  using Shape = BlockShape<N, E, Lines>;
  static constexpr int smem_bytes = Buffers * Shape::smem_bytes;  // the block's
  int tid, line;
  bool active;  // false for the padding groups of the last block: they compute, never store
  C32* s;
  __device__ LineSlot(C32* smem, int lines)
      : tid(threadIdx.x),
        line(static_cast<int>(blockIdx.x) * Lines + (Lines == 1 ? 0 : static_cast<int>(threadIdx.y))),
        active(line < lines),
        // One line a block: the slice is the block's shared memory itself, so every exchange address
        // is a constant offset from it (no per-thread base to add).
        s(Lines == 1 ? smem : smem + threadIdx.y * Buffers * fft::smem_size(N)) {}
};

template <int N, int Buffers = 1, int E = fft::kElems<N>, int Lines = BlockShape<N, E>::lines>
void set_smem(const void* kernel) {
  SARFUSE_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    LineSlot<N, Buffers, E, Lines>::smem_bytes));
}

template <int N, int E = fft::kElems<N>, int Lines = BlockShape<N, E>::lines>
dim3 grid_for(int lines) {
  return dim3(static_cast<unsigned>((lines + Lines - 1) / Lines));
}

template <int N, int E = fft::kElems<N>, int Lines = BlockShape<N, E>::lines>
dim3 block_for() {
  return dim3(BlockShape<N, E, Lines>::threads, Lines);
}

}  // namespace sarfuse::cuda::steps
