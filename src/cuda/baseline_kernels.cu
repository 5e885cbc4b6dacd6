// The cufft-unfused baseline's passes between its cuFFT calls, one element per thread: convert and pad,
// x filter, x SRC, RCMC, x azimuth filter, transpose. The same device steps (cuda/steps/) as the fused
// passes, so both compute the same arithmetic.
#include <cuda_runtime.h>

#include "core/filters.hpp"
#include "cuda/check.hpp"
#include "cuda/fft/block_fft.cuh"
#include "cuda/kernels.hpp"
#include "cuda/steps/azimuth_filter.cuh"
#include "cuda/steps/dispatch.cuh"
#include "cuda/steps/load_line.cuh"
#include "cuda/steps/phasors.cuh"
#include "cuda/steps/range_migration.cuh"
#include "cuda/steps/secondary_range_compression.cuh"

namespace sarfuse::cuda {

using fft::C32;

namespace {

template <SampleType S>
__global__ void convert_pad_kernel(const void* __restrict__ raw, int lines, int nr, float2* __restrict__ out, int nfft) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * nfft) return;
  const int line = static_cast<int>(i / nfft), col = static_cast<int>(i % nfft);
  out[i] = col < nr ? fft::to_float2(steps::load_raw<S>(raw, static_cast<std::size_t>(line) * nr + col)) : make_float2(0.f, 0.f);
}

__global__ void multiply_rows_kernel(float2* __restrict__ data, int lines, int n, int pitch,
                                     const float2* __restrict__ filter) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * n) return;
  const std::size_t line = i / n, col = i % n;
  float2* p = data + line * pitch + col;
  *p = fft::to_float2(fft::to_c32(*p) * fft::to_c32(__ldg(filter + col)));
}

__global__ void src_multiply_kernel(float2* __restrict__ data, int lines, int nfft, const core::DopplerRow* rows,
                                    double df, float scale) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * nfft) return;
  const int k = static_cast<int>(i / nfft), m = static_cast<int>(i % nfft);
  const double q = rows[k].src_inverse_rate;
  if (q != 0.0) data[i] = fft::to_float2(fft::scale(fft::to_c32(data[i]) * steps::src_factor(m, nfft, q, df), scale));
  else if (scale != 1.f) data[i] = fft::to_float2(fft::scale(fft::to_c32(data[i]), scale));
}

__global__ void rcmc_kernel(const float2* __restrict__ in, int in_pitch, int in_cols, float2* __restrict__ out,
                            int lines, int nr, const core::DopplerRow* __restrict__ rows, SincTableView sinc) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * nr) return;
  const int k = static_cast<int>(i / nr), c = static_cast<int>(i % nr);
  const core::DopplerRow& row = rows[k];
  const float2* line = in + static_cast<std::size_t>(k) * in_pitch;
  auto row_at = [line, in_cols](int idx) {
    int m = idx % in_cols;
    if (m < 0) m += in_cols;
    return fft::to_c32(__ldg(line + m));
  };
  out[i] = fft::to_float2(steps::rcmc_sample(row_at, core::fixed_position(row.rcmc_offset + row.rcmc_slope * c), sinc));
}

__global__ void azimuth_filter_kernel(float2* __restrict__ data, int lines, int nr,
                                      const core::DopplerRow* __restrict__ rows, AzimuthBandView band) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * nr) return;
  const int k = static_cast<int>(i / nr), c = static_cast<int>(i % nr);
  const core::DopplerRow& row = rows[k];
  const C32 ph = fft::scale(steps::unit_phasor(row.az_phase0 + row.az_phase_step * c), steps::band_weight(row, c, band));
  data[i] = fft::to_float2(row.weight != 0.0 ? fft::to_c32(data[i]) * ph : C32{0.f, 0.f});
}

constexpr int kTile = 32;

__global__ void transpose_kernel(const float2* __restrict__ in, int rows, int cols, int in_pitch,
                                 float2* __restrict__ out, int out_pitch) {
  __shared__ float2 tile[kTile][kTile + 1];  // +1: column reads spread over the banks
  const int c0 = blockIdx.x * kTile, r0 = blockIdx.y * kTile;
  for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
    const int r = r0 + y, c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[y][threadIdx.x] = in[static_cast<std::size_t>(r) * in_pitch + c];
  }
  __syncthreads();
  for (int y = threadIdx.y; y < kTile; y += blockDim.y) {
    const int c = c0 + y, r = r0 + threadIdx.x;
    if (r < rows && c < cols) out[static_cast<std::size_t>(c) * out_pitch + r] = tile[threadIdx.x][y];
  }
}

unsigned blocks_for(std::size_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace

void launch_transpose(const float2* in, int rows, int cols, int in_pitch, float2* out, int out_pitch,
                      cudaStream_t stream) {
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, dim3(kTile, 8), 0, stream>>>(in, rows, cols, in_pitch, out, out_pitch);
  SARFUSE_LAUNCHED("transpose");
}

void launch_convert_pad(SampleType type, const void* raw, int lines, int nr, float2* out, int nfft,
                        cudaStream_t stream) {
  steps::dispatch_type(type, [&]<SampleType S>() {
    convert_pad_kernel<S><<<blocks_for(static_cast<std::size_t>(lines) * nfft, 256), 256, 0, stream>>>(raw, lines, nr,
                                                                                                      out, nfft);
    SARFUSE_LAUNCHED("convert_pad");
  });
}

void launch_multiply_rows(float2* data, int lines, int n, int pitch, const float2* filter, cudaStream_t stream) {
  multiply_rows_kernel<<<blocks_for(static_cast<std::size_t>(lines) * n, 256), 256, 0, stream>>>(data, lines, n, pitch,
                                                                                                filter);
  SARFUSE_LAUNCHED("multiply_rows");
}

void launch_src_multiply(float2* data, int lines, int nfft, const core::DopplerRow* rows, double df, float scale,
                         cudaStream_t stream) {
  src_multiply_kernel<<<blocks_for(static_cast<std::size_t>(lines) * nfft, 256), 256, 0, stream>>>(data, lines, nfft,
                                                                                                  rows, df, scale);
  SARFUSE_LAUNCHED("src_multiply");
}

void launch_rcmc(const float2* in, int in_pitch, int in_cols, float2* out, int lines, int nr,
                 const core::DopplerRow* rows, SincTableView sinc, cudaStream_t stream) {
  rcmc_kernel<<<blocks_for(static_cast<std::size_t>(lines) * nr, 256), 256, 0, stream>>>(
      in, in_pitch, in_cols, out, lines, nr, rows, sinc);
  SARFUSE_LAUNCHED("rcmc");
}

void launch_azimuth_filter(float2* data, int lines, int nr, const core::DopplerRow* rows, AzimuthBandView band,
                           cudaStream_t stream) {
  azimuth_filter_kernel<<<blocks_for(static_cast<std::size_t>(lines) * nr, 256), 256, 0, stream>>>(data, lines, nr,
                                                                                                  rows, band);
  SARFUSE_LAUNCHED("azimuth_filter");
}

}  // namespace sarfuse::cuda
