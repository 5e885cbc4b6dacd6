// Experiment (issue 20): the azimuth FFTs (FFTs down every column of a row-major array, the RDA's passes
// 2 and 4) with each tile of W adjacent columns split over a thread-block cluster of C = N / 1024 CTAs,
// so that a tile reads W x 8 bytes of every row at once while each SM holds only 1024 rows of it (a
// 4096-point column is 32 KB: one SM holds at most four, stop 30). Four-step over the cluster, N = C x
// 1024, input row n = n2 + 1024 n1: CTA c loads rows n1 = c, the C-point DFTs across the cluster read the
// other CTAs' rows through distributed shared memory (CTA c keeps output k1 = c, times W_N^(n2 c)), then
// each CTA runs the 1024-point FFTs of its W columns (32 x 32, a warp a column, in registers, exchanges
// through padded shared memory) and stores rows C k2 + c. Against cuFFT strided in the same process;
// every output checked against a float64 FFT on the host. Run on the GPU machine:
//   nvcc -std=c++20 -O3 -arch=sm_90 scripts/experiments/column_cluster.cu -lcufft -o colc && ./colc 5120
// -DCOL_N=8192 for 8192-point columns (clusters of 8); the argument is the column count (the row pitch).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "column_case.hpp"

namespace cg = cooperative_groups;

#ifndef COL_N
#define COL_N 4096
#endif
constexpr int N = COL_N, M = 1024, C = N / M, R = 32;  // M = R x R
static_assert(N % M == 0 && C >= 2 && C <= 8, "clusters of 2..8 CTAs");

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }

__host__ __device__ constexpr int reverse5(int i) { return ((i & 1) << 4) | ((i & 2) << 2) | (i & 4) | ((i & 8) >> 2) | ((i & 16) >> 4); }

// In-register 32-point DFT (radix-2 DIT, natural order in and out); tw[k] = W_N^k, so W_32^j = tw[j N/32].
__device__ __forceinline__ void dft32(float2 (&v)[R], const float2* __restrict__ tw) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int j = reverse5(i);
    if (i < j) {
      const float2 t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
  }
#pragma unroll
  for (int stage = 0; stage < 5; ++stage) {
    const int half = 1 << stage;
#pragma unroll
    for (int f = 0; f < R / 2; ++f) {  // butterfly f of the stage: group f / half, offset f % half
      const int k = f % half, i = (f / half) * 2 * half + k;
      const float2 w = __ldg(&tw[k * (N / (2 * half))]);
      const float2 u = v[i], t = cmul(v[i + half], w);
      v[i] = cadd(u, t);
      v[i + half] = csub(u, t);
    }
  }
}

// Shared memory: x (the CTA's rows as loaded, a column's 1024 rows at a pitch of M + 1) and y (the
// C-point DFTs' outputs, same layout; then the 1024-point FFT's outputs), and the 32 x 33 transposes
// of pass a, which reuse x once the cluster has read it.
template <int W>
struct Smem {
  static constexpr int pitch = M + 2, zpitch = R * (R + 1);  // pitch even: float4 pairs of rows
  static constexpr int x_elems = W * (zpitch > pitch ? zpitch : pitch), y_elems = W * pitch;
  static constexpr int bytes = (x_elems + y_elems) * 8;
};

template <int W>
__global__ void __launch_bounds__(32 * W) column_cluster(const float2* __restrict__ in, float2* __restrict__ out,
                                                        int cols, const float2* __restrict__ tw) {
  extern __shared__ float2 smem[];
  using S = Smem<W>;
  float2* x = smem;
  float2* y = smem + S::x_elems;
  cg::cluster_group cluster = cg::this_cluster();
  const int c = static_cast<int>(cluster.block_rank());
  const int tile = blockIdx.x / C, col0 = tile * W, tid = threadIdx.x;
  constexpr int T = 32 * W, Q = W / 2, loads = M * Q / T;  // float4 (two columns) per load
  // 1. This CTA's rows n1 = c of the tile: every load issued before the first store to shared memory.
  float4 v[loads];
#pragma unroll
  for (int k = 0; k < loads; ++k) {
    const int i = tid + k * T, row = i / Q, q = i % Q;
    v[k] = __ldg(reinterpret_cast<const float4*>(in + static_cast<std::size_t>(c * M + row) * cols + col0 + 2 * q));
  }
#pragma unroll
  for (int k = 0; k < loads; ++k) {
    const int i = tid + k * T, row = i / Q, q = i % Q;
    x[2 * q * S::pitch + row] = make_float2(v[k].x, v[k].y);
    x[(2 * q + 1) * S::pitch + row] = make_float2(v[k].z, v[k].w);
  }
  cluster.sync();
  // 2. The C-point DFTs across the cluster, output k1 = c, times W_N^(n2 c): two rows n2 a thread (16-byte
  // loads from the other CTAs' shared memory), every load of a group issued before the first sum.
  const float4* xs[C];
#pragma unroll
  for (int r = 0; r < C; ++r) xs[r] = reinterpret_cast<const float4*>(cluster.map_shared_rank(x, r));
  float2 wc[C];
#pragma unroll
  for (int r = 0; r < C; ++r) wc[r] = __ldg(&tw[(r * c % C) * (N / C)]);
  constexpr int pairs = M * W / 2 / T, group = 4;
#pragma unroll
  for (int g = 0; g < pairs; g += group) {
    float4 p[group][C];
#pragma unroll
    for (int k = 0; k < group; ++k) {
      const int i = tid + (g + k) * T, w = i / (M / 2), n2 = 2 * (i % (M / 2));
#pragma unroll
      for (int r = 0; r < C; ++r) p[k][r] = xs[r][(w * S::pitch + n2) / 2];
    }
#pragma unroll
    for (int k = 0; k < group; ++k) {
      const int i = tid + (g + k) * T, w = i / (M / 2), n2 = 2 * (i % (M / 2));
      float2 s0 = make_float2(0.f, 0.f), s1 = s0;
#pragma unroll
      for (int r = 0; r < C; ++r) {
        s0 = cadd(s0, cmul(make_float2(p[k][r].x, p[k][r].y), wc[r]));
        s1 = cadd(s1, cmul(make_float2(p[k][r].z, p[k][r].w), wc[r]));
      }
      const float2 y0 = cmul(s0, __ldg(&tw[n2 * c])), y1 = cmul(s1, __ldg(&tw[(n2 + 1) * c]));
      *reinterpret_cast<float4*>(&y[w * S::pitch + n2]) = make_float4(y0.x, y0.y, y1.x, y1.y);
    }
  }
  cluster.sync();  // every CTA has read the others' x: x is free for the transposes
  // 3. The 1024-point FFT of column w (warp w) = 32 x 32: lane b takes n2 = b + 32 a.
  const int w = tid / 32, lane = tid % 32;
  float2 a[R];
  float2* z = x + w * S::zpitch;
#pragma unroll
  for (int k = 0; k < R; ++k) a[k] = y[w * S::pitch + lane + R * k];
  dft32(a, tw);
#pragma unroll
  for (int k = 0; k < R; ++k) z[lane * (R + 1) + k] = cmul(a[k], __ldg(&tw[lane * k * C]));  // W_M^(b k)
  __syncwarp();
#pragma unroll
  for (int b = 0; b < R; ++b) a[b] = z[b * (R + 1) + lane];
  dft32(a, tw);
  // k2 = lane + 32 kb, into y (column-major) for row-major stores.
#pragma unroll
  for (int kb = 0; kb < R; ++kb) y[w * S::pitch + lane + R * kb] = a[kb];
  __syncthreads();
  // 4. Rows C k2 + c of the tile.
#pragma unroll
  for (int k = 0; k < loads; ++k) {
    const int i = tid + k * T, k2 = i / Q, q = i % Q;
    const float2 p = y[2 * q * S::pitch + k2], r = y[(2 * q + 1) * S::pitch + k2];
    *reinterpret_cast<float4*>(out + static_cast<std::size_t>(C * k2 + c) * cols + col0 + 2 * q) = make_float4(p.x, p.y, r.x, r.y);
  }
}

int main(int argc, char** argv) {
  const int cols = argc > 1 ? std::atoi(argv[1]) : 5120;
  const ColumnCase cc(N, cols, {0, 1, 2, 3, 5, 7, 777, cols / 2 + 1, cols - 1});
  float2 *dx = cc.dx, *dy = cc.dy;
  const float2* dtw = cc.dtw;
  const std::size_t n = cc.size;
  auto check = [&](const char* name) { cc.check(name); };
  auto poison = [&] { cc.poison(); };
  std::printf("%d columns of %d, clusters of %d\n", cols, N, C);
  Bench bench(dy, dx, n * 8);
  Timer& tm = bench.tm;

  cc.cufft_strided(bench);

  auto variant = [&]<int W>() {
    auto kernel = &column_cluster<W>;
    const int threads = 32 * W, smem = Smem<W>::bytes;
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const ClusterLaunch launch(cols / W * C, threads, smem, C);
    int clusters = 0;
    CK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.cfg));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, kernel));
    char label[200];
    std::snprintf(label, sizeof label, "cluster of %d, %d columns a tile (%d B smem, %d clusters resident, %d regs, %zu B local)",
                  C, W, smem, clusters, fa.numRegs, fa.localSizeBytes);
    auto go = [&] {
      CK(cudaLaunchKernelEx(&launch.cfg, kernel, static_cast<const float2*>(dx), dy, cols, static_cast<const float2*>(dtw)));
    };
    poison();
    go();
    CK(cudaDeviceSynchronize());
    check(label);
    bench.report(label, tm.median_ms(go));
  };
  variant.template operator()<2>();
  variant.template operator()<4>();
  variant.template operator()<8>();
  return 0;
}
