// CUDA Range-Doppler chain. Fused pipeline, four passes over the scene in device memory:
//   1. range_spectrum (own kernel): load raw (integer I/Q converted in the load), zero-pad, FFT, x H_r
//   2. azimuth FFT of the nfft columns (cuFFT, strided, in place)
//   3. range_doppler_rows (own kernel, one row on chip): x SRC, IFFT, RCMC, x azimuth filter
//   4. azimuth IFFT of the Nr kept columns (cuFFT, strided) into the SLC
// The cufft-unfused pipeline runs the same mathematics as separate cuFFT calls and kernels; cufft-callback
// fuses the range filter multiply into cuFFT's store; vkfft-conv does range compression by VkFFT's
// convolution and the rest as cufft-unfused (with a range FFT pair around SRC, which needs the
// two-dimensional frequency domain). A range FFT longer than the row kernel holds (16384) runs the
// fused pipeline's range steps through cuFFT, and the plan says so.
#include "cuda/rda_cuda.hpp"
#include "sarfuse/interrupt.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>

#include "cuda/backend.hpp"
#include "cuda/check.hpp"
#include "cuda/cufft_library.hpp"
#include "cuda/fft/fft_math.hpp"
#include "cuda/fft/storage.hpp"
#include "cuda/kernels.hpp"
#include "sarfuse/gpu_fft.hpp"
#include "range_filter_callback_fatbin.h"  // generated: LTO-IR of callbacks/range_filter_callback.cu (-dc: the function must survive)

namespace sarfuse::cuda {

cufftHandle make_filter_callback_plan(int n, int batch, const float2* filter, void* info, cudaStream_t stream) {
  struct {
    const float2* filter;
    unsigned long long nfft;
  } host{filter, static_cast<unsigned long long>(n)};
  static_assert(sizeof(host) == 16);
  SARFUSE_CUDA(cudaMemcpy(info, &host, sizeof host, cudaMemcpyHostToDevice));
  cufftHandle p = 0;
  SARFUSE_CUFFT(cuda::cufft().Create(&p));
  void* caller_info[1] = {info};
  SARFUSE_CUFFT(cuda::cufft().XtSetJITCallback(p, "sarfuse_store_times_filter", sarfuse_range_filter_callback_fatbin,
                                      sizeof(sarfuse_range_filter_callback_fatbin), CUFFT_CB_ST_COMPLEX, caller_info));
  int dims[1] = {n};
  std::size_t work = 0;
  const cufftResult r = cuda::cufft().MakePlanMany(p, 1, dims, dims, 1, n, dims, 1, n, CUFFT_C2C, batch, &work);
  if (r != CUFFT_SUCCESS) {
    cuda::cufft().Destroy(p);
    // The usual cause: a cuFFT newer than the nvJitLink beside it (docs/performance.md, "Choices made
    // from measurements").
    throw Error("cufft-callback: cuFFT could not JIT-link the LTO callback (cuFFT error " +
                std::to_string(static_cast<int>(r)) +
                "); cuFFT's LTO callbacks need an nvJitLink at least as new as cuFFT expects (CUDA 13.0: cuFFT "
                "12.0.0.61 wants nvJitLink 13.1, the toolkit ships 13.0)");
  }
  SARFUSE_CUFFT(cuda::cufft().SetStream(p, stream));
  return p;
}

namespace {

std::vector<float2> to_float2(const std::vector<std::complex<double>>& v) {
  std::vector<float2> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out[i] = make_float2(static_cast<float>(v[i].real()), static_cast<float>(v[i].imag()));
  return out;
}


template <class T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& h) {
  d.resize(h.size());
  SARFUSE_CUDA(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

AzimuthFft::AzimuthFft(int lines, int cols, int in_pitch, int out_pitch, float2* scratch, cudaStream_t stream)
    : lines_(lines), cols_(cols), in_pitch_(in_pitch), out_pitch_(out_pitch), stream_(stream) {
  int dims[1] = {lines};
  if (!scratch) {
    SARFUSE_CUFFT(cuda::cufft().PlanMany(&plan_, 1, dims, dims, in_pitch, 1, dims, out_pitch, 1, CUFFT_C2C, cols));
  } else {
    scratch_ = scratch;
    SARFUSE_CUFFT(cuda::cufft().PlanMany(&plan_, 1, dims, dims, 1, lines, dims, 1, lines, CUFFT_C2C, cols));
  }
  SARFUSE_CUFFT(cuda::cufft().SetStream(plan_, stream));
}

AzimuthFft::AzimuthFft(int lines, int cols, int in_pitch, int out_pitch, ColumnKernel columns, cudaStream_t stream)
    : lines_(lines), cols_(cols), in_pitch_(in_pitch), out_pitch_(out_pitch), stream_(stream), twiddles_(columns.twiddles) {
  if (!column_fft_supports(lines))
    throw Error("azimuth FFT: the column kernel takes a power-of-two line count in 256..16384, not " + std::to_string(lines));
}

AzimuthFft::AzimuthFft(int lines, int cols, int in_pitch, int out_pitch, TwoStep two_step, cudaStream_t stream)
    : lines_(lines), cols_(cols), in_pitch_(in_pitch), out_pitch_(out_pitch), stream_(stream),
      twiddles_(two_step.twiddles), part_twiddles_(two_step.part_twiddles),
      natural_spectrum_(two_step.natural_spectrum), natural_scratch_(two_step.scratch) {
  if (!two_step_column_fft_supports(lines))
    throw Error("azimuth FFT: the two-step column FFT takes 16 or 32 x a power of two in 256..4096 lines, not " +
                std::to_string(lines));
  if (!twiddles_ || !part_twiddles_) throw Error("azimuth FFT: the two-step column FFT needs both twiddle tables");
  if (natural_spectrum_ && !natural_scratch_) throw Error("azimuth FFT: the natural-order inverse needs a scratch array");
}

AzimuthFft& AzimuthFft::operator=(AzimuthFft&& o) noexcept {
  std::swap(twiddles_, o.twiddles_);
  std::swap(part_twiddles_, o.part_twiddles_);
  std::swap(natural_spectrum_, o.natural_spectrum_);
  std::swap(natural_scratch_, o.natural_scratch_);
  std::swap(plan_, o.plan_);
  std::swap(lines_, o.lines_);
  std::swap(cols_, o.cols_);
  std::swap(in_pitch_, o.in_pitch_);
  std::swap(out_pitch_, o.out_pitch_);
  std::swap(scratch_, o.scratch_);
  std::swap(stream_, o.stream_);
  return *this;
}

AzimuthFft::~AzimuthFft() {
  if (plan_) cuda::cufft().Destroy(plan_);
}

void AzimuthFft::exec(const float2* in, float2* out, int direction) {
  if (natural_spectrum_) {
    if (direction == CUFFT_INVERSE)
      launch_two_step_inverse_from_natural(lines_, in, in_pitch_, natural_scratch_, natural_scratch_pitch(cols_), out,
                                           out_pitch_, cols_, twiddles_, part_twiddles_, stream_);
    else
      launch_two_step_column_pass(lines_, in, in_pitch_, out, out_pitch_, cols_, part_twiddles_, stream_);
    return;
  }
  if (part_twiddles_) {
    launch_two_step_column_fft(lines_, in, in_pitch_, out, out_pitch_, cols_, direction == CUFFT_INVERSE, twiddles_,
                               part_twiddles_, stream_);
    return;
  }
  if (twiddles_) {
    launch_column_fft(lines_, 1024, in, in_pitch_, out, out_pitch_, cols_, direction == CUFFT_INVERSE, twiddles_, stream_);
    return;
  }
  if (!scratch_) {
    SARFUSE_CUFFT(cuda::cufft().ExecC2C(plan_, reinterpret_cast<cufftComplex*>(const_cast<float2*>(in)),
                               reinterpret_cast<cufftComplex*>(out), direction));
    return;
  }
  launch_transpose(in, lines_, cols_, in_pitch_, scratch_, lines_, stream_);
  auto* t = reinterpret_cast<cufftComplex*>(scratch_);
  SARFUSE_CUFFT(cuda::cufft().ExecC2C(plan_, t, t, direction));
  launch_transpose(scratch_, cols_, lines_, lines_, out, out_pitch_, stream_);
}

namespace {

cufftHandle row_plan(int n, int batch, cudaStream_t stream) {
  cufftHandle p = 0;
  int dims[1] = {n};
  SARFUSE_CUFFT(cuda::cufft().PlanMany(&p, 1, dims, dims, 1, n, dims, 1, n, CUFFT_C2C, batch));
  SARFUSE_CUFFT(cuda::cufft().SetStream(p, stream));
  return p;
}

}  // namespace

std::size_t CudaRda::required_device_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                                           const FocusOptions& o) {
  const std::size_t c8 = sizeof(float2), scene = lines * samples, work = lines * nfft;
  const bool own_rows = o.pipeline == Pipeline::fused && own_row_fft_supports(static_cast<int>(nfft));
  const bool half = o.precision == Precision::fp16_storage || o.precision == Precision::fp16;
  if (half) {  // raw, the FP16 work array, output, row factors and tables; the column FFTs need no work area
    return scene * 16 + work * 4 + scene * c8 + 2 * lines * sizeof(float) + nfft * c8 * 2 + lines * c8 +
           lines * sizeof(core::DopplerRow) + (1 << 20) + samples * sizeof(float) +
           (core::AzimuthFilter::kWindowIntervals + 1) * sizeof(float);
  }
  std::size_t bytes = scene * 16 + work * c8 + scene * c8;  // raw (widest type), work, output
  if (!own_rows) bytes += scene * c8;                          // the baselines' RCMC output
  // cuFFT's transposing azimuth FFT scratch: wherever cuFFT may run the azimuth FFTs at lines that are
  // not a power of two (--plan measure times it even where the two-step FFT wins).
  const bool two_step_only = own_rows && o.fft_planning == FftPlanning::estimate && lines >= kTwoStepMinLines &&
                             two_step_column_fft_supports(static_cast<int>(lines));
  if (!is_power_of_two(static_cast<int>(lines)) && !two_step_only) bytes += work * c8;
  // The two-step FFT at radix 16 with its forward 16-point step in pass 1: pass 1's own output array.
  if (own_rows && two_step_column_fft_supports(static_cast<int>(lines)) &&
      static_cast<int>(lines) / two_step_part_lines(static_cast<int>(lines)) == kAzimuthFirstStepRadix)
    bytes += work * c8;
  if (o.pipeline == Pipeline::vkfft_conv) bytes += work * c8;         // VkFFT's kernel, one per line
  bytes += nfft * c8 * 2 + lines * sizeof(core::DopplerRow) + (1 << 20);  // filter, twiddles, rows, sinc
  bytes += samples * sizeof(float) + (core::AzimuthFilter::kWindowIntervals + 1) * sizeof(float);  // band
  auto estimate = [](int n, int batch, int stride, int dist) {
    std::size_t ws = 0;
    int dims[1] = {n};
    if (cuda::cufft().EstimateMany(1, dims, dims, stride, dist, dims, stride, dist, CUFFT_C2C, batch, &ws) != CUFFT_SUCCESS)
      ws = static_cast<std::size_t>(n) * batch * sizeof(float2);  // no estimate: assume a full copy
    return ws;
  };
  const int a = static_cast<int>(lines), n = static_cast<int>(nfft), c = static_cast<int>(samples);
  bytes += estimate(a, n, n, 1) + estimate(a, c, c, 1);  // azimuth FFT and IFFT
  if (!own_rows) bytes += 2 * estimate(n, a, 1, n);     // range FFT pair
  return bytes;
}

// Whether the FP16 passes (fp16-storage and fp16) can run: the fused pipeline's one-block row kernels
// and the column kernel. (fp16's power-of-two-only range FFT is checked with the length.)
namespace {
bool fp16_storage_runs(const FocusOptions& o, std::size_t nfft, std::size_t lines) {
  return o.pipeline == Pipeline::fused && own_row_fft_supports(static_cast<int>(nfft)) &&
         column_fft_supports(static_cast<int>(lines));
}
}  // namespace

CudaRda::CudaRda(const RadarParams& r, std::size_t na, std::size_t nr, const FocusOptions& opt, std::size_t n_fft)
    : PlanImpl(r, na, nr, opt, n_fft, Backend::cuda) {
  if (device_count() == 0) throw Error("backend cuda: no CUDA device found");
  {
    std::size_t free_bytes = 0, total_bytes = 0;
    SARFUSE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t need = required_device_bytes(na, nr, n_fft, opt);
    const bool capped = opt.max_gpu_memory_bytes != 0 && opt.max_gpu_memory_bytes < free_bytes;
    const std::size_t have = capped ? opt.max_gpu_memory_bytes : free_bytes;
    if (need > have) {
      // What fp16-storage is for: the work array in FP16 takes half the bytes. Say so where it would fit.
      std::string half_hint;
      if (opt.precision == Precision::fp32 && fp16_storage_runs(opt, n_fft, na)) {
        FocusOptions half = opt;
        half.precision = Precision::fp16_storage;
        const std::size_t half_need = required_device_bytes(na, nr, n_fft, half);
        if (half_need <= have)
          half_hint = "; precision fp16-storage needs " + format_bytes(double(half_need)) +
                      " (the scene in FP16 between passes, ~3e-4 relative error)";
      }
      throw Error("backend cuda: focusing " + std::to_string(na) + " x " + std::to_string(nr) + " (range FFT " +
                  std::to_string(n_fft) + ", " + to_string(opt.pipeline) + ") needs " + format_bytes(double(need)) +
                  " of device memory; " +
                  (capped ? "max_gpu_memory_bytes allows " + format_bytes(double(have)) + " (" +
                                format_bytes(double(free_bytes)) + " free)"
                          : "the device has " + format_bytes(double(free_bytes)) + " free of " +
                                format_bytes(double(total_bytes))) +
                  ". Use a smaller scene, a larger budget or backend cpu" + half_hint);
    }
  }
  if (!range_length_runs(nfft, options))
    throw Error("backend cuda: range FFT length " + std::to_string(nfft) +
                " must be a power of two >= 256, or (precision fp32 with pipeline fused, cufft-unfused or "
                "cufft-callback; precision fp16-storage with pipeline fused) one of " + nice_sizes_text());
  range_by_cufft_ = options.pipeline == Pipeline::fused && !own_row_fft_supports(static_cast<int>(nfft));
  if (range_by_cufft_)
    notes = "range FFT length " + std::to_string(nfft) +
            " exceeds the one-block row kernels (16384): the range steps run through cuFFT and separate kernels\n";
  if (opt.precision == Precision::fp64)
    throw Error("backend cuda: precision fp64 is the CPU reference; the GPU runs fp32 or fp16-storage");
  fp16_storage_ = opt.precision == Precision::fp16_storage || opt.precision == Precision::fp16;
  tensor_ = opt.precision == Precision::tf32x3;
  if (tensor_ && (opt.pipeline != Pipeline::fused || nfft < 512 || !own_fft_supports(static_cast<int>(nfft))))
    throw Error("precision tf32x3: needs the fused pipeline and a power-of-two range FFT of 512..16384 points (got " +
                std::to_string(n_fft) + ", " + to_string(opt.pipeline) + ")");
  if (tensor_) notes += "precision tf32x3: range FFTs' radix-16 DFTs on the tensor cores (3xTF32)\n";
  half_math_ = opt.precision == Precision::fp16;
  if (fp16_storage_ && !fp16_storage_runs(opt, nfft, na))
    throw Error(std::string("precision ") + to_string(opt.precision) +
                ": needs the fused pipeline, a range FFT of 256..16384 points, a power of two or (fp16-storage) one "
                "of " + nice_sizes_text() + " (got " +
                std::to_string(n_fft) + ") and a power-of-two line count in 256..16384 (got " + std::to_string(na) +
                "; linear azimuth processing with block_lines picks one)");
  SARFUSE_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  for (auto& e : ev_) SARFUSE_CUDA(cudaEventCreate(&e));
  for (auto& e : copy_ev_) SARFUSE_CUDA(cudaEventCreate(&e));

  const auto range_filter = core::range_matched_filter(radar, nfft, options.range_window);
  upload(filter_, to_float2(range_filter));
  upload(twiddles_, fft_twiddle_table(static_cast<int>(nfft)));
  const core::AzimuthFilter az = core::azimuth_filter(radar, lines, samples, options.src == SrcMode::on,
                                                      options.azimuth_window, options.azimuth_bandwidth_hz);
  notes += az.note;
  for (const auto& row : az.rows) src_any_ = src_any_ || row.src_inverse_rate != 0.0;
  upload(rows_, az.rows);
  if (!az.column_shift.empty()) {
    upload(column_shift_, std::vector<float>(az.column_shift.begin(), az.column_shift.end()));
    upload(window_, std::vector<float>(az.window.begin(), az.window.end()));
    for (double w : az.window) window_max_ = std::max(window_max_, static_cast<float>(std::abs(w)));
  }
  const core::SincTable sinc = core::make_sinc_table(options.rcmc_taps);
  taps_ = sinc.taps;
  fractions_ = sinc.fractions;
  upload(sinc_, core::sinc_table_fp32(sinc));
  sinc_abs_sum_ = 0.0f;  // over the rows: a blended row's sum of |weights| is at most the larger of its two
  for (std::size_t r = 0; r + taps_ <= sinc.weights.size(); r += taps_) {
    float sum = 0.0f;
    for (int t = 0; t < taps_; ++t) sum += std::abs(static_cast<float>(sinc.weights[r + t]));
    sinc_abs_sum_ = std::max(sinc_abs_sum_, sum);
  }

  raw_.resize(lines * samples * 16);  // room for the widest sample type
  out_.resize(lines * samples);
  const int n = static_cast<int>(nfft), a = static_cast<int>(lines), c = static_cast<int>(samples);
  if (fp16_storage_) {
    work_.resize(lines * nfft / 2);  // lines x nfft FP16 complex values
    row_factor1_.resize(lines);
    row_factor3_.resize(lines);
    spectrum_max_.resize(1);
    upload(az_twiddles_, fft_twiddle_table(a));
    column_threads_ = a >= 1024 ? 1024 : 512;
    SARFUSE_CUDA(cudaMemsetAsync(work_.get(), 0, work_.bytes(), stream_));
    return;
  }
  work_.resize(lines * nfft);
  SARFUSE_CUDA(cudaMemsetAsync(work_.get(), 0x3F, work_.bytes(), stream_));  // finite data to time on
  const AzimuthEngine engine = choose_azimuth_engine(a, n);
  // The forward's 16-point step moves into pass 1 where the two-step FFT runs at radix 16 and a cluster
  // of 16 pass-1 blocks fits (FP32 butterflies); the spectrum is then in natural order.
  natural_spectrum_ = engine == AzimuthEngine::two_step && a / two_step_part_lines(a) == kAzimuthFirstStepRadix &&
                      !tensor_ && range_spectrum_first_step_fits(n);
  if (natural_spectrum_) {
    notes += "pass 1 makes the azimuth FFT's 16-point step (clusters of 16 lines)\n";
    first_step_.resize(lines * nfft);
  }
  auto azimuth = [&](int cols, int in_pitch, int out_pitch) {
    switch (engine) {
      case AzimuthEngine::two_step:
        return AzimuthFft(a, cols, in_pitch, out_pitch,
                          AzimuthFft::TwoStep{az_twiddles_.get(), az_part_twiddles_.get(), natural_spectrum_,
                                              first_step_.get()},
                          stream_);
      case AzimuthEngine::own_columns:
        return AzimuthFft(a, cols, in_pitch, out_pitch, AzimuthFft::ColumnKernel{az_twiddles_.get()}, stream_);
      default: return AzimuthFft(a, cols, in_pitch, out_pitch, az_scratch_.get(), stream_);
    }
  };
  if (engine != AzimuthEngine::cufft_strided && az_twiddles_.size() == 0) upload(az_twiddles_, fft_twiddle_table(a));
  if (engine == AzimuthEngine::two_step && az_part_twiddles_.size() == 0)
    upload(az_part_twiddles_, fft_twiddle_table(two_step_part_lines(a)));
  // Pass 3 finds each Doppler row where the forward left it.
  if (engine == AzimuthEngine::two_step && !natural_spectrum_) {
    std::vector<core::DopplerRow> permuted(az.rows.size());
    for (int r = 0; r < a; ++r) permuted[r] = az.rows[two_step_spectrum_bin(r, a)];
    upload(rows_, permuted);
  }
  az_fwd_ = azimuth(n, n, n);
  if (options.pipeline == Pipeline::fused && !range_by_cufft_) {
    az_inv_ = azimuth(c, n, c);
  } else {
    tmp_.resize(lines * samples);
    az_inv_ = azimuth(c, c, c);
    if (options.pipeline == Pipeline::cufft_callback) {
      callback_info_.resize(2);
      rg_fwd_ = make_filter_callback_plan(n, a, filter_.get(), callback_info_.get(), stream_);
    } else {
      if (options.pipeline == Pipeline::vkfft_conv) vkfft_ = std::make_unique<VkfftConv>(n, a, c, false, range_filter, stream_);
      rg_fwd_ = row_plan(n, a, stream_);
    }
    rg_inv_ = row_plan(n, a, stream_);
    have_rg_plans_ = true;
  }
}

float CudaRda::time_azimuth(AzimuthFft& f) {
  cudaEvent_t e0, e1;
  SARFUSE_CUDA(cudaEventCreate(&e0));
  SARFUSE_CUDA(cudaEventCreate(&e1));
  float best[3];
  f.exec(work_.get(), work_.get(), CUFFT_FORWARD);
  for (float& t : best) {
    SARFUSE_CUDA(cudaEventRecord(e0, stream_));
    f.exec(work_.get(), work_.get(), CUFFT_FORWARD);
    SARFUSE_CUDA(cudaEventRecord(e1, stream_));
    SARFUSE_CUDA(cudaEventSynchronize(e1));
    SARFUSE_CUDA(cudaEventElapsedTime(&t, e0, e1));
  }
  SARFUSE_CUDA(cudaEventDestroy(e0));
  SARFUSE_CUDA(cudaEventDestroy(e1));
  std::sort(best, best + 3);
  return best[1];
}

void CudaRda::prepare_cufft_azimuth(int a, int n) {
  if (is_power_of_two(a)) return;
  az_scratch_.resize(static_cast<std::size_t>(a) * n);
  AzimuthFft strided(a, n, n, n, nullptr, stream_), transposing(a, n, n, n, az_scratch_.get(), stream_);
  if (time_azimuth(transposing) >= time_azimuth(strided)) az_scratch_.resize(0);
}

CudaRda::AzimuthEngine CudaRda::choose_azimuth_engine(int a, int n) {
  // The two-step FFT leaves the spectrum's rows permuted, which only the fused FP32 chain's pass 3 follows.
  const bool two_step = options.pipeline == Pipeline::fused && !range_by_cufft_ && two_step_column_fft_supports(a);
  const bool columns = column_fft_supports(a);
  if (options.fft_planning == FftPlanning::estimate) {
    if (!two_step || a < kTwoStepMinLines) {
      prepare_cufft_azimuth(a, n);
      return AzimuthEngine::cufft_strided;
    }
    notes += "azimuth FFTs: two-step columns (" + std::to_string(a / two_step_part_lines(a)) + " x " +
             std::to_string(two_step_part_lines(a)) + "-point column passes)\n";
    return AzimuthEngine::two_step;
  }
  prepare_cufft_azimuth(a, n);  // cuFFT, the candidate every other is timed against
  if (!two_step && !columns) return AzimuthEngine::cufft_strided;
  upload(az_twiddles_, fft_twiddle_table(a));  // the candidates' tables, kept for the one chosen
  if (two_step) upload(az_part_twiddles_, fft_twiddle_table(two_step_part_lines(a)));
  gpu::FftDesc key;  // the wisdom's key: the forward azimuth FFT of this plan's work array
  key.n = a;
  key.batch = n;
  key.stride = n;
  key.dist = 1;
  // The wisdom names engines by FFT variant: the two-step FFT is a four-step split without its transpose.
  auto variant_of = [](AzimuthEngine e) {
    return e == AzimuthEngine::two_step      ? gpu::FftVariant::four_step
           : e == AzimuthEngine::own_columns ? gpu::FftVariant::stockham16
                                             : gpu::FftVariant::cufft;
  };
  auto name_of = [](AzimuthEngine e) {
    return e == AzimuthEngine::two_step ? "two-step columns" : e == AzimuthEngine::own_columns ? "own column kernel" : "cuFFT (strided)";
  };
  cudaDeviceProp prop{};
  int dev = 0;
  SARFUSE_CUDA(cudaGetDevice(&dev));
  SARFUSE_CUDA(cudaGetDeviceProperties(&prop, dev));
  const bool use_wisdom = options.wisdom_path != "-";
  gpu::FftWisdom wisdom(use_wisdom ? (options.wisdom_path.empty() ? gpu::FftWisdom::default_path() : options.wisdom_path) : "");
  gpu::FftVariant v;
  if (use_wisdom && wisdom.lookup(prop.name, key, &v)) {
    for (AzimuthEngine e : {AzimuthEngine::two_step, AzimuthEngine::own_columns, AzimuthEngine::cufft_strided})
      if (variant_of(e) == v && (e != AzimuthEngine::two_step || two_step) && (e != AzimuthEngine::own_columns || columns)) {
        notes += std::string("azimuth FFTs: ") + name_of(e) + " (wisdom " + wisdom.path() + ")\n";
        if (e != AzimuthEngine::cufft_strided) az_scratch_.resize(0);
        return e;
      }
  }
  AzimuthEngine best = AzimuthEngine::cufft_strided;
  float best_ms = 0.0f;
  std::string timings;
  auto consider = [&](AzimuthEngine e, AzimuthFft f) {
    const float ms = time_azimuth(f);
    char t[80];
    std::snprintf(t, sizeof t, "%s%s %.3f ms", timings.empty() ? "" : ", ", name_of(e), ms);
    timings += t;
    if (e == AzimuthEngine::cufft_strided || ms < best_ms) {
      best = e;
      best_ms = ms;
    }
  };
  consider(AzimuthEngine::cufft_strided, AzimuthFft(a, n, n, n, az_scratch_.get(), stream_));
  if (columns) consider(AzimuthEngine::own_columns, AzimuthFft(a, n, n, n, AzimuthFft::ColumnKernel{az_twiddles_.get()}, stream_));
  if (two_step)
    consider(AzimuthEngine::two_step,
             AzimuthFft(a, n, n, n, AzimuthFft::TwoStep{az_twiddles_.get(), az_part_twiddles_.get()}, stream_));
  notes += std::string("azimuth FFTs: ") + name_of(best) + " (fft_planning measure: " + timings + ")\n";
  if (best != AzimuthEngine::cufft_strided) az_scratch_.resize(0);
  if (use_wisdom) {
    wisdom.remember(prop.name, key, variant_of(best), best_ms);
    wisdom.save();
  }
  return best;
}

CudaRda::~CudaRda() {
  if (have_rg_plans_) {
    cuda::cufft().Destroy(rg_fwd_);
    cuda::cufft().Destroy(rg_inv_);
  }
  for (auto& e : ev_)
    if (e) cudaEventDestroy(e);
  for (auto& e : copy_ev_)
    if (e) cudaEventDestroy(e);
  if (stream_) cudaStreamDestroy(stream_);
}

std::size_t CudaRda::device_bytes() const {
  return raw_.bytes() + work_.bytes() + first_step_.bytes() + out_.bytes() + tmp_.bytes() + az_scratch_.bytes() +
         filter_.bytes() + twiddles_.bytes() + rows_.bytes() + sinc_.bytes() + column_shift_.bytes() + window_.bytes() +
         row_factor1_.bytes() + row_factor3_.bytes() + spectrum_max_.bytes() + az_twiddles_.bytes();
}

void CudaRda::run(SampleType type, const void* d_raw, float2* d_out) {
  if (fp16_storage_) run_fp16_storage(type, d_raw, d_out);
  else if (options.pipeline == Pipeline::fused && !range_by_cufft_) run_fused(type, d_raw, d_out);
  else run_baseline(type, d_raw, d_out);
}

void CudaRda::run_fused(SampleType type, const void* d_raw, float2* d_out) {
  const int n = static_cast<int>(nfft), a = static_cast<int>(lines), c = static_cast<int>(samples);
  const double df = radar.range_sampling_rate_hz / static_cast<double>(nfft);
  SARFUSE_CUDA(cudaEventRecord(ev_[0], stream_));
  if (natural_spectrum_)
    launch_range_spectrum_first_step(n, type, d_raw, a, c, filter_.get(), twiddles_.get(), az_twiddles_.get(),
                                     first_step_.get(), stream_);
  else
    launch_range_spectrum(n, type, d_raw, a, c, filter_.get(), twiddles_.get(), work_.get(), stream_, tensor_);
  SARFUSE_CUDA(cudaEventRecord(ev_[1], stream_));
  az_fwd_.exec(natural_spectrum_ ? first_step_.get() : work_.get(), work_.get(), CUFFT_FORWARD);
  SARFUSE_CUDA(cudaEventRecord(ev_[2], stream_));
  launch_range_doppler_rows(n, work_.get(), a, c, rows_.get(), df, sinc(), band(), twiddles_.get(), stream_, tensor_);
  SARFUSE_CUDA(cudaEventRecord(ev_[3], stream_));
  az_inv_.exec(work_.get(), d_out, CUFFT_INVERSE);
  SARFUSE_CUDA(cudaEventRecord(ev_[4], stream_));
}

void CudaRda::run_fp16_storage(SampleType type, const void* d_raw, float2* d_out) {
  const int n = static_cast<int>(nfft), a = static_cast<int>(lines), c = static_cast<int>(samples);
  const double df = radar.range_sampling_rate_hz / static_cast<double>(nfft);
  __half2* w = work_half();
  SARFUSE_CUDA(cudaEventRecord(ev_[0], stream_));
  SARFUSE_CUDA(cudaMemsetAsync(spectrum_max_.get(), 0, sizeof(unsigned), stream_));
  launch_range_spectrum_half(n, type, d_raw, a, c, filter_.get(), twiddles_.get(), w, row_factor1_.get(),
                             spectrum_max_.get(), half_math_, stream_);
  SARFUSE_CUDA(cudaEventRecord(ev_[1], stream_));
  ColumnScaling forward{row_factor1_.get(), spectrum_max_.get(), fft::half_column_fft_gain(a)};
  forward.half_math = half_math_;
  launch_column_fft(a, column_threads_, w, n, w, n, n, false, forward, az_twiddles_.get(), stream_);
  SARFUSE_CUDA(cudaEventRecord(ev_[2], stream_));
  launch_range_doppler_rows_half(n, w, a, c, rows_.get(), df, sinc(), band(),
                                 twiddles_.get(), spectrum_max_.get(), row_factor3_.get(), half_math_, stream_);
  SARFUSE_CUDA(cudaEventRecord(ev_[3], stream_));
  ColumnScaling inverse{row_factor3_.get(), nullptr, 1.0f};
  inverse.half_math = half_math_;
  launch_column_fft(a, column_threads_, w, n, d_out, c, c, true, inverse, az_twiddles_.get(), stream_);
  SARFUSE_CUDA(cudaEventRecord(ev_[4], stream_));
}

void CudaRda::run_baseline(SampleType type, const void* d_raw, float2* d_out) {
  const int n = static_cast<int>(nfft), a = static_cast<int>(lines), c = static_cast<int>(samples);
  const double df = radar.range_sampling_rate_hz / static_cast<double>(nfft);
  auto* w = reinterpret_cast<cufftComplex*>(work_.get());
  SARFUSE_CUDA(cudaEventRecord(ev_[0], stream_));
  launch_convert_pad(type, d_raw, a, c, work_.get(), n, stream_);
  if (vkfft_) {
    vkfft_->run(work_.get());  // range-compressed lines, range time
  } else {
    SARFUSE_CUFFT(cuda::cufft().ExecC2C(rg_fwd_, w, w, CUFFT_FORWARD));
    if (options.pipeline != Pipeline::cufft_callback)  // else the store callback multiplied
      launch_multiply_rows(work_.get(), a, n, n, filter_.get(), stream_);
  }
  SARFUSE_CUDA(cudaEventRecord(ev_[1], stream_));
  az_fwd_.exec(work_.get(), work_.get(), CUFFT_FORWARD);
  SARFUSE_CUDA(cudaEventRecord(ev_[2], stream_));
  if (vkfft_) {
    if (src_any_) {  // back to the range spectrum for SRC; the FFT pair's factor n undone in the multiply
      SARFUSE_CUFFT(cuda::cufft().ExecC2C(rg_fwd_, w, w, CUFFT_FORWARD));
      launch_src_multiply(work_.get(), a, n, rows_.get(), df, 1.0f / static_cast<float>(n), stream_);
      SARFUSE_CUFFT(cuda::cufft().ExecC2C(rg_inv_, w, w, CUFFT_INVERSE));
    }
  } else {
    if (src_any_) launch_src_multiply(work_.get(), a, n, rows_.get(), df, 1.0f, stream_);
    SARFUSE_CUFFT(cuda::cufft().ExecC2C(rg_inv_, w, w, CUFFT_INVERSE));
  }
  launch_rcmc(work_.get(), n, n, tmp_.get(), a, c, rows_.get(), sinc(), stream_);
  launch_azimuth_filter(tmp_.get(), a, c, rows_.get(), band(), stream_);
  SARFUSE_CUDA(cudaEventRecord(ev_[3], stream_));
  az_inv_.exec(tmp_.get(), d_out, CUFFT_INVERSE);
  SARFUSE_CUDA(cudaEventRecord(ev_[4], stream_));
}

StageTimes CudaRda::elapsed() const {
  float ms[4] = {};
  for (int i = 0; i < 4; ++i) SARFUSE_CUDA(cudaEventElapsedTime(&ms[i], ev_[i], ev_[i + 1]));
  StageTimes t;
  t.range_compress = ms[0] * 1e-3;
  t.azimuth_fft = ms[1] * 1e-3;
  t.range_doppler = ms[2] * 1e-3;
  t.azimuth_ifft = ms[3] * 1e-3;
  t.total = t.range_compress + t.azimuth_fft + t.range_doppler + t.azimuth_ifft;
  return t;
}

void CudaRda::upload_and_run(const RawView& raw, const char* call) {
  if (raw.lines != lines || raw.samples != samples)
    throw Error(std::string(call) + ": raw data is " + std::to_string(raw.lines) + " x " + std::to_string(raw.samples) +
                " but the plan was made for " + std::to_string(lines) + " x " + std::to_string(samples));
  throw_if_interrupted();
  const std::size_t bytes = lines * samples * bytes_per_sample(raw.type);
  SARFUSE_CUDA(cudaEventRecord(copy_ev_[0], stream_));
  SARFUSE_CUDA(cudaMemcpyAsync(raw_.get(), raw.data, bytes, cudaMemcpyHostToDevice, stream_));
  SARFUSE_CUDA(cudaEventRecord(copy_ev_[1], stream_));
  run(raw.type, raw_.get(), out_.get());
  SARFUSE_CUDA(cudaEventRecord(copy_ev_[2], stream_));
}

void CudaRda::finish_download() {
  SARFUSE_CUDA(cudaEventRecord(copy_ev_[3], stream_));
  SARFUSE_CUDA(cudaStreamSynchronize(stream_));
  throw_if_interrupted();
  times = elapsed();
  float up = 0, down = 0;
  SARFUSE_CUDA(cudaEventElapsedTime(&up, copy_ev_[0], copy_ev_[1]));
  SARFUSE_CUDA(cudaEventElapsedTime(&down, copy_ev_[2], copy_ev_[3]));
  times.upload = up * 1e-3;
  times.download = down * 1e-3;
}

void CudaRda::focus(const RawView& raw, ComplexImage& slc) {
  if (slc.lines() != lines || slc.samples() != samples) slc = ComplexImage(lines, samples);
  upload_and_run(raw, "focus");
  SARFUSE_CUDA(cudaMemcpyAsync(slc.data(), out_.get(), out_.bytes(), cudaMemcpyDeviceToHost, stream_));
  finish_download();
}

void CudaRda::focus_rows(const RawView& raw, RowSpan rows, SampleFormat format, void* out) {
  upload_and_run(raw, "focus_rows");
  const std::size_t head = std::min(rows.count, lines - rows.first);  // rows before the wrap
  if (format == SampleFormat::complex32) {
    // Packed into the work array, free once the last pass has written out_.
    const std::size_t bytes = rows.count * samples * sizeof(__half2);
    if (bytes > work_.bytes()) throw Error("focus_rows: the work array is smaller than the packed rows (a bug)");
    auto* packed = reinterpret_cast<__half2*>(work_.get());
    launch_rows_to_half(out_.get(), static_cast<int>(lines), static_cast<int>(samples), static_cast<int>(rows.first),
                        static_cast<int>(rows.count), packed, stream_);
    SARFUSE_CUDA(cudaMemcpyAsync(out, packed, bytes, cudaMemcpyDeviceToHost, stream_));
  } else {
    const std::size_t row_bytes = samples * sizeof(float2);
    auto* dst = static_cast<std::byte*>(out);
    SARFUSE_CUDA(cudaMemcpyAsync(dst, out_.get() + rows.first * samples, head * row_bytes, cudaMemcpyDeviceToHost, stream_));
    if (rows.count > head)
      SARFUSE_CUDA(cudaMemcpyAsync(dst + head * row_bytes, out_.get(), (rows.count - head) * row_bytes,
                                   cudaMemcpyDeviceToHost, stream_));
  }
  finish_download();
}

void CudaRda::focus_on_device(const RawView& raw, std::complex<float>* slc) {
  if (raw.lines != lines || raw.samples != samples)
    throw Error("focus_on_device: raw data is " + std::to_string(raw.lines) + " x " + std::to_string(raw.samples) +
                " but the plan was made for " + std::to_string(lines) + " x " + std::to_string(samples));
  auto check = [](const void* p, const char* what) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) cudaGetLastError();
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
      throw Error(std::string("focus_on_device: the ") + what + " is not in device memory");
    if (reinterpret_cast<std::uintptr_t>(p) % 16)
      throw Error(std::string("focus_on_device: the ") + what + " must start on a 16-byte boundary (copy the array)");
  };
  check(raw.data, "raw data");
  check(slc, "SLC");
  throw_if_interrupted();
  // The producer's writes may be on any stream, ours does not wait for the legacy default stream.
  SARFUSE_CUDA(cudaDeviceSynchronize());
  run(raw.type, raw.data, reinterpret_cast<float2*>(slc));
  SARFUSE_CUDA(cudaStreamSynchronize(stream_));
  times = elapsed();
  times.upload = times.download = 0;
}

void CudaRda::pin_host(void* data, std::size_t bytes) {
  SARFUSE_CUDA(cudaHostRegister(data, bytes, cudaHostRegisterDefault));
}

void CudaRda::unpin_host(void* data) { SARFUSE_CUDA(cudaHostUnregister(data)); }

std::unique_ptr<PlanImpl> make_cuda_plan(const RadarParams& radar, std::size_t lines, std::size_t samples,
                                         const FocusOptions& opt, std::size_t nfft) {
  return std::make_unique<CudaRda>(radar, lines, samples, opt, nfft);
}

std::size_t required_device_bytes(std::size_t lines, std::size_t samples, std::size_t nfft, const FocusOptions& opt) {
  return CudaRda::required_device_bytes(lines, samples, nfft, opt);
}

}  // namespace sarfuse::cuda
