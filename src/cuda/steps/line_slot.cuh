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

// The element at shared address `addr` (32-bit, as __cvta_generic_to_shared gives) of the cluster's block
// `rank`, through distributed shared memory: one 32-bit register an address, where map_shared_rank's
// 64-bit generic pointers spilled a 16-way exchange.
__device__ __forceinline__ C32 load_cluster_shared(unsigned addr, int rank) {
  unsigned remote;
  float2 r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(r.x), "=f"(r.y) : "r"(remote) : "memory");
  return {r.x, r.y};
}

// A shared-memory load and a global store the compiler keeps in program order with each other
// (volatile), so a loop of load-use-store holds one loaded value at a time.
__device__ __forceinline__ C32 load_shared_in_order(const C32* p) {
  float2 r;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];"
               : "=f"(r.x), "=f"(r.y)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
  return {r.x, r.y};
}
__device__ __forceinline__ void store_in_order(float2* p, C32 v) {
  asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(v.re), "f"(v.im) : "memory");
}

}  // namespace sarfuse::cuda::steps
