// Range compression on the project's own kernels: the fused one-block kernel (range_pass_kernels.cuh)
// and, for lines longer than one block holds, the four-step path; the twiddle tables they read.
#include "cuda/range_pass_kernels.cuh"

namespace sarfuse::cuda {

bool own_fft_supports(int n) { return n >= 256 && n <= 16384 && (n & (n - 1)) == 0; }
bool own_row_fft_supports(int n) { return own_fft_supports(n) || fft::is_nice_row_size(n); }

std::vector<float2> fft_twiddle_table(int n) {
  std::vector<float2> t(n);
  for (int k = 0; k < n; ++k) {
    const double a = -2.0 * 3.14159265358979323846 * k / n;
    t[k] = make_float2(static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)));
  }
  return t;
}

void launch_range_compress_fused(int nfft, SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                 const float2* tw, float2* out, int out_cols, int out_pitch, cudaStream_t stream) {
  steps::dispatch_size(nfft, [&]<int N>() {
    steps::dispatch_type(type, [&]<SampleType S>() {
      auto launch = [&]<bool Whole>() {
        constexpr int E = fused_elems<N, Whole>, L = fused_lines<N, Whole>;
        const auto kernel = &range_compress_kernel<N, S, Whole>;
        steps::set_smem<N, FusedExchange<N, Whole>::buffers, E, L>(reinterpret_cast<const void*>(kernel));
        kernel<<<steps::grid_for<N, E, L>(lines), steps::block_for<N, E, L>(), FusedSlot<N, Whole>::smem_bytes, stream>>>(
            raw, lines, nr, filter, tw, out, out_cols, out_pitch);
        SARFUSE_LAUNCHED("range_compress_fused");
      };
      if (nr == N && out_cols == N && out_pitch == N && lines % FusedShape<N, true>::lines == 0)
        launch.template operator()<true>();
      else
        launch.template operator()<false>();
    });
  });
}

// ---- four-step range compression for lines longer than one block holds (N = N1 x N2, N2 <= 16384) ----
// With n = n1 N2 + n2 and k = k1 + N1 k2:  X[k] = sum_n2 W_N2^(n2 k2) W_N^(n2 k1) sum_n1 x[n] W_N1^(n1 k1).
// Pass A: the N1-point DFT down each column n2 (in registers, N1 <= 16), x W_N^(n2 k1), stored at row
//         k1 of an N1 x N2 scratch matrix.
// Pass B: per row k1: FFT_N2 (now X[k1 + N1 k2] sits at column k2), x the filter in that order, conj,
//         FFT_N2 again and x W_N^(b k1): the first half of the inverse FFT of the same decomposition
//         read backwards (k as the input index, n = N2 a + b as the output).
// Pass C: the N1-point DFT down each column b, conj: y[N2 a + b], natural order.
// Three passes over the scratch instead of one, but every access is coalesced and every FFT on chip.

namespace {

template <int N1, SampleType S>
__global__ void four_step_columns_in_kernel(const void* __restrict__ raw, int lines, int nr, int n2,
                                            const float2* __restrict__ tw_n, float2* __restrict__ scratch) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * n2) return;
  const int line = static_cast<int>(i / n2), c = static_cast<int>(i % n2);
  C32 x[N1];
#pragma unroll
  for (int r = 0; r < N1; ++r) {
    const int col = r * n2 + c;
    x[r] = col < nr ? steps::load_raw<S>(raw, static_cast<std::size_t>(line) * nr + col) : C32{0.f, 0.f};
  }
  fft::dft<N1>(x);
  float2* dst = scratch + static_cast<std::size_t>(line) * N1 * n2 + c;
#pragma unroll
  for (int k1 = 0; k1 < N1; ++k1)
    dst[static_cast<std::size_t>(k1) * n2] = fft::to_float2(x[k1] * fft::to_c32(__ldg(tw_n + c * k1)));
}

template <int N>
__global__ void __launch_bounds__(fused_block_threads<N, true>, fused_min_blocks<N, true>)
    four_step_rows_kernel(float2* __restrict__ scratch, int rows, int n1, const float2* __restrict__ filter,
                          const float2* __restrict__ tw, const float2* __restrict__ tw_n) {
  extern __shared__ __align__(32) C32 smem[];  // 32 bytes: tensor-core loads
  constexpr int E = fused_elems<N, true>, T = N / E;  // whole rows (a padding group loads zeros)
  const FusedSlot<N, true> slot(smem, rows);
  const int tid = slot.tid, row = slot.line, k1 = row % n1;
  const bool active = slot.active;
  float2* line = scratch + static_cast<std::size_t>(active ? row : 0) * N;
  C32 v[E];
#pragma unroll
  for (int q = 0; q < E; ++q) v[q] = active ? fft::to_c32(line[tid + q * T]) : C32{0.f, 0.f};
  steps::Fp32Butterflies::forward<N, E, FusedExchange<N, true>>(v, slot.s, tw, tid);
  steps::multiply_by_filter<N>(v, filter + static_cast<std::size_t>(k1) * N, tid);
  steps::conjugate(v);
  steps::Fp32Butterflies::forward<N, E, FusedSecondExchange<N, true>>(v, slot.s, tw, tid);
  if (!active) return;
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const int b = tid + q * T;
    line[b] = fft::to_float2(v[q] * fft::to_c32(__ldg(tw_n + b * k1)));
  }
}

template <int N1>
__global__ void four_step_columns_out_kernel(const float2* __restrict__ scratch, int lines, int n2,
                                             float2* __restrict__ out, int out_cols, int out_pitch) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * n2) return;
  const int line = static_cast<int>(i / n2), b = static_cast<int>(i % n2);
  const float2* src = scratch + static_cast<std::size_t>(line) * N1 * n2 + b;
  C32 x[N1];
#pragma unroll
  for (int k1 = 0; k1 < N1; ++k1) x[k1] = fft::to_c32(src[static_cast<std::size_t>(k1) * n2]);
  fft::dft<N1>(x);
#pragma unroll
  for (int a = 0; a < N1; ++a) {
    const int col = a * n2 + b;
    if (col < out_cols) out[static_cast<std::size_t>(line) * out_pitch + col] = fft::to_float2(fft::conj(x[a]));
  }
}

unsigned blocks_for(std::size_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

template <class F>
void dispatch_column_radix(int n1, F&& f) {
  switch (n1) {
    case 2: f.template operator()<2>(); break;
    case 4: f.template operator()<4>(); break;
    case 8: f.template operator()<8>(); break;
    case 16: f.template operator()<16>(); break;
    default: throw Error("four-step FFT: column length " + std::to_string(n1) + " is not 2, 4, 8 or 16");
  }
}
}  // namespace

void launch_four_step_columns_in(int n1, int n2, SampleType type, const void* raw, int lines, int nr,
                                 const float2* tw_n, float2* scratch, cudaStream_t stream) {
  dispatch_column_radix(n1, [&]<int N1>() {
    steps::dispatch_type(type, [&]<SampleType S>() {
      four_step_columns_in_kernel<N1, S><<<blocks_for(static_cast<std::size_t>(lines) * n2, 256), 256, 0, stream>>>(
          raw, lines, nr, n2, tw_n, scratch);
      SARFUSE_LAUNCHED("four_step_columns_in");
    });
  });
}

void launch_four_step_rows(int n1, int n2, float2* scratch, int lines, const float2* filter, const float2* tw_n2,
                           const float2* tw_n, cudaStream_t stream) {
  steps::dispatch_size(n2, [&]<int N>() {
    constexpr int E = fused_elems<N, true>, L = fused_lines<N, true>;
    steps::set_smem<N, FusedExchange<N, true>::buffers, E, L>(reinterpret_cast<const void*>(&four_step_rows_kernel<N>));
    const int rows = lines * n1;
    four_step_rows_kernel<N>
        <<<steps::grid_for<N, E, L>(rows), steps::block_for<N, E, L>(), FusedSlot<N, true>::smem_bytes, stream>>>(
        scratch, rows, n1, filter, tw_n2, tw_n);
    SARFUSE_LAUNCHED("four_step_rows");
  });
}

void launch_four_step_columns_out(int n1, int n2, const float2* scratch, int lines, float2* out, int out_cols,
                                  int out_pitch, cudaStream_t stream) {
  dispatch_column_radix(n1, [&]<int N1>() {
    four_step_columns_out_kernel<N1><<<blocks_for(static_cast<std::size_t>(lines) * n2, 256), 256, 0, stream>>>(
        scratch, lines, n2, out, out_cols, out_pitch);
    SARFUSE_LAUNCHED("four_step_columns_out");
  });
}

}  // namespace sarfuse::cuda
