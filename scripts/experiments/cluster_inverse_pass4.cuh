// Experiment (issue 20, stop 54): the RDA's inverse azimuth FFT at lines = 16 m with the spectrum in
// natural order, in one pass: the two-step inverse (src/cuda/fft/two_step_column_fft.cu) reads the
// spectrum once and writes an m-point result that its register pass reads back; here the 16 blocks of
// a cluster each hold one group k1 (rows k1 + 16 k2) of a tile of adjacent columns in shared memory, run
// its m-point inverse there, and the 16-point step goes across the cluster through distributed shared
// memory, so the spectrum is read once and the SLC written once. Correct (bit-identical to the product)
// but slower at 30000 x 6250 (docs/performance.md, stop 54), so it stays here; timed by
// inverse_natural_pass4.cu, which includes it. docs/bench/azimuth/stop54_cluster_inverse.patch wires it
// into the plan.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <string>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/column_shape.cuh"
#include "cuda/kernels.hpp"
#include "cuda/steps/line_slot.cuh"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

namespace {

using fft::C32;
constexpr int kStep = kAzimuthFirstStepRadix;  // the step's radix, the cluster's blocks
template <int N, int Threads>
using InverseShape = ColumnShape<N, Threads, fft::kElems<N>>;

// Block (tile, k1), k1 its rank in a cluster of R = kStep = 16 along x:
//   rows k1 + R k2 of `in` (k2 < N), the tile's columns -> N-point inverse FFT over k2 (conj, forward,
//   conj; the conj left for the step) -> shared memory, natural order n2;
//   the cluster's step: this block's share of n2 for every column of the tile, its R values k1 from the
//   R blocks -> x conj(W^(n2 k1)) (W = exp(-2 pi i / lines)) -> R-point inverse DFT -> row n1 N + n2 of
//   `out`.
template <int N, int Threads>
__global__ void __launch_bounds__(InverseShape<N, Threads>::cols * InverseShape<N, Threads>::T, Threads <= 512 ? 2 : 1)
    cluster_inverse_kernel(const float2* __restrict__ in, int in_pitch, float2* __restrict__ out, int out_pitch,
                           int cols, const float2* __restrict__ tw, const float2* __restrict__ part_tw) {
  namespace cg = cooperative_groups;
  using S = InverseShape<N, Threads>;
  constexpr int kShare = (N + kStep - 1) / kStep;  // n2 per block in the step
  extern __shared__ C32 smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int k1 = static_cast<int>(cluster.block_rank()), col0 = static_cast<int>(blockIdx.x) / kStep * S::cols;
  const int g = static_cast<int>(threadIdx.x) % S::cols, tid = static_cast<int>(threadIdx.x) / S::cols;
  const int col = col0 + g;
  C32* s = smem + g * S::slots;
  C32 v[S::E];
#pragma unroll
  for (int q = 0; q < S::E; ++q) {
    const std::size_t row = static_cast<std::size_t>(k1) + static_cast<std::size_t>(kStep) * (tid + q * S::T);
    v[q] = col < cols ? fft::conj(fft::to_c32(in[row * in_pitch + col])) : C32{0.f, 0.f};
  }
  fft::block_fft_forward<N, S::E>(v, s, part_tw, tid);
  __syncthreads();  // the FFT's last reads of shared memory are done
#pragma unroll
  for (int q = 0; q < S::E; ++q) s[tid + q * S::T] = v[q];  // conj of the inverse at n2 = tid + q T
  cluster.sync();  // every group of the tile is in its block's shared memory
  const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  for (int item = static_cast<int>(threadIdx.x);; item += S::cols * S::T) {
    const int c = item % S::cols, n2 = k1 * kShare + item / S::cols;
    if (item / S::cols >= kShare || n2 >= N) break;
    C32 x[kStep];
#pragma unroll
    for (int k = 0; k < kStep; ++k) {
      const C32 a = steps::load_cluster_shared(own + static_cast<unsigned>((c * S::slots + n2) * sizeof(C32)), k);
      x[k] = k == 0 ? a : a * fft::to_c32(__ldg(tw + n2 * k));  // conj(y conj(w)) = conj(y) w
    }
    fft::dft<kStep>(x);
    if (col0 + c < cols) {
#pragma unroll
      for (int n1 = 0; n1 < kStep; ++n1)
        out[(static_cast<std::size_t>(n1) * N + n2) * out_pitch + col0 + c] = fft::to_float2(fft::conj(x[n1]));
    }
  }
  cluster.sync();  // no block leaves while another still reads its shared memory
}

template <int N, int Threads>
cudaLaunchConfig_t inverse_config(int cols, cudaStream_t stream, cudaLaunchAttribute& cluster) {
  using S = InverseShape<N, Threads>;
  const void* kernel = reinterpret_cast<const void*>(&cluster_inverse_kernel<N, Threads>);
  SARFUSE_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
  SARFUSE_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>((cols + S::cols - 1) / S::cols * kStep));
  config.blockDim = dim3(static_cast<unsigned>(S::cols * S::T));
  config.dynamicSmemBytes = static_cast<std::size_t>(S::smem_bytes);
  config.stream = stream;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kStep;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return config;
}

// Calls f.template operator()<m>() for the part lengths the kernel is built for: the odd column lengths and
// 256 (4096 lines); false for any other.
template <class F>
bool dispatch_part(int m, F&& f) {
  if (m == 256) {
    f.template operator()<256>();
    return true;
  }
  return fft::dispatch_listed<fft::kOddColumnSizes>(m, f);
}

// Calls f.template operator()<Threads>() for threads a block 256, 512 or 1024.
template <class F>
void dispatch_threads(int threads, F&& f) {
  if (threads == 1024) f.template operator()<1024>();
  else if (threads == 512) f.template operator()<512>();
  else if (threads == 256) f.template operator()<256>();
  else throw Error("cluster inverse from natural order: 256, 512 or 1024 threads a block, not " + std::to_string(threads));
}

}  // namespace

int cluster_inverse_active_clusters(int lines, int threads);

bool cluster_inverse_from_natural_fits(int lines, int threads = 1024) {
  return cluster_inverse_active_clusters(lines, threads) > 0;
}

int cluster_inverse_active_clusters(int lines, int threads) {
  if (lines % kStep != 0) return 0;
  int clusters = 0;
  dispatch_part(lines / kStep, [&]<int N>() {
    dispatch_threads(threads, [&]<int Threads>() {
      cudaLaunchAttribute cluster{};
      const cudaLaunchConfig_t config =
          inverse_config<N, Threads>(InverseShape<N, Threads>::cols * kStep, nullptr, cluster);
      SARFUSE_CUDA(cudaOccupancyMaxActiveClusters(&clusters, &cluster_inverse_kernel<N, Threads>, &config));
    });
  });
  return clusters;
}

void launch_cluster_inverse_from_natural(int lines, const float2* in, int in_pitch, float2* out, int out_pitch,
                                         int cols, const float2* twiddles, const float2* part_twiddles,
                                         cudaStream_t stream, int threads = 1024) {
  if (lines % kStep != 0 || !dispatch_part(lines / kStep, []<int>() {}))
    throw Error("cluster inverse from natural order: lines must be 16 x 256 or 16 x an odd column length, not " +
                std::to_string(lines));
  if (in == out) throw Error("cluster inverse from natural order: out of place only");
  dispatch_part(lines / kStep, [&]<int N>() {
    dispatch_threads(threads, [&]<int Threads>() {
      cudaLaunchAttribute cluster{};
      const cudaLaunchConfig_t config = inverse_config<N, Threads>(cols, stream, cluster);
      SARFUSE_CUDA(cudaLaunchKernelEx(&config, &cluster_inverse_kernel<N, Threads>, in, in_pitch, out, out_pitch, cols,
                                      twiddles, part_twiddles));
      SARFUSE_LAUNCHED("cluster_inverse");
    });
  });
}

}  // namespace sarfuse::cuda
