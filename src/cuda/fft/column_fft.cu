// Batched FFTs down the columns of a row-major array (the azimuth FFTs of the RDA): each thread block
// takes `Cols` adjacent columns whole, one thread group of N/16 threads per column (N/15 at the odd
// column lengths of fft_math.hpp, complex64 only), and runs the same register-resident Stockham passes
// as the row kernels (block_fft.cuh). Threads are numbered
// column-fastest, so a warp's load of one "row slice" touches Cols adjacent elements of 32 / Cols rows:
// whole 32-byte sectors for complex64 once Cols >= 4, and neighbouring blocks share the rest through
// L2. Elements may be complex64 or FP16 (storage.hpp) on either side; the arithmetic is FP32. A
// second grid dimension takes groups of N rows one after another (the two-step column FFT's batch).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/fft/column_shape.cuh"
#include "cuda/fft/storage.cuh"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

namespace {

using fft::C32;

// HalfMath: the butterflies in FP16 arithmetic (--precision fp16; storage.cuh). MinBlocks: the blocks a SM
// must hold (the registers' budget). E: points a thread.
template <int N, int Threads, class In, class Out, bool HalfMath = false, int MinBlocks = 1, int E = 16>
__global__ void __launch_bounds__(ColumnShape<N, Threads, E>::cols * ColumnShape<N, Threads, E>::T, MinBlocks)
    column_fft_kernel(const In* in, int in_pitch, Out* out, int out_pitch, int cols, bool inverse,
                      ColumnScaling scaling, const float2* __restrict__ tw) {
  using S = ColumnShape<N, Threads, E>;
  extern __shared__ C32 smem[];
  const int g = static_cast<int>(threadIdx.x) % S::cols, tid = static_cast<int>(threadIdx.x) / S::cols;
  const int col = static_cast<int>(blockIdx.x) * S::cols + g;
  const bool active = col < cols;
  // Group y's rows: y N + r, or y + r R where interleaved by R.
  const std::size_t group = blockIdx.y;
  in += group * (scaling.in_interleave ? 1 : N) * in_pitch;
  out += group * (scaling.out_interleave ? 1 : N) * out_pitch;
  const std::size_t in_row_pitch = static_cast<std::size_t>(in_pitch) * std::max(scaling.in_interleave, 1);
  const std::size_t out_row_pitch = static_cast<std::size_t>(out_pitch) * std::max(scaling.out_interleave, 1);
  C32* s = smem + g * S::slots;
  C32 v[S::E];
#pragma unroll
  for (int q = 0; q < S::E; ++q) {
    const int row = tid + q * S::T;
    const float f = scaling.in_row_factor ? __ldg(scaling.in_row_factor + row) : 1.0f;
    const C32 x = active ? fft::load_scaled(in + row * in_row_pitch + col, f) : C32{0.f, 0.f};
    v[q] = inverse ? fft::conj(x) : x;  // inverse = conj . forward . conj, unnormalised
  }
  if constexpr (HalfMath) {
    __shared__ unsigned column_max[S::cols];  // per column: the largest component's bits
    auto group_max = [&](float x) {
      if (threadIdx.x < S::cols) column_max[threadIdx.x] = 0u;
      __syncthreads();
      fft::atomic_max_nonnegative(&column_max[g], x);
      __syncthreads();
      return __uint_as_float(column_max[g]);
    };
    fft::block_fft_forward_fp16<N, S::E>(v, s, tw, tid, group_max);
  } else {
    fft::block_fft_forward<N, S::E>(v, s, tw, tid);
  }
  if (!active) return;
  const float so = scaling.out_bound
                       ? fft::half_storage_scale(scaling.out_gain * fft::read_max_nonnegative(scaling.out_bound))
                       : 1.0f;
#pragma unroll
  for (int q = 0; q < S::E; ++q) {
    const int row = tid + q * S::T;
    C32 y = inverse ? fft::conj(v[q]) : v[q];
    if (scaling.twiddle_n > 0) {  // exact: (row col mod n) / n is a float with at most 22 significant bits
      const int m = static_cast<int>((static_cast<long long>(row) * col) % scaling.twiddle_n);
      float sn, cs;
      sincospif(scaling.twiddle_sign * 2.0f * static_cast<float>(m) / static_cast<float>(scaling.twiddle_n), &sn, &cs);
      y = y * C32{cs, sn};
    }
    fft::store_scaled(out + row * out_row_pitch + col, y, so);
  }
}

template <int N, int Threads, class In, class Out, bool HalfMath, int MinBlocks = 1, int E = 16>
void launch_columns_as(const In* in, int in_pitch, Out* out, int out_pitch, int cols, bool inverse,
                       const ColumnScaling& scaling, const float2* tw, int groups, cudaStream_t stream) {
  using S = ColumnShape<N, Threads, E>;
  const void* k = reinterpret_cast<const void*>(&column_fft_kernel<N, Threads, In, Out, HalfMath, MinBlocks, E>);
  SARFUSE_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::smem_bytes));
  const dim3 grid(static_cast<unsigned>((cols + S::cols - 1) / S::cols), static_cast<unsigned>(groups));
  column_fft_kernel<N, Threads, In, Out, HalfMath, MinBlocks, E><<<grid, S::cols * S::T, S::smem_bytes, stream>>>(
      in, in_pitch, out, out_pitch, cols, inverse, scaling, tw);
  SARFUSE_LAUNCHED("column_fft");
}

template <int N, int Threads, class In, class Out>
void launch_columns(const In* in, int in_pitch, Out* out, int out_pitch, int cols, bool inverse,
                    const ColumnScaling& scaling, const float2* tw, int groups, cudaStream_t stream) {
  constexpr int min_blocks = Threads == 256 ? 2 : 1;
  constexpr int elems = fft::is_pow2(N) ? 16 : fft::kElems<N>;
  if constexpr (std::is_same_v<In, __half2>) {  // FP16 arithmetic only where the scene is stored in FP16
    if (scaling.half_math) {
      launch_columns_as<N, Threads, In, Out, true, min_blocks>(in, in_pitch, out, out_pitch, cols, inverse, scaling, tw,
                                                               groups, stream);
      return;
    }
  }
  launch_columns_as<N, Threads, In, Out, false, min_blocks, elems>(in, in_pitch, out, out_pitch, cols, inverse, scaling,
                                                                   tw, groups, stream);
}

template <class In, class Out>
void dispatch_columns(int lines, int threads, const In* in, int in_pitch, Out* out, int out_pitch, int cols,
                      bool inverse, const ColumnScaling& scaling, const float2* tw, int groups, cudaStream_t stream) {
  auto go = [&]<int N>() {
    if (threads == 1024) launch_columns<N, 1024>(in, in_pitch, out, out_pitch, cols, inverse, scaling, tw, groups, stream);
    else if (threads == 512) launch_columns<N, 512>(in, in_pitch, out, out_pitch, cols, inverse, scaling, tw, groups, stream);
    else if constexpr (N <= 4096) {
      if (threads == 256 && !std::is_same_v<In, __half2>)
        launch_columns<N, 256>(in, in_pitch, out, out_pitch, cols, inverse, scaling, tw, groups, stream);
      else
        throw Error("column FFT: threads per block must be 512 or 1024, or 256 for complex64 (got " + std::to_string(threads) + ")");
    } else {
      throw Error("column FFT: threads per block must be 512 or 1024 above 4096 lines (got " + std::to_string(threads) + ")");
    }
  };
  if constexpr (std::is_same_v<In, float2> && std::is_same_v<Out, float2>) {  // odd lengths: complex64, FP32
    if (fft::dispatch_listed<fft::kOddColumnSizes>(lines, go)) return;
  }
  fft::dispatch_pow2<256, 16384>(lines, "column FFT: lines", go);
}

}  // namespace

bool column_fft_supports(int lines) { return own_fft_supports(lines); }  // powers of two only
bool odd_column_fft_supports(int lines) { return fft::is_odd_column_size(lines); }

void launch_column_fft(int lines, int threads, const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                       bool inverse, const float2* twiddles, cudaStream_t stream, const ColumnScaling& scaling,
                       int groups) {
  dispatch_columns(lines, threads, in, in_pitch, out, out_pitch, cols, inverse, scaling, twiddles, groups, stream);
}

void launch_column_fft(int lines, int threads, const __half2* in, int in_pitch, __half2* out, int out_pitch, int cols,
                       bool inverse, const ColumnScaling& scaling, const float2* twiddles, cudaStream_t stream) {
  dispatch_columns(lines, threads, in, in_pitch, out, out_pitch, cols, inverse, scaling, twiddles, 1, stream);
}

void launch_column_fft(int lines, int threads, const __half2* in, int in_pitch, float2* out, int out_pitch, int cols,
                       bool inverse, const ColumnScaling& scaling, const float2* twiddles, cudaStream_t stream) {
  dispatch_columns(lines, threads, in, in_pitch, out, out_pitch, cols, inverse, scaling, twiddles, 1, stream);
}

}  // namespace sarfuse::cuda
