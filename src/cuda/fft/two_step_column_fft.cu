// The azimuth FFT of a large scene in two column passes (declared in cuda/kernels.hpp). A strided FFT of
// 8192+ points runs at a fifth to a third of the copy rate (cuFFT's, and our column-tile kernel's, which
// fits four 4096-point columns on a SM); split as lines = R x m (R = 16 or 32), each pass reads and
// writes the scene once with wide, coalesced rows:
//   the R-point pass:  one thread per (column, n2), its R rows m apart in registers, a warp on 32
//                      adjacent columns (256 bytes a row), the twiddles exp(-+2 pi i n2 k1 / lines)
//                      read from the table (each one product: no chained rounding);
//   the m-point pass:  the column-tile kernel (column_fft.cu) on the R groups of m consecutive rows,
//                      several adjacent columns a block since m = lines / 16 <= 4096.
// The output is left in the order the two passes make (see kernels.hpp), so no third pass sorts it; in
// the RDA at radix 16, pass 1 makes the forward's R-point step and the m-point pass reads or writes its
// rows R apart, so the spectrum is in natural order at no extra pass (launch_two_step_column_pass).
#include <cuda_runtime.h>

#include <string>

#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/kernels.hpp"
#include "sarfuse/error.hpp"

namespace sarfuse::cuda {

namespace {

using fft::C32;
constexpr int kThreads = 256;

// Forward: rows n1 m + n2 -> R-point DFT over n1 -> x W^(n2 k1) -> rows k1 m + n2.
// Inverse: rows k1 m + n2 -> x conj(W^(n2 k1)) -> inverse DFT over k1 -> rows n1 m + n2.
// In place allowed: every output of a thread depends on all R of its inputs, read first.
template <int R, bool Inverse>
__global__ void __launch_bounds__(kThreads) radix_columns_kernel(const float2* in, int in_pitch, float2* out,
                                                                  int out_pitch, int cols, int m,
                                                                  const float2* __restrict__ tw) {
  const int col = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  const int n2 = static_cast<int>(blockIdx.y);
  if (col >= cols) return;
  C32 x[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const C32 a = fft::to_c32(in[(static_cast<std::size_t>(r) * m + n2) * in_pitch + col]);
    if constexpr (Inverse) {  // conj(a x conj(w)) = conj(a) x w: the conjugated input of the forward DFT
      x[r] = r == 0 ? fft::conj(a) : fft::conj(a) * fft::to_c32(__ldg(tw + n2 * r));
    } else {
      x[r] = a;
    }
  }
  fft::dft<R>(x);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    C32 y = x[r];
    if constexpr (Inverse) y = fft::conj(y);
    else if (r > 0) y = y * fft::to_c32(__ldg(tw + n2 * r));
    out[(static_cast<std::size_t>(r) * m + n2) * out_pitch + col] = fft::to_float2(y);
  }
}

template <int R>
void launch_radix_columns(bool inverse, const float2* in, int in_pitch, float2* out, int out_pitch, int cols, int m,
                          const float2* tw, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((cols + kThreads - 1) / kThreads), static_cast<unsigned>(m));
  if (inverse)
    radix_columns_kernel<R, true><<<grid, kThreads, 0, stream>>>(in, in_pitch, out, out_pitch, cols, m, tw);
  else
    radix_columns_kernel<R, false><<<grid, kThreads, 0, stream>>>(in, in_pitch, out, out_pitch, cols, m, tw);
  SARFUSE_LAUNCHED("radix_columns");
}

// 16 or 32 rows to a register DFT: the longer one leaves the column pass shorter columns (more of them
// a block), which ran faster (docs/performance.md).
// Odd column lengths (m = lines / 16 = 3^b 5^c) keep 16.
int two_step_radix(int lines) { return fft::is_pow2(lines) && lines >= kTwoStepRadix32Lines ? 32 : 16; }

std::string odd_lengths_text() {
  std::string t;
  for (int m : fft::kOddColumnSizes) t += (t.empty() ? "" : ", ") + std::to_string(m);
  return t;
}

int check_natural_order(int lines, const float2* in, const float2* out, const char* what) {
  if (!two_step_column_fft_supports(lines) || two_step_radix(lines) != kAzimuthFirstStepRadix)
    throw Error(std::string(what) + ": lines must be 4096 (16 x 256) or 16 x one of " +
                odd_lengths_text() + ", not " + std::to_string(lines));
  if (in == out) throw Error(std::string(what) + ": out of place only (one side's rows interleave the groups)");
  return lines / kAzimuthFirstStepRadix;
}

// The m-point pass's threads a block. Powers of two, 16 points a thread: 256 threads, two blocks a SM,
// up to m = 1024 (64-88 % of the copy rate; 512 threads, one block: 58-81 %), 512 above (m = 2048: 54 %
// against 36 %). Odd m, 15 points a thread: 512 (four 1875-point columns a block; docs/performance.md).
int part_threads_for(int m) { return !fft::is_pow2(m) ? 512 : m <= 1024 ? 256 : 512; }
// With the spectrum in natural order the odd-m pass reads or writes rows 16 apart: 1024 threads (eight
// columns, 64 bytes a row) took the inverse's column pass from 1.90 to 1.41 ms at 30000 x 6250 on an
// H200 (docs/performance.md, stop 53); the forward's, 2.18 -> 1.90 ms on an H100 (stop 54).
int natural_part_threads_for(int m) { return !fft::is_pow2(m) ? 1024 : part_threads_for(m); }

}  // namespace

bool two_step_column_fft_supports(int lines) {
  const int r = two_step_radix(lines), m = lines / r;
  return lines % r == 0 && ((column_fft_supports(m) && m <= 4096) || odd_column_fft_supports(m));
}

int two_step_part_lines(int lines) { return lines / two_step_radix(lines); }

int two_step_spectrum_bin(int row, int lines) {
  const int r = two_step_radix(lines), m = lines / r;
  return row / m + r * (row % m);
}

void launch_two_step_column_fft(int lines, const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                                bool inverse, const float2* twiddles, const float2* part_twiddles, cudaStream_t stream,
                                int part_threads) {
  if (!two_step_column_fft_supports(lines))
    throw Error("two-step column FFT: lines must be 16 or 32 x a power of two in 256..4096, or 16 x one of " +
                odd_lengths_text() + ", not " + std::to_string(lines));
  const int radix = two_step_radix(lines), m = lines / radix;
  const int threads = part_threads != 0 ? part_threads : part_threads_for(m);
  auto register_pass = [&](bool inv, const float2* src, int src_pitch) {
    if (radix == 32) launch_radix_columns<32>(inv, src, src_pitch, out, out_pitch, cols, m, twiddles, stream);
    else launch_radix_columns<16>(inv, src, src_pitch, out, out_pitch, cols, m, twiddles, stream);
  };
  // The first pass goes from `in` to `out`, the second works in place on `out`.
  if (!inverse) {
    register_pass(false, in, in_pitch);
    launch_column_fft(m, threads, out, out_pitch, out, out_pitch, cols, false, part_twiddles, stream, ColumnScaling{},
                      radix);
  } else {
    launch_column_fft(m, threads, in, in_pitch, out, out_pitch, cols, true, part_twiddles, stream, ColumnScaling{},
                      radix);
    register_pass(true, out, out_pitch);
  }
}

void launch_two_step_column_pass(int lines, const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                                 const float2* part_twiddles, cudaStream_t stream) {
  const int m = check_natural_order(lines, in, out, "two-step column pass");
  ColumnScaling natural;
  natural.out_interleave = kAzimuthFirstStepRadix;
  launch_column_fft(m, natural_part_threads_for(m), in, in_pitch, out, out_pitch, cols, false, part_twiddles, stream, natural,
                    kAzimuthFirstStepRadix);
}

void launch_two_step_inverse_from_natural(int lines, const float2* in, int in_pitch, float2* scratch, int scratch_pitch,
                                          float2* out, int out_pitch, int cols, const float2* twiddles,
                                          const float2* part_twiddles, cudaStream_t stream) {
  const int m = check_natural_order(lines, in, scratch, "two-step inverse from natural order");
  if (scratch == out) throw Error("two-step inverse from natural order: the scratch must not be the output");
  if (scratch_pitch % 4 != 0 || scratch_pitch < cols)
    throw Error("two-step inverse from natural order: the scratch pitch must be a multiple of 4 and at least the " +
                std::to_string(cols) + " columns, not " + std::to_string(scratch_pitch));
  ColumnScaling natural;
  natural.in_interleave = kAzimuthFirstStepRadix;
  launch_column_fft(m, natural_part_threads_for(m), in, in_pitch, scratch, scratch_pitch, cols, true, part_twiddles,
                    stream, natural, kAzimuthFirstStepRadix);
  launch_radix_columns<kAzimuthFirstStepRadix>(true, scratch, scratch_pitch, out, out_pitch, cols, m, twiddles, stream);
}

}  // namespace sarfuse::cuda
