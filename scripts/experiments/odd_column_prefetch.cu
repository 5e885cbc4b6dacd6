// Experiment (issue 20, stop 55): the 1875-point column pass of the RDA at 30000 x 6250 (passes 2 and 4
// at 16 x m azimuth lines, spectrum in natural order). The product (launch_column_fft, 1024 threads:
// eight columns, 1000 threads of 64 registers, one block a SM) loads, computes and stores a 120 KB tile
// in turn, so each SM leaves DRAM idle while it computes. Variants, each timed on both shapes:
//   L2 lead          the product's body (FP32 only) with the tile of the block `ahead` blocks later
//                    prefetched into L2 (cp.async.bulk.prefetch.L2, one row piece a thread) first;
//                    ahead 0: the body alone;
//   512 x 2          the same at 512 threads (four columns), two blocks a SM;
//   768 threads      the product's kernel at six columns a block;
//   staged 8 / 6     persistent blocks, one a SM: the next tile copied into a shared-memory stage by
//                    cp.async while this one is transformed and stored; 8 columns with the exchange
//                    split into real and imaginary halves (stage and exchange in 184 KB), or 6 with
//                    the library's complex exchange;
//   library staged   staged_column_fft.cuh, the staged kernel as it was routed into the RDA
//                    (docs/bench/azimuth/stop55_staged_columns.patch).
//   nvcc -std=c++20 -O3 -arch=sm_90 -I include -I src --expt-relaxed-constexpr \
//     scripts/experiments/odd_column_prefetch.cu -lcufft -o ocp && ./ocp 30000 6250 [profile]
// Shapes: inverse  rows 16 apart (in_interleave) of the work array (pitch 8192) -> aligned scratch
//                  (pitch 6252); forward  pass 1's step array (pitch 8192, all 8192 columns) -> rows 16
// apart (out_interleave). Median of 20, two rounds; every variant's output checked bit-identical to
// the product's (poisoned before). "profile": each variant once (for Nsight Compute).
#include "cuda/fft/column_fft.cu"
#include "staged_column_fft.cuh"
#include "experiment_util.hpp"

#include <cstring>
#include <functional>
#include <string>

namespace sarfuse::cuda {
bool own_fft_supports(int n) { return n >= 256 && n <= 16384 && (n & (n - 1)) == 0; }
}  // namespace sarfuse::cuda

using namespace sarfuse::cuda;
using fft::C32;

namespace ocp {

// The product's kernel body (FP32, inverse or forward, interleaved rows) with the L2 lead added.
template <int N, int Threads, int MinBlocks>
__global__ void __launch_bounds__(ColumnShape<N, Threads, 15>::cols * ColumnShape<N, Threads, 15>::T, MinBlocks)
    prefetch_column_kernel(const float2* in, int in_pitch, float2* out, int out_pitch, int cols, bool inverse,
                           int in_interleave, int out_interleave, const float2* __restrict__ tw, int ahead) {
  using S = ColumnShape<N, Threads, 15>;
  extern __shared__ C32 smem[];
  const int g = static_cast<int>(threadIdx.x) % S::cols, tid = static_cast<int>(threadIdx.x) / S::cols;
  const int col = static_cast<int>(blockIdx.x) * S::cols + g;
  const bool active = col < cols;
  const std::size_t in_row_pitch = static_cast<std::size_t>(in_pitch) * (in_interleave ? in_interleave : 1);
  const std::size_t out_row_pitch = static_cast<std::size_t>(out_pitch) * (out_interleave ? out_interleave : 1);
  if (ahead > 0) {
    const unsigned blocks = gridDim.x * gridDim.y;
    const unsigned next = blockIdx.x + blockIdx.y * gridDim.x + static_cast<unsigned>(ahead);
    if (next < blocks) {
      const int px = static_cast<int>(next % gridDim.x), py = static_cast<int>(next / gridDim.x);
      const int c0 = px * S::cols, width = min(S::cols, cols - c0);
      const unsigned bytes = static_cast<unsigned>((width * 8 + 15) / 16 * 16);
      const float2* base = in + static_cast<std::size_t>(py) * (in_interleave ? 1 : N) * in_pitch + c0;
      for (int row = static_cast<int>(threadIdx.x); row < N; row += static_cast<int>(blockDim.x))
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(base + row * in_row_pitch), "r"(bytes)
                     : "memory");
    }
  }
  const std::size_t group = blockIdx.y;
  in += group * (in_interleave ? 1 : N) * in_pitch;
  out += group * (out_interleave ? 1 : N) * out_pitch;
  C32* s = smem + g * S::slots;
  C32 v[S::E];
#pragma unroll
  for (int q = 0; q < S::E; ++q) {
    const int row = tid + q * S::T;
    const C32 x = active ? fft::to_c32(in[row * in_row_pitch + col]) : C32{0.f, 0.f};
    v[q] = inverse ? fft::conj(x) : x;
  }
  fft::block_fft_forward<N, S::E>(v, s, tw, tid);
  if (!active) return;
#pragma unroll
  for (int q = 0; q < S::E; ++q) {
    const int row = tid + q * S::T;
    const C32 y = inverse ? fft::conj(v[q]) : v[q];
    out[row * out_row_pitch + col] = fft::to_float2(y);
  }
}

template <int Threads, int MinBlocks>
void launch_prefetch(const float2* in, int in_pitch, float2* out, int out_pitch, int cols, bool inverse, int in_il,
                     int out_il, const float2* tw, int ahead) {
  constexpr int N = 1875;
  using S = ColumnShape<N, Threads, 15>;
  const void* k = reinterpret_cast<const void*>(&prefetch_column_kernel<N, Threads, MinBlocks>);
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
  const dim3 grid(static_cast<unsigned>((cols + S::cols - 1) / S::cols), 16u);
  prefetch_column_kernel<N, Threads, MinBlocks><<<grid, S::cols * S::T, S::smem_bytes>>>(
      in, in_pitch, out, out_pitch, cols, inverse, in_il, out_il, tw, ahead);
  CK(cudaGetLastError());
}

// Staged: one persistent block a SM walks its tiles; tile t+1 is copied into a shared-memory stage
// (cp.async, 16 bytes a copy, rows of the 8 columns 64 bytes apart) while tile t is transformed and
// stored, and the FFT exchanges real and imaginary parts in turn through a buffer half the size, so
// stage (120 KB) and exchange (64 KB) fit beside each other.
constexpr int kStagedT = 125;
// Each column's exchange floats start 4 banks after the previous column's: a warp (8 columns x 4
// consecutive points) reads and writes all 32 banks once.
constexpr int kSplitSlots = (fft::smem_size(1875) + 31) / 32 * 32 + 4;
// Cols 8: the exchange split (real, then imaginary parts); 6: whole complex values, the product's
// block_fft_forward, 750 threads and so up to 80 registers a thread.
template <int Cols>
struct Staged {
  static constexpr int threads = Cols * kStagedT;
  static constexpr bool split = Cols == 8;
  static constexpr int slots = split ? kSplitSlots : fft::smem_size(1875) + 2;  // complex: column bases 2 slots apart mod 16
  static constexpr int stage_bytes = 1875 * Cols * 8;
  static constexpr int smem = stage_bytes + Cols * slots * (split ? 4 : 8);
};

template <int N, int E, int P>
__device__ __forceinline__ void split_passes(C32 (&v)[E], float* x, const float2* __restrict__ tw, int tid) {
  constexpr int kPasses = fft::row_pass_count(N);
  if constexpr (P < kPasses) {
    constexpr int R = fft::row_pass_radix(N, P), ns = fft::row_pass_span(N, P), T = N / E, B = E / R;
    static_assert(E % R == 0, "every pass on the registers");
#pragma unroll
    for (int b = 0; b < B; ++b) {
      C32 y[R];
#pragma unroll
      for (int r = 0; r < R; ++r) y[r] = v[b + r * B];
      fft::stockham_twiddle_mul<N, R, ns>(y, tid + b * T, tw);
      fft::butterfly<R>(y);
#pragma unroll
      for (int r = 0; r < R; ++r) v[b + r * B] = y[r];
    }
    if constexpr (P + 1 < kPasses) {
      __syncthreads();  // the previous exchange's reads are done
#pragma unroll
      for (int b = 0; b < B; ++b)
#pragma unroll
        for (int r = 0; r < R; ++r) x[fft::smem_index(fft::stockham_output(tid + b * T, r, ns, R))] = v[b + r * B].re;
      // The imaginary phase recomputes its indices from an opaque copy of tid: kept from the real
      // phase, 30 addresses would be live beside the 30 floats of v (the compiler spilled 400 bytes).
      int t2 = tid;
      __syncthreads();
#pragma unroll
      for (int q = 0; q < E; ++q) v[q].re = x[fft::smem_index(t2 + q * T)];
      asm volatile("" : "+r"(t2));
      __syncthreads();
#pragma unroll
      for (int b = 0; b < B; ++b)
#pragma unroll
        for (int r = 0; r < R; ++r) x[fft::smem_index(fft::stockham_output(t2 + b * T, r, ns, R))] = v[b + r * B].im;
      asm volatile("" : "+r"(t2));
      __syncthreads();
#pragma unroll
      for (int q = 0; q < E; ++q) v[q].im = x[fft::smem_index(t2 + q * T)];
    }
    split_passes<N, E, P + 1>(v, x, tw, tid);
  }
}

// threadIdx.x through an opaque move: the persistent loop's addresses depend on the thread alone, and
// hoisted out of the loop they stay live across the FFT (80 registers and 96 bytes spilled).
__device__ __forceinline__ int opaque_thread() {
  int t = static_cast<int>(threadIdx.x);
  asm volatile("" : "+r"(t));
  return t;
}

struct StagedArgs {
  const float2* in;
  float2* out;
  const float2* tw;
  int in_pitch, out_pitch, cols, in_interleave, out_interleave, tiles_x, tiles;
};

// Tile t's rows into the stage: group t / tiles_x, columns (t % tiles_x) x 8 ... + 7, zero-filled past
// `cols`. Everything from the kernel's parameters, so nothing but t stays live across the FFT.
template <int kStagedCols>
__device__ __forceinline__ void stage_tile(float2* stage, const StagedArgs& a, int t) {
  constexpr int kChunks = 1875 * kStagedCols / 2;  // 16-byte copies
  constexpr int kStagedThreads = Staged<kStagedCols>::threads;
  const float2* in = a.in + static_cast<std::size_t>(t / a.tiles_x) * (a.in_interleave ? 1 : 1875) * a.in_pitch;
  const std::size_t row_pitch = static_cast<std::size_t>(a.in_pitch) * (a.in_interleave ? a.in_interleave : 1);
  const int c0 = (t % a.tiles_x) * kStagedCols;
#pragma unroll 1
  for (int i = opaque_thread(); i < kChunks; i += kStagedThreads) {
    const int row = i / (kStagedCols / 2), chunk = i % (kStagedCols / 2), c = c0 + 2 * chunk;
    const int bytes = max(0, min(16, (a.cols - c) * 8));
    const float2* src = in + row * row_pitch + (bytes > 0 ? c : c0);
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(stage + row * kStagedCols + 2 * chunk));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int kStagedCols, bool Inverse>
__global__ void __launch_bounds__(Staged<kStagedCols>::threads, 1) staged_column_kernel(const __grid_constant__ StagedArgs a) {
  constexpr int N = 1875, E = 15, T = kStagedT;
  using St = Staged<kStagedCols>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float2* stage = reinterpret_cast<float2*>(smem_raw);
  if (static_cast<int>(blockIdx.x) < a.tiles) stage_tile<kStagedCols>(stage, a, static_cast<int>(blockIdx.x));
  for (int t = static_cast<int>(blockIdx.x); t < a.tiles; t += static_cast<int>(gridDim.x)) {
    const int th = opaque_thread(), g = th % kStagedCols, tid = th / kStagedCols;
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();  // the stage holds tile t
    C32 v[E];
#pragma unroll
    for (int q = 0; q < E; ++q) {
      const float2 e = stage[(tid + q * T) * kStagedCols + g];
      v[q] = Inverse ? C32{e.x, -e.y} : C32{e.x, e.y};
    }
    __syncthreads();  // every thread has read the stage
    if (t + static_cast<int>(gridDim.x) < a.tiles) stage_tile<kStagedCols>(stage, a, t + static_cast<int>(gridDim.x));
    {
      const int th2 = opaque_thread(), g2 = th2 % kStagedCols, tid2 = th2 / kStagedCols;
      if constexpr (St::split)
        split_passes<N, E, 0>(v, reinterpret_cast<float*>(smem_raw + St::stage_bytes) + g2 * St::slots, a.tw, tid2);
      else
        fft::block_fft_forward<N, E>(v, reinterpret_cast<C32*>(smem_raw + St::stage_bytes) + g2 * St::slots, a.tw, tid2);
    }
    const int th3 = opaque_thread(), g3 = th3 % kStagedCols, tid3 = th3 / kStagedCols;
    const int col = (t % a.tiles_x) * kStagedCols + g3;
    if (col < a.cols) {
      const std::size_t row_pitch = static_cast<std::size_t>(a.out_pitch) * (a.out_interleave ? a.out_interleave : 1);
      float2* o = a.out + static_cast<std::size_t>(t / a.tiles_x) * (a.out_interleave ? 1 : N) * a.out_pitch + col;
#pragma unroll
      for (int q = 0; q < E; ++q) {
        const C32 y = Inverse ? fft::conj(v[q]) : v[q];
        o[(tid3 + q * T) * row_pitch] = fft::to_float2(y);
      }
    }
  }
}

template <int Cols>
void launch_staged(const float2* in, int in_pitch, float2* out, int out_pitch, int cols, bool inverse, int in_il,
                   int out_il, const float2* tw) {
  using St = Staged<Cols>;
  static int sms = 0;
  if (!sms) CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int tiles_x = (cols + Cols - 1) / Cols;
  const StagedArgs a{in, out, tw, in_pitch, out_pitch, cols, in_il, out_il, tiles_x, tiles_x * 16};
  const void* k = inverse ? reinterpret_cast<const void*>(&staged_column_kernel<Cols, true>)
                          : reinterpret_cast<const void*>(&staged_column_kernel<Cols, false>);
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, St::smem));
  if (inverse) staged_column_kernel<Cols, true><<<sms, St::threads, St::smem>>>(a);
  else staged_column_kernel<Cols, false><<<sms, St::threads, St::smem>>>(a);
  CK(cudaGetLastError());
}

}  // namespace ocp
using namespace ocp;

int main(int argc, char** argv) {
  const int lines = argc > 1 ? std::atoi(argv[1]) : 30000, cols = argc > 2 ? std::atoi(argv[2]) : 6250;
  const bool profile = argc > 3 && std::string(argv[3]) == "profile";
  const int pitch = 8192, m = lines / 16, spitch = (cols + 3) / 4 * 4;
  if (m != 1875) {
    std::fprintf(stderr, "this experiment is built for 16 x 1875 lines\n");
    return 2;
  }
  const std::size_t work_n = static_cast<std::size_t>(lines) * pitch;
  std::vector<float2> x(work_n);
  std::mt19937 rng(5);
  std::normal_distribution<float> gauss;
  for (auto& v : x) v = make_float2(gauss(rng), gauss(rng));
  float2 *spec, *a, *b, *part;
  CK(cudaMalloc(&spec, work_n * 8));
  CK(cudaMalloc(&a, work_n * 8));
  CK(cudaMalloc(&b, work_n * 8));
  CK(cudaMemcpy(spec, x.data(), work_n * 8, cudaMemcpyHostToDevice));
  part = device_twiddle_table(m);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; %d lines (16 x %d), inverse %d columns -> scratch pitch %d; forward %d columns\n", prop.name,
              sms, lines, m, cols, spitch, pitch);

  struct Shape {
    const char* name;
    bool inverse;
    int cols, in_pitch, out_pitch, in_il, out_il;
  };
  const Shape shapes[] = {{"inverse (pass 4's column pass)", true, cols, pitch, spitch, 16, 0},
                          {"forward (pass 2)", false, pitch, pitch, pitch, 0, 16}};
  Timer tm;
  const double copy_slc = tm.median_ms([&] { CK(cudaMemcpyAsync(b, a, static_cast<std::size_t>(lines) * cols * 8, cudaMemcpyDeviceToDevice)); });
  const double copy_work = tm.median_ms([&] { CK(cudaMemcpyAsync(b, a, work_n * 8, cudaMemcpyDeviceToDevice)); });
  std::printf("copy (one read + one write) of %d x %d: %.4f ms; of %d x %d: %.4f ms\n", lines, cols, copy_slc, lines,
              pitch, copy_work);
  const int aheads[] = {0, 16, 32, 66, 132, 264};
  for (const Shape& sh : shapes) {
    std::printf("== %s\n", sh.name);
    auto product = [&](float2* out) {
      ColumnScaling s;
      s.in_interleave = sh.in_il;
      s.out_interleave = sh.out_il;
      launch_column_fft(m, 1024, spec, sh.in_pitch, out, sh.out_pitch, sh.cols, sh.inverse, part, nullptr, s, 16);
      CK(cudaGetLastError());
    };
    const std::size_t out_n = static_cast<std::size_t>(lines) * sh.out_pitch;
    CK(cudaMemset(a, 0xff, out_n * 8));
    product(a);
    std::vector<float2> ref(out_n), got(out_n);
    CK(cudaMemcpy(ref.data(), a, out_n * 8, cudaMemcpyDeviceToHost));
    struct Variant {
      std::string name;
      std::function<void(float2*)> go;
    };
    std::vector<Variant> vs;
    vs.push_back({"product (1024 threads)", product});
    vs.push_back({"library: launch_staged_column_fft", [&](float2* out) {
                    ColumnScaling s;
                    s.in_interleave = sh.in_il;
                    s.out_interleave = sh.out_il;
                    launch_staged_column_fft(m, spec, sh.in_pitch, out, sh.out_pitch, sh.cols, sh.inverse, part, s, 16, nullptr);
                    CK(cudaGetLastError());
                  }});
    vs.push_back({"staged 8 columns (split exchange)", [&](float2* out) {
                    launch_staged<8>(spec, sh.in_pitch, out, sh.out_pitch, sh.cols, sh.inverse, sh.in_il, sh.out_il, part);
                  }});
    vs.push_back({"staged 6 columns (complex exchange)", [&](float2* out) {
                    launch_staged<6>(spec, sh.in_pitch, out, sh.out_pitch, sh.cols, sh.inverse, sh.in_il, sh.out_il, part);
                  }});
    vs.push_back({"product's kernel at 768 threads (6 columns)", [&](float2* out) {
                    ColumnScaling s;
                    s.in_interleave = sh.in_il;
                    s.out_interleave = sh.out_il;
                    launch_columns_as<1875, 768, float2, float2, false, 1, 15>(spec, sh.in_pitch, out, sh.out_pitch, sh.cols,
                                                                             sh.inverse, s, part, 16, nullptr);
                    CK(cudaGetLastError());
                  }});
    for (int ahead : aheads) {
      vs.push_back({"1024 threads, L2 lead " + std::to_string(ahead) + " blocks", [&, ahead](float2* out) {
                      launch_prefetch<1024, 1>(spec, sh.in_pitch, out, sh.out_pitch, sh.cols, sh.inverse, sh.in_il,
                                               sh.out_il, part, ahead);
                    }});
      vs.push_back({"512 threads x 2 a SM, L2 lead " + std::to_string(ahead) + " blocks", [&, ahead](float2* out) {
                      launch_prefetch<512, 2>(spec, sh.in_pitch, out, sh.out_pitch, sh.cols, sh.inverse, sh.in_il,
                                              sh.out_il, part, ahead);
                    }});
    }
    for (auto& v : vs) {  // outputs first: bit-identical to the product's (poisoned before each run)
      CK(cudaMemset(b, 0xff, out_n * 8));
      v.go(b);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(got.data(), b, out_n * 8, cudaMemcpyDeviceToHost));
      std::size_t diff = 0;
      for (int r = 0; r < lines; ++r)
        for (int c = 0; c < sh.cols; ++c) {
          const std::size_t i = static_cast<std::size_t>(r) * sh.out_pitch + c;
          diff += std::memcmp(&ref[i], &got[i], 8) != 0;
        }
      if (diff) std::printf("  %-46s ** %zu outputs differ from the product's **\n", v.name.c_str(), diff);
    }
    if (profile) continue;
    for (int round = 0; round < 2; ++round)
      for (auto& v : vs) {
        const double t = tm.median_ms([&] { v.go(b); }, 20);
        std::printf("  round %d  %-46s %.4f ms  (%.0f %% of copy)\n", round, v.name.c_str(), t,
                    100.0 * (sh.inverse ? copy_slc : copy_work) / t);
      }
  }
  return 0;
}
