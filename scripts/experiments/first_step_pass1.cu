// Experiment (issue 20): pass 1 with the two-step azimuth FFT's 16-point step folded in
// (range_spectrum_first_step_kernel: clusters of 16 lines, distributed shared memory) against pass 1
// followed by the two-step FFT's own 16-point pass, each followed by the m-point column pass (into natural
// order after the cluster pass: launch_two_step_column_pass), at the
// RDA's shape (30000 x 6250 raw, range FFT 8192), in one process: each variant's passes alone and
// together, the device-to-device copy of the same bytes, the two outputs compared.
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr \
//     scripts/experiments/first_step_pass1.cu -lcufft -o fsp && ./fsp 30000 6250
// Arguments: lines (16 x a supported column length) and raw samples a line; range FFT 8192.
#include "cuda/fft/column_fft.cu"
#include "cuda/fft/two_step_column_fft.cu"
#include "cuda/range_passes_sized.cuh"
#include "experiment_util.hpp"

namespace sarfuse::cuda {
bool own_fft_supports(int n) { return n >= 256 && n <= 16384 && (n & (n - 1)) == 0; }
}  // namespace sarfuse::cuda

using namespace sarfuse;
using namespace sarfuse::cuda;

// The three variants' common start: line n1 m + n2's spectrum x H in v (the product kernel's steps),
// the L2 asked for the line `ahead` lines on, `s` the FFT's exchange.
template <int N, int E>
__device__ __forceinline__ void spectrum_line(C32 (&v)[E], const void* raw, int line, int lines, int nr, int ahead,
                                              const float2* filter, const float2* tw, C32* s, int tid) {
  steps::load_raw_line<N, SampleType::complex64>(v, raw, line, nr, tid, true);
  steps::prefetch_ahead_l2<N, E>(raw, line, lines, static_cast<std::size_t>(nr) * 8, tid, ahead);
  steps::Fp32Butterflies::forward<N, E>(v, s, tw, tid);
  steps::multiply_by_filter<N>(v, filter, tid);
}

// The same pass exchanging through L2 instead of distributed shared memory (as pass 3's inverse step
// does): each block stores its line's spectrum to its own row, cluster barrier, then reads its share of
// the columns of the 16 rows back (ld.global.cg) and stores the DFT in place.
template <int N, int E = spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>>
__global__ void __launch_bounds__(N / E, row_pass_min_blocks<N, E>)
    first_step_through_l2_kernel(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                                 const float2* __restrict__ tw, float2* __restrict__ out, const float2* __restrict__ az_tw) {
  namespace cg = cooperative_groups;
  constexpr int R = kAzimuthFirstStepRadix, T = N / E, kShare = N / R;
  extern __shared__ __align__(32) C32 smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int n1 = static_cast<int>(cluster.block_rank()), n2 = static_cast<int>(blockIdx.x) / R, m = lines / R;
  const int tid = static_cast<int>(threadIdx.x);
  __shared__ C32 step_tw[R];
  if (tid < R) step_tw[tid] = fft::to_c32(__ldg(az_tw + n2 * tid));
  C32 v[E];
  spectrum_line<N>(v, raw, n1 * m + n2, lines, nr, steps::kPrefetchBlocks / R, filter, tw, smem, tid);
  float2* own = out + (static_cast<std::size_t>(n1) * m + n2) * N;
#pragma unroll
  for (int q = 0; q < E; ++q) own[tid + q * T] = fft::to_float2(v[q]);
  cluster.sync();
  for (int col = n1 * kShare + tid; col < (n1 + 1) * kShare; col += T) {
    C32 x[R];
#pragma unroll
    for (int k = 0; k < R; ++k) x[k] = fft::to_c32(__ldcg(out + (static_cast<std::size_t>(k) * m + n2) * N + col));
    fft::dft<R>(x);
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const C32 y = k == 0 ? x[0] : x[k] * steps::load_shared_in_order(step_tw + k);
      steps::store_in_order(out + (static_cast<std::size_t>(k) * m + n2) * N + col, y);
    }
  }
}

// The product's cluster pass with its second cluster barrier split (stop 56): each block arrives once its
// reads of the other blocks' shared memory are done and waits only at its end, so the DFT and the 16
// stores run while the slower blocks of the cluster finish their reads.
template <int N, int E = spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>>
__global__ void __launch_bounds__(N / E, row_pass_min_blocks<N, E>)
    first_step_split_barrier_kernel(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                                    const float2* __restrict__ tw, float2* __restrict__ out,
                                    const float2* __restrict__ az_tw) {
  namespace cg = cooperative_groups;
  constexpr int R = kAzimuthFirstStepRadix, T = N / E, kShare = N / R;
  static_assert(kShare == T, "one column a thread");
  extern __shared__ __align__(32) C32 smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int n1 = static_cast<int>(cluster.block_rank()), n2 = static_cast<int>(blockIdx.x) / R, m = lines / R;
  const int tid = static_cast<int>(threadIdx.x);
  __shared__ C32 step_tw[R];
  if (tid < R) step_tw[tid] = fft::to_c32(__ldg(az_tw + n2 * tid));
  C32 v[E];
  spectrum_line<N>(v, raw, n1 * m + n2, lines, nr, steps::kPrefetchBlocks / R, filter, tw, smem, tid);
  __syncthreads();
#pragma unroll
  for (int q = 0; q < E; ++q) smem[tid + q * T] = v[q];
  cluster.sync();
  const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int col = n1 * kShare + tid;
  C32 x[R];
#pragma unroll
  for (int k = 0; k < R; ++k) x[k] = steps::load_cluster_shared(own + col * sizeof(C32), k);
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  fft::dft<R>(x);
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const C32 y = k == 0 ? x[0] : x[k] * steps::load_shared_in_order(step_tw + k);
    steps::store_in_order(out + (static_cast<std::size_t>(k) * m + n2) * N + col, y);
  }
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Two lines a block (1024 threads, one block a SM), clusters of 8 (a portable size): the product's
// cluster of 16 one-line blocks needs 16 block slots of one GPC at once and holds 14 clusters (224
// lines) on an H100, where 8 blocks of two lines may hold 16 (256 lines). Block rank r holds lines
// n1 = 2 r + y (y = threadIdx.y) of the cluster's 16; then each block takes 1/8 of the columns of all 16.
template <int N, int E = spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>>
__global__ void __launch_bounds__(2 * (N / E), 1)
    first_step_pairs_kernel(const void* __restrict__ raw, int lines, int nr, const float2* __restrict__ filter,
                            const float2* __restrict__ tw, float2* __restrict__ out, const float2* __restrict__ az_tw) {
  namespace cg = cooperative_groups;
  constexpr int R = kAzimuthFirstStepRadix, C = R / 2, T = N / E, kShare = N / C, S = fft::smem_size(N);
  static_assert(kShare == 2 * T, "one column a thread");
  extern __shared__ __align__(32) C32 smem[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank()), y = static_cast<int>(threadIdx.y);
  const int n1 = 2 * rank + y, n2 = static_cast<int>(blockIdx.x) / C, m = lines / R;
  const int tid = static_cast<int>(threadIdx.x);
  C32* slot = smem + y * S;
  __shared__ C32 step_tw[R];
  if (y == 0 && tid < R) step_tw[tid] = fft::to_c32(__ldg(az_tw + n2 * tid));
  C32 v[E];
  spectrum_line<N>(v, raw, n1 * m + n2, lines, nr, steps::kPrefetchBlocks / C, filter, tw, slot, tid);
  __syncthreads();
#pragma unroll
  for (int q = 0; q < E; ++q) slot[tid + q * T] = v[q];
  cluster.sync();
  const unsigned own = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int col = rank * kShare + y * T + tid;
  C32 x[R];
#pragma unroll
  for (int k = 0; k < R; ++k) x[k] = steps::load_cluster_shared(own + ((k % 2) * S + col) * sizeof(C32), k / 2);
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  fft::dft<R>(x);
#pragma unroll
  for (int k = 0; k < R; ++k) {
    const C32 z = k == 0 ? x[0] : x[k] * steps::load_shared_in_order(step_tw + k);
    steps::store_in_order(out + (static_cast<std::size_t>(k) * m + n2) * N + col, z);
  }
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

int main(int argc, char** argv) {
  constexpr int N = 8192;
  const int lines = argc > 1 ? std::atoi(argv[1]) : 30000, nr = argc > 2 ? std::atoi(argv[2]) : 6250;
  const std::size_t raw_n = static_cast<std::size_t>(lines) * nr, work_n = static_cast<std::size_t>(lines) * N;
  std::vector<float2> x(raw_n), h(N);
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  for (auto& v : x) v = make_float2(g(rng), g(rng));
  for (auto& v : h) v = make_float2(g(rng), g(rng));
  float2 *raw, *filter, *a, *b, *c, *tw, *az_tw, *part_tw;
  CK(cudaMalloc(&raw, raw_n * 8));
  CK(cudaMalloc(&filter, N * 8));
  CK(cudaMalloc(&a, work_n * 8));
  CK(cudaMalloc(&b, work_n * 8));
  CK(cudaMalloc(&c, work_n * 8));
  CK(cudaMemcpy(raw, x.data(), raw_n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(filter, h.data(), N * 8, cudaMemcpyHostToDevice));
  tw = device_twiddle_table(N);
  az_tw = device_twiddle_table(lines);
  part_tw = device_twiddle_table(two_step_part_lines(lines));
  std::printf("%d lines x %d samples, range FFT %d; first step fits: %d\n", lines, nr, N,
              static_cast<int>(range_spectrum_first_step_fits_sized<N>()));
  {
    int clusters = 0;
    const auto kernel = &range_spectrum_first_step_kernel<N, SampleType::complex64>;
    cudaLaunchAttribute attr{};
    const cudaLaunchConfig_t config = first_step_config<N, SampleType::complex64>(reinterpret_cast<const void*>(kernel), lines, nullptr, attr);
    CK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    cudaFuncAttributes fa{}, fb{};
    CK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(kernel)));
    CK(cudaFuncGetAttributes(&fb, reinterpret_cast<const void*>(&range_spectrum_kernel<N, SampleType::complex64, steps::Fp32Butterflies, steps::Fp32Rows>)));
    std::printf("first-step kernel: %d registers, %zu B local, %d clusters of 16 active at once; pass-1 kernel: %d registers, %zu B local\n",
                fa.numRegs, fa.localSizeBytes, clusters, fb.numRegs, fb.localSizeBytes);
  }
  Timer tm;
  const double copy_pass1 = tm.median_ms([&] { CK(cudaMemcpyAsync(a, raw, raw_n * 8, cudaMemcpyDeviceToDevice)); }) +
                            tm.median_ms([&] { CK(cudaMemsetAsync(a, 0, work_n * 8)); });
  const double copy_work = tm.median_ms([&] { CK(cudaMemcpyAsync(b, a, work_n * 8, cudaMemcpyDeviceToDevice)); });
  std::printf("copy of the raw scene + memset of the spectrum (pass 1's bytes): %.4f ms\n", copy_pass1);
  std::printf("copy of the spectrum (one read + one write, a column pass's bytes): %.4f ms\n", copy_work);
  auto pass1 = [&] { launch_range_spectrum_sized<N>(SampleType::complex64, raw, lines, nr, filter, tw, a, nullptr, false); };
  auto both_steps = [&] { launch_two_step_column_fft(lines, a, N, a, N, N, false, az_tw, part_tw, nullptr); };
  auto first = [&] { launch_range_spectrum_first_step_sized<N>(SampleType::complex64, raw, lines, nr, filter, tw, az_tw, b, nullptr); };
  auto column_only = [&] { launch_two_step_column_pass(lines, b, N, c, N, N, part_tw, nullptr); };
  auto first_l2 = [&] {
    const auto kernel = &first_step_through_l2_kernel<N>;
    cudaLaunchAttribute attr{};
    const cudaLaunchConfig_t config = first_step_config<N, SampleType::complex64>(reinterpret_cast<const void*>(kernel), lines, nullptr, attr);
    CK(cudaLaunchKernelEx(&config, kernel, static_cast<const void*>(raw), lines, nr, static_cast<const float2*>(filter),
                          static_cast<const float2*>(tw), b, static_cast<const float2*>(az_tw)));
  };
  auto first_split = [&] {
    const auto kernel = &first_step_split_barrier_kernel<N>;
    cudaLaunchAttribute attr{};
    const cudaLaunchConfig_t config = first_step_config<N, SampleType::complex64>(reinterpret_cast<const void*>(kernel), lines, nullptr, attr);
    CK(cudaLaunchKernelEx(&config, kernel, static_cast<const void*>(raw), lines, nr, static_cast<const float2*>(filter),
                          static_cast<const float2*>(tw), b, static_cast<const float2*>(az_tw)));
  };
  auto first_pairs = [&] {
    constexpr int E = spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>;
    const auto kernel = &first_step_pairs_kernel<N>;
    const int smem = 2 * fft::smem_size(N) * static_cast<int>(sizeof(C32));
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    ClusterLaunch cl(static_cast<unsigned>(lines / 2), 1, smem, kAzimuthFirstStepRadix / 2);
    cl.cfg.blockDim = dim3(N / E, 2);
    CK(cudaLaunchKernelEx(&cl.cfg, kernel, static_cast<const void*>(raw), lines, nr, static_cast<const float2*>(filter),
                          static_cast<const float2*>(tw), b, static_cast<const float2*>(az_tw)));
  };
  {
    constexpr int E = spectrum_row_elems<N, steps::Fp32Butterflies, steps::Fp32Rows>;
    const auto kernel = &first_step_pairs_kernel<N>;
    const int smem = 2 * fft::smem_size(N) * static_cast<int>(sizeof(C32));
    CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    ClusterLaunch cl(static_cast<unsigned>(lines / 2), 1, smem, kAzimuthFirstStepRadix / 2);
    cl.cfg.blockDim = dim3(N / E, 2);
    int clusters = 0;
    CK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cl.cfg));
    cudaFuncAttributes fa{};
    CK(cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(kernel)));
    std::printf("two-line kernel: %d registers, %zu B local, %d clusters of 8 active at once (%d lines)\n", fa.numRegs,
                fa.localSizeBytes, clusters, clusters * 16);
  }
  for (int round = 0; round < 2; ++round) {
    const double t_pass1 = tm.median_ms(pass1, 20), t_first = tm.median_ms(first, 20);
    const double t_sep = tm.median_ms([&] { pass1(); both_steps(); }, 20);
    const double t_fused = tm.median_ms([&] { first(); column_only(); }, 20);
    const double t_col = tm.median_ms(column_only, 20, first);  // on fresh first-step output each time
    std::printf("round %d: pass 1 %.4f ms | pass 1 + 16-point step (clusters) %.4f ms | pass 1, then two-step forward %.4f ms "
                "| clusters, then column pass %.4f ms (column pass alone %.4f) | %.3fx\n",
                round, t_pass1, t_first, t_sep, t_fused, t_col, t_sep / t_fused);
    const double t_l2 = tm.median_ms(first_l2, 20);
    std::printf("         the same through L2 instead of distributed shared memory: %.4f ms\n", t_l2);
    std::printf("         the cluster pass, second cluster barrier split (arrive after the reads): %.4f ms (product's %.4f here)\n",
                tm.median_ms(first_split, 20), tm.median_ms(first, 20));
    std::printf("         two lines a block, clusters of 8, split barrier: %.4f ms\n", tm.median_ms(first_pairs, 20));
  }
  CK(cudaMemset(a, 0xff, work_n * 8));
  CK(cudaMemset(b, 0xff, work_n * 8));
  pass1();
  both_steps();
  first();
  column_only();
  CK(cudaDeviceSynchronize());
  std::vector<float2> ha(work_n), hb(work_n), hl(work_n);
  CK(cudaMemset(b, 0xff, work_n * 8));
  first_l2();
  CK(cudaMemcpy(hl.data(), b, work_n * 8, cudaMemcpyDeviceToHost));
  first();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(ha.data(), a, work_n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), c, work_n * 8, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  std::size_t identical = 0;
  for (std::size_t i = 0; i < work_n; ++i) {  // the separate passes' row r holds natural row two_step_spectrum_bin(r)
    const std::size_t r = i / N, j = static_cast<std::size_t>(two_step_spectrum_bin(static_cast<int>(r), lines)) * N + i % N;
    const double dx = ha[i].x - hb[j].x, dy = ha[i].y - hb[j].y;
    num += dx * dx + dy * dy;
    den += static_cast<double>(ha[i].x) * ha[i].x + static_cast<double>(ha[i].y) * ha[i].y;
    identical += ha[i].x == hb[j].x && ha[i].y == hb[j].y;
  }
  std::printf("outputs: relative L2 difference %.3e, %.1f %% bit-identical\n", std::sqrt(num / den), 100.0 * identical / work_n);
  std::vector<float2> hf(work_n);
  CK(cudaMemcpy(hf.data(), b, work_n * 8, cudaMemcpyDeviceToHost));
  std::size_t same = 0;
  for (std::size_t i = 0; i < work_n; ++i) same += hf[i].x == hl[i].x && hf[i].y == hl[i].y;
  std::printf("through L2 vs distributed shared memory: %.1f %% bit-identical\n", 100.0 * same / work_n);
  CK(cudaMemset(b, 0xff, work_n * 8));
  first_split();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hl.data(), b, work_n * 8, cudaMemcpyDeviceToHost));
  same = 0;
  for (std::size_t i = 0; i < work_n; ++i) same += hf[i].x == hl[i].x && hf[i].y == hl[i].y;
  std::printf("split barrier vs product: %.1f %% bit-identical\n", 100.0 * same / work_n);
  CK(cudaMemset(b, 0xff, work_n * 8));
  first_pairs();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hl.data(), b, work_n * 8, cudaMemcpyDeviceToHost));
  same = 0;
  for (std::size_t i = 0; i < work_n; ++i) same += hf[i].x == hl[i].x && hf[i].y == hl[i].y;
  std::printf("two lines a block vs product: %.1f %% bit-identical\n", 100.0 * same / work_n);
  return 0;
}
