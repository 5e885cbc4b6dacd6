// Host-side launchers of the CUDA kernels (defined in the .cu files beside this). All take a stream,
// check the launch, and never synchronise.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include <vector>

#include "core/filters.hpp"
#include "sarfuse/image.hpp"

namespace sarfuse::cuda {

// Range FFT sizes the project's own kernels cover in one thread block: powers of two 256..16384; the
// FP32 chain's passes 1 and 3 (launch_range_spectrum, launch_range_doppler_rows) also the nice lengths
// 2^a x {3, 5, 9, 15} of fft_math.hpp (kNiceRowSizes).
bool own_fft_supports(int n);
bool own_row_fft_supports(int n);
// The twiddle table the FFT kernels of size n read: exp(-2 pi i k / n), computed in float64.
std::vector<float2> fft_twiddle_table(int n);

// Fused range compression, one kernel: per line load (converting integer I/Q), zero-pad to nfft,
// FFT, x filter, IFFT (conj-FFT-conj; the filter carries 1/nfft), store the first out_cols columns.
void launch_range_compress_fused(int nfft, SampleType type, const void* raw, int lines, int nr,
                                 const float2* filter, const float2* twiddles, float2* out, int out_cols,
                                 int out_pitch, cudaStream_t stream);

// Four-step range compression of lines of N = n1 x n2 points (n1 in 2..16, n2 a one-block size), three
// passes over `scratch` (lines x N): see range_compress_kernels.cu. `filter` is n1 rows of n2 (the filter
// permuted: row k1, column k2 holds H[k1 + n1 k2]); tw_n the table for N, tw_n2 the one for n2.
void launch_four_step_columns_in(int n1, int n2, SampleType type, const void* raw, int lines, int nr,
                                 const float2* tw_n, float2* scratch, cudaStream_t stream);
void launch_four_step_rows(int n1, int n2, float2* scratch, int lines, const float2* filter, const float2* tw_n2,
                           const float2* tw_n, cudaStream_t stream);
void launch_four_step_columns_out(int n1, int n2, const float2* scratch, int lines, float2* out, int out_cols,
                                  int out_pitch, cudaStream_t stream);

// Pass 1 of the RDA: per line load, zero-pad, FFT, x range matched filter; the spectrum (nfft
// columns) goes to `out` with row pitch nfft.
// tensor (--precision tf32x3): the radix-16 butterflies on the tensor cores in 3xTF32 (power-of-two
// nfft >= 512); also for launch_range_doppler_rows.
void launch_range_spectrum(int nfft, SampleType type, const void* raw, int lines, int nr, const float2* filter,
                           const float2* twiddles, float2* out, cudaStream_t stream, bool tensor = false);
// Pass 1 with the two-step azimuth FFT's first step folded in (FP32 butterflies; lines = 16 m, the
// two-step FFT at radix 16): the spectrum x H leaves as launch_two_step_column_fft's 16-point step leaves
// it, so the forward azimuth FFT is launch_two_step_column_pass alone. One cluster of 16 blocks per 16
// lines m apart, exchanging through distributed shared memory. az_twiddles: fft_twiddle_table(lines).
constexpr int kAzimuthFirstStepRadix = 16;
// Whether a cluster of 16 of that pass's blocks fits on the current device (a non-portable cluster
// size: the GPU's partitioning decides).
bool range_spectrum_first_step_fits(int nfft);
void launch_range_spectrum_first_step(int nfft, SampleType type, const void* raw, int lines, int nr,
                                      const float2* filter, const float2* twiddles, const float2* az_twiddles,
                                      float2* out, cudaStream_t stream);

// Pass 3 of the RDA, one kernel per Doppler row held on chip: x SRC, range IFFT, RCMC (windowed
// sinc from shared memory), x azimuth filter; writes the first nr columns of the row in place.
struct SincTableView {
  const float* weights;  // core::sinc_table_fp32: quad-major, 16-byte aligned
  int taps, fractions;
  float abs_sum_max;  // the largest sum of |weights| over the rows: bounds an interpolated value's gain
};
// The azimuth filter's weight when the processed band moves with range (core::AzimuthFilter):
// weight(row, c) = window_lerp(row.band_x - column_shift[c]) * inv_lines. column_shift null: row.weight.
struct AzimuthBandView {
  const float* column_shift;
  const float* window;  // intervals + 1 samples over [-1/2, 1/2]
  int intervals;
  float inv_lines;
  float window_max;  // the largest |window| sample: weight(row, c) <= window_max * inv_lines
};
void launch_range_doppler_rows(int nfft, float2* work, int lines, int nr, const core::DopplerRow* rows,
                               double range_bin_hz, SincTableView sinc, AzimuthBandView band,
                               const float2* twiddles, cudaStream_t stream, bool tensor = false);

// ---- FP16 storage between the passes (--precision fp16-storage; cuda/fft/storage.hpp) ----
// Pass 1 and pass 3 hold a whole line on chip, so each stores its line times its own power of two
// (pass 1: the line's largest component -> kHalfStorageTarget; pass 3: a bound on its outputs, see
// range_doppler_kernel) and writes what undoes it to row_factor[line];
// pass 1 also records the largest component of the whole spectrum (true units) in *max_bits (a
// non-negative float's bits, atomicMax), which bounds pass 2's output: an N-point FFT grows a
// component by at most N sqrt(2). Pass 2 and pass 4 (column_fft) read the row factors.
struct ColumnScaling {
  const float* in_row_factor = nullptr;  // multiplies the loaded elements of row i; null: 1
  const unsigned* out_bound = nullptr;   // null: outputs unscaled; else x half_storage_scale(out_gain * bound)
  float out_gain = 1.0f;
  // Four-step FFTs: output row k, column c times exp(i twiddle_sign 2 pi (k c mod twiddle_n) / twiddle_n);
  // 0: none.
  int twiddle_n = 0;
  float twiddle_sign = -1.0f;
  bool half_math = false;  // FP16 input: the butterflies in FP16 arithmetic (--precision fp16)
  // groups > 1: 0, group g's rows lie at g lines + r; R, at r R + g (the two-step FFT's column pass
  // leaving, or taking, the spectrum in natural order).
  int in_interleave = 0;
  int out_interleave = 0;
};

// Batched FFTs down `cols` columns of a row-major array of `lines` rows (a power of two 256..16384),
// row pitches in elements, in place allowed, unnormalised; `threads` per block: 512 or 1024 (the
// planner times both), or for complex64 up to 4096 lines 256 (two blocks a SM: the two-step FFT's
// column pass); twiddles: fft_twiddle_table(lines). groups > 1: as many such arrays one after
// another (group g's row r is row g lines + r).
// Also (complex64 only) the odd lengths 3^b 5^c of fft_math.hpp's kOddColumnSizes, the two-step FFT's
// column pass at 30000 = 16 x 1875 lines and the like: odd_column_fft_supports.
bool column_fft_supports(int lines);
bool odd_column_fft_supports(int lines);
void launch_column_fft(int lines, int threads, const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                       bool inverse, const float2* twiddles, cudaStream_t stream,
                       const ColumnScaling& scaling = ColumnScaling{}, int groups = 1);
// The azimuth FFT in two column passes near the copy rate instead of one strided FFT of `lines` points
// (cuda/fft/two_step_column_fft.cu). With lines = R m (R = 16, or 32 from kTwoStepRadix32Lines lines;
// m a power of two 256..4096, or R = 16 and m an odd column length: 30000 = 16 x 1875) and x[n] at row
// n = n1 m + n2:
//   forward: R-point DFTs down rows n2, n2 + m, .. (x exp(-2 pi i n2 k1 / lines)) into rows k1 m + n2,
//            then m-point column FFTs of each group of m rows: X[k1 + R k2] lands at row k1 m + k2;
//   inverse: the same steps in reverse order, from that order back to natural order.
// The spectrum's rows are therefore permuted (two_step_spectrum_bin); a pass between the two that
// treats each row by its Doppler bin only needs its table permuted alike. twiddles: fft_twiddle_table
// (lines); part_twiddles: fft_twiddle_table(two_step_part_lines(lines)). In place allowed.
// part_threads: the m-point pass's threads a block (256, 512 or 1024; 0: the measured default).
constexpr int kTwoStepRadix32Lines = 8192;
bool two_step_column_fft_supports(int lines);
int two_step_spectrum_bin(int row, int lines);  // the frequency bin the forward leaves at `row`
int two_step_part_lines(int lines);              // m: the column pass's length
void launch_two_step_column_fft(int lines, const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                                bool inverse, const float2* twiddles, const float2* part_twiddles, cudaStream_t stream,
                                int part_threads = 0);
// The RDA's two-step FFT with the spectrum in natural order (R = 16), so pass 3 reads Doppler rows
// in place and in order:
//   forward, the column pass alone (pass 1 made the R-point step, launch_range_spectrum_first_step):
//            rows k1 m + n2 -> m-point FFT over n2 -> X[k1 + R k2] at row k1 + R k2 of `out`;
//   inverse, X[k1 + R k2] at row k1 + R k2 of `in` -> m-point inverse FFT over k2 into rows k1 m + k2
//            of `scratch` (pitch a multiple of 4: 32-byte rows whatever the output's pitch) -> the R-point
//            step from `scratch` into `out` -> natural order; `out` is written once and never read.
// Out of place only (one side's rows interleave the groups).
void launch_two_step_column_pass(int lines, const float2* in, int in_pitch, float2* out, int out_pitch, int cols,
                                 const float2* part_twiddles, cudaStream_t stream);
inline int natural_scratch_pitch(int cols) { return (cols + 3) / 4 * 4; }
void launch_two_step_inverse_from_natural(int lines, const float2* in, int in_pitch, float2* scratch, int scratch_pitch,
                                          float2* out, int out_pitch, int cols, const float2* twiddles,
                                          const float2* part_twiddles, cudaStream_t stream);
void launch_column_fft(int lines, int threads, const __half2* in, int in_pitch, __half2* out, int out_pitch, int cols,
                       bool inverse, const ColumnScaling& scaling, const float2* twiddles, cudaStream_t stream);
void launch_column_fft(int lines, int threads, const __half2* in, int in_pitch, float2* out, int out_pitch, int cols,
                       bool inverse, const ColumnScaling& scaling, const float2* twiddles, cudaStream_t stream);

// Contiguous n-point FFTs (powers of two 64..16384) of FP16 rows in and out with FP32 butterflies (the
// block FFT of the fused kernels, 16 points per thread), unscaled: N sqrt(2) max|x| must stay below
// 65504. What FP16 storage buys a bare FFT pass (`sarfuse bench fft`); unnormalised like cuFFT.
void launch_row_fft_fp16_storage(int n, const __half2* in, __half2* out, int batch, bool inverse,
                                 const float2* twiddles, cudaStream_t stream);

// Pass 1 into FP16: as launch_range_spectrum; row_factor[line] = 1 / the line's scale.
// half_math: the FFT's butterflies in FP16 arithmetic (--precision fp16), else FP32.
void launch_range_spectrum_half(int nfft, SampleType type, const void* raw, int lines, int nr, const float2* filter,
                                const float2* twiddles, __half2* out, float* row_factor, unsigned* max_bits,
                                bool half_math, cudaStream_t stream);
// Pass 3 on FP16 rows (pitch nfft, in place): the input carries half_storage_scale(lines x pass 1's
// bound) from pass 2; the output line is stored with its own scale, row_factor[k] = 1 / it.
void launch_range_doppler_rows_half(int nfft, __half2* work, int lines, int nr, const core::DopplerRow* rows,
                                    double range_bin_hz, SincTableView sinc, AzimuthBandView band,
                                    const float2* twiddles, const unsigned* spectrum_max_bits, float* row_factor,
                                    bool half_math, cudaStream_t stream);

// out (cols x rows, row pitch out_pitch) = transpose of in (rows x cols, row pitch in_pitch); 32 x 32
// tiles through shared memory, both sides coalesced.
void launch_transpose(const float2* in, int rows, int cols, int in_pitch, float2* out, int out_pitch,
                      cudaStream_t stream);

// A batched row-FFT plan (batch lines of n points, contiguous) whose store multiplies by `filter`
// (n coefficients) through a cuFFT LTO callback; `info` is device memory for the callback's
// arguments (two 8-byte words), owned by the caller.
cufftHandle make_filter_callback_plan(int n, int batch, const float2* filter, void* info, cudaStream_t stream);

// Building blocks of the cufft-unfused baseline: each a separate pass over memory.
void launch_convert_pad(SampleType type, const void* raw, int lines, int nr, float2* out, int nfft,
                        cudaStream_t stream);
void launch_multiply_rows(float2* data, int lines, int n, int pitch, const float2* filter, cudaStream_t stream);

// Rows [first, first + count) of `slc` (lines x cols, row pitch cols), wrapping past the last row to
// row 0, as IEEE half pairs rounded to nearest even (the bits of the product writers' conversion),
// packed in order into `out` (count x cols).
void launch_rows_to_half(const float2* slc, int lines, int cols, int first, int count, __half2* out,
                         cudaStream_t stream);
// x SRC x scale on the range spectrum of every Doppler row.
void launch_src_multiply(float2* data, int lines, int nfft, const core::DopplerRow* rows, double range_bin_hz,
                         float scale, cudaStream_t stream);
void launch_rcmc(const float2* in, int in_pitch, int in_cols, float2* out, int lines, int nr,
                 const core::DopplerRow* rows, SincTableView sinc, cudaStream_t stream);
void launch_azimuth_filter(float2* data, int lines, int nr, const core::DopplerRow* rows, AzimuthBandView band,
                           cudaStream_t stream);

}  // namespace sarfuse::cuda
