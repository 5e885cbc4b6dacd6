// The project's own FFT kernels' launchers: fused range compression, the four-step path for long lines,
// and the cufft-unfused baseline's separate passes (the chain's passes 1 and 3: range_spectrum.cu,
// range_doppler_rows.cu, range_half.cu; the kernel templates: row_kernels.cuh).
#include "cuda/row_kernels.cuh"

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
  dispatch_size(nfft, [&]<int N>() {
    dispatch_type(type, [&]<SampleType S>() {
      const void* k = reinterpret_cast<const void*>(&range_kernel<N, S, true>);
      set_smem<N>(k);
      range_kernel<N, S, true><<<grid_for<N>(lines), block_for<N>(), BlockShape<N>::smem_bytes, stream>>>(
          raw, lines, nr, filter, tw, out, out_cols, out_pitch);
      SARFUSE_LAUNCHED("range_compress_fused");
    });
  });
}

// ---- the cufft-unfused baseline's separate passes ----

namespace {

template <SampleType S>
__global__ void convert_pad_kernel(const void* __restrict__ raw, int lines, int nr, float2* __restrict__ out, int nfft) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * nfft) return;
  const int line = static_cast<int>(i / nfft), col = static_cast<int>(i % nfft);
  out[i] = col < nr ? to_float2(load_raw<S>(raw, static_cast<std::size_t>(line) * nr + col)) : make_float2(0.f, 0.f);
}

__global__ void multiply_rows_kernel(float2* __restrict__ data, int lines, int n, int pitch,
                                     const float2* __restrict__ filter) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * n) return;
  const std::size_t line = i / n, col = i % n;
  float2* p = data + line * pitch + col;
  *p = to_float2(to_c32(*p) * to_c32(__ldg(filter + col)));
}

__global__ void src_multiply_kernel(float2* __restrict__ data, int lines, int nfft, const core::DopplerRow* rows,
                                    double df, float scale) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * nfft) return;
  const int k = static_cast<int>(i / nfft), m = static_cast<int>(i % nfft);
  const double q = rows[k].src_inverse_rate;
  if (q != 0.0) data[i] = to_float2(fft::scale(to_c32(data[i]) * src_factor(m, nfft, q, df), scale));
  else if (scale != 1.f) data[i] = to_float2(fft::scale(to_c32(data[i]), scale));
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
    return to_c32(__ldg(line + m));
  };
  out[i] = to_float2(rcmc_sample(row_at, core::fixed_position(row.rcmc_offset + row.rcmc_slope * c), sinc));
}

__global__ void azimuth_filter_kernel(float2* __restrict__ data, int lines, int nr,
                                      const core::DopplerRow* __restrict__ rows, AzimuthBandView band) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<std::size_t>(lines) * nr) return;
  const int k = static_cast<int>(i / nr), c = static_cast<int>(i % nr);
  const core::DopplerRow& row = rows[k];
  const C32 ph = fft::scale(unit_phasor(row.az_phase0 + row.az_phase_step * c), band_weight(row, c, band));
  data[i] = to_float2(row.weight != 0.0 ? to_c32(data[i]) * ph : C32{0.f, 0.f});
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
  dispatch_type(type, [&]<SampleType S>() {
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

namespace {
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
    dispatch_type(type, [&]<SampleType S>() {
      four_step_columns_in_kernel<N1, S><<<blocks_for(static_cast<std::size_t>(lines) * n2, 256), 256, 0, stream>>>(
          raw, lines, nr, n2, tw_n, scratch);
      SARFUSE_LAUNCHED("four_step_columns_in");
    });
  });
}

void launch_four_step_rows(int n1, int n2, float2* scratch, int lines, const float2* filter, const float2* tw_n2,
                           const float2* tw_n, cudaStream_t stream) {
  dispatch_size(n2, [&]<int N>() {
    set_smem<N>(reinterpret_cast<const void*>(&four_step_rows_kernel<N>));
    const int rows = lines * n1;
    four_step_rows_kernel<N><<<grid_for<N>(rows), block_for<N>(), BlockShape<N>::smem_bytes, stream>>>(
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
