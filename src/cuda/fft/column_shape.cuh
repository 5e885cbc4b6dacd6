// The column-tile kernels' block shape (column_fft.cu; scripts/experiments/cluster_inverse_pass4.cuh): `Cols`
// adjacent columns a block, one group of N / E threads per column, each with its own slice of shared memory.
#pragma once
#include "cuda/fft/block_fft.cuh"

namespace sarfuse::cuda {

template <int N, int Threads, int Elems = 16>
struct ColumnShape {
  static constexpr int E = Elems;
  static constexpr int T = N / E;  // threads per column
  static constexpr int cols = T >= Threads ? 1 : Threads / T;
  // Columns' shared-memory slices start 16 / cols slots apart modulo 16, so the cols groups of a
  // half-warp fall on different banks (each group's own indices are conflict-free by smem_index).
  static constexpr int slots = fft::smem_size(N) + (cols >= 16 ? 1 : 16 / cols);
  static constexpr int smem_bytes = cols * slots * static_cast<int>(sizeof(fft::C32));
};

}  // namespace sarfuse::cuda
