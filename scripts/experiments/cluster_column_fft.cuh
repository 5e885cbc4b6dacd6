// The two-step azimuth FFT (lines = R m, see cuda/kernels.hpp) in one pass over the scene: a cluster of
// K thread blocks holds a tile of W adjacent columns whole (lines x W x 8 bytes, 1/K of it a block) and
// exchanges between the two steps through distributed shared memory (Hopper's thread block clusters),
// where the two-pass version writes the scene out and reads it back.
//   forward: block b: the R-point DFTs of its m/K column offsets n2 (rows n2 + m n1, R points a thread,
//            x exp(-2 pi i n2 k1 / lines)), each result k1 sent to the block that owns k1; cluster
//            barrier; block b': the m-point FFTs of its R/K bins k1 (block_fft, R points a thread),
//            X[k1 + R k2] stored at row k1 m + k2 (two_step_spectrum_bin's order).
//   inverse: block b': the m-point inverse FFTs of its bins k1 from that order, x exp(+2 pi i n2 k1 /
//            lines), each n2 sent to its owner; block b: the R-point inverse DFTs, rows n2 + m n1.
// Every block reads its rows before the cluster's middle barrier and writes after it, so in place is
// safe. Unnormalised, like cuFFT.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"

namespace sarfuse::cuda::fft {

// Sizes of one cluster's work: R-point DFTs in registers, m-point FFTs of R points a thread, W adjacent
// columns, K blocks. Both steps run m W / K threads a block (R points each).
template <int R, int M, int W, int K>
struct ClusterColumnShape {
  static_assert(is_pow2(R) && is_pow2(M) && is_pow2(W) && is_pow2(K) && R % K == 0 && M % K == 0, "sizes");
  static constexpr int lines = R * M;
  static constexpr int threads = M * W / K;
  static constexpr int bins = R / K;          // k1 a block owns in the m-point step
  static constexpr int offsets = M / K;       // n2 a block owns in the R-point step
  static constexpr int sequences = bins * W;  // m-point FFTs a block runs
  static constexpr int seq_threads = M / R;   // threads an m-point FFT takes (R points each)
  static_assert(sequences * seq_threads == threads, "both steps on the same threads");
  static_assert(offsets % seq_threads == 0, "an inverse thread's n2 = tid + q T: owner known per q");
  // The exchange buffers, padded W slots per 16-row... so that a half-warp's 16 / W bins or offsets fall
  // on different banks: [bin][n2][col] (forward) and [k1][n2 local][col] (inverse).
  static constexpr int forward_stride = M * W + W;
  static constexpr int inverse_stride = offsets * W + W;
  static constexpr int exchange_slots = bins * forward_stride > R * inverse_stride ? bins * forward_stride : R * inverse_stride;
  // The m-point FFTs' own scratch (as column_fft's: sequence slices offset for the banks).
  static constexpr int fft_slots = smem_size(M) + (sequences >= 16 ? 1 : 16 / sequences);
  static constexpr int smem_bytes =
      (exchange_slots > sequences * fft_slots ? exchange_slots : sequences * fft_slots) * static_cast<int>(sizeof(C32));
};

__device__ __forceinline__ void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }

// in/out: row-major, pitches in elements; tw: exp(-2 pi i k / lines); part_tw: exp(-2 pi i k / m).
template <int R, int M, int W, int K, bool Inverse, int MinBlocks = 2>
__global__ void __launch_bounds__(ClusterColumnShape<R, M, W, K>::threads, MinBlocks)
    cluster_column_fft_kernel(const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                              const float2* __restrict__ tw, const float2* __restrict__ part_tw) {
  using S = ClusterColumnShape<R, M, W, K>;
  namespace cg = cooperative_groups;
  extern __shared__ __align__(16) C32 cluster_smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int col0 = static_cast<int>(blockIdx.x / K) * W;
  const int t = static_cast<int>(threadIdx.x);
  // R-point step: thread (n2 local, column), column fastest (a warp reads 32 / W rows of W columns).
  const int a_col = t % W, a_n2l = t / W, a_n2 = rank * S::offsets + a_n2l;
  // m-point step: thread (tid, sequence), sequence = (bin local, column) fastest.
  const int g = t % S::sequences, tid = t / S::sequences;
  const int b_col = g % W, b_bin = rank * S::bins + g / W;
  C32* fft_s = cluster_smem + g * S::fft_slots;
  const bool a_active = col0 + a_col < cols, b_active = col0 + b_col < cols;
  if constexpr (!Inverse) {
    cluster_arrive_relaxed();  // every block of the cluster has started before anyone writes to it
    C32 x[R];
#pragma unroll
    for (int r = 0; r < R; ++r)
      x[r] = a_active ? to_c32(in[(static_cast<std::size_t>(r) * M + a_n2) * in_pitch + col0 + a_col]) : C32{0.f, 0.f};
    dft<R>(x);
#pragma unroll
    for (int r = 1; r < R; ++r) x[r] = x[r] * to_c32(__ldg(tw + a_n2 * r));
    cluster_wait();
#pragma unroll
    for (int r = 0; r < R; ++r) {
      C32* dst = cluster.map_shared_rank(cluster_smem, r / S::bins);
      dst[(r % S::bins) * S::forward_stride + a_n2 * W + a_col] = x[r];
    }
    cluster_arrive();
    cluster_wait();  // every bin's M offsets have arrived
    C32 v[R];
#pragma unroll
    for (int q = 0; q < R; ++q) v[q] = cluster_smem[(g / W) * S::forward_stride + (tid + q * S::seq_threads) * W + b_col];
    __syncthreads();  // the exchange buffer becomes the FFTs' scratch
    block_fft_forward<M, R>(v, fft_s, part_tw, tid);
    if (!b_active) return;
#pragma unroll
    for (int q = 0; q < R; ++q)
      out[(static_cast<std::size_t>(b_bin) * M + tid + q * S::seq_threads) * out_pitch + col0 + b_col] = to_float2(v[q]);
  } else {
    C32 v[R];
#pragma unroll
    for (int q = 0; q < R; ++q)
      v[q] = b_active ? conj(to_c32(in[(static_cast<std::size_t>(b_bin) * M + tid + q * S::seq_threads) * in_pitch +
                                       col0 + b_col]))
                      : C32{0.f, 0.f};
    block_fft_forward<M, R>(v, fft_s, part_tw, tid);
    cluster_arrive();  // this block's FFT scratch is free (and it has started)
    cluster_wait();
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const int n2 = tid + q * S::seq_threads;  // owner (q T) / offsets: known per q
      const C32 y = b_bin == 0 ? conj(v[q]) : conj(v[q] * to_c32(__ldg(tw + n2 * b_bin)));
      C32* dst = cluster.map_shared_rank(cluster_smem, (q * S::seq_threads) / S::offsets);
      dst[b_bin * S::inverse_stride + (n2 % S::offsets) * W + b_col] = y;
    }
    cluster_arrive();
    cluster_wait();  // every offset's R bins have arrived
    C32 x[R];
#pragma unroll
    for (int r = 0; r < R; ++r) x[r] = conj(cluster_smem[r * S::inverse_stride + a_n2l * W + a_col]);
    dft<R>(x);
    if (!a_active) return;
#pragma unroll
    for (int r = 0; r < R; ++r)
      out[(static_cast<std::size_t>(r) * M + a_n2) * out_pitch + col0 + a_col] = to_float2(conj(x[r]));
  }
}

template <int R, int M, int W, int K, bool Inverse, int MinBlocks = 2>
void launch_cluster_column_fft_as(const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                                  const float2* tw, const float2* part_tw, cudaStream_t stream) {
  using S = ClusterColumnShape<R, M, W, K>;
  const void* k = reinterpret_cast<const void*>(&cluster_column_fft_kernel<R, M, W, K, Inverse, MinBlocks>);
  SARFUSE_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
  if constexpr (K > 8) SARFUSE_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>((cols + W - 1) / W * K));
  config.blockDim = dim3(static_cast<unsigned>(S::threads));
  config.dynamicSmemBytes = static_cast<std::size_t>(S::smem_bytes);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = K;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  SARFUSE_CUDA(cudaLaunchKernelEx(&config, &cluster_column_fft_kernel<R, M, W, K, Inverse, MinBlocks>, in, in_pitch, out,
                                  out_pitch, cols, tw, part_tw));
}

}  // namespace sarfuse::cuda::fft
