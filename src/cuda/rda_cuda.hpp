// The CUDA Range-Doppler plan (see docs/design.md for its passes).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include <utility>
#include <vector>

#include "core/filters.hpp"
#include "plan/plan_impl.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/kernels.hpp"
#include "cuda/vkfft_conv.hpp"

#include <memory>
#include <string>

namespace sarfuse::cuda {

// Azimuth FFTs of `cols` columns of a row-major array, one of four ways: cuFFT on the strided columns;
// transpose -> contiguous batched cuFFT -> transpose; the project's column-tile kernel; or the two-step
// column FFT (two column passes at the copy rate, spectrum rows permuted: launch_two_step_column_fft).
// Strided cuFFT ran near half the copy rate at 4096 lines but at 6 % at 30000 lines, where the three
// full-rate passes cost a third as much; at 1536 lines strided was faster again. So the plan measures
// the candidates (like FFTW_MEASURE) where no built-in rule decides, and keeps the fastest.
class AzimuthFft {
 public:
  AzimuthFft() = default;
  // scratch == nullptr: strided; else transposing through scratch (cols x lines).
  AzimuthFft(int lines, int cols, int in_pitch, int out_pitch, float2* scratch, cudaStream_t stream);
  // The project's column-tile kernel (cuda/fft/column_fft.cu; lines a power of two 256..16384);
  // twiddles: fft_twiddle_table(lines) on the device, owned by the caller.
  struct ColumnKernel {
    const float2* twiddles;
  };
  AzimuthFft(int lines, int cols, int in_pitch, int out_pitch, ColumnKernel columns, cudaStream_t stream);
  // The two-step column FFT (lines 16 or 32 x a power of two 256..4096); twiddles: fft_twiddle_table(lines),
  // part_twiddles: fft_twiddle_table(two_step_part_lines(lines)), owned by the caller. The forward's rows come out in
  // two_step_spectrum_bin order, which the inverse takes.
  struct TwoStep {
    const float2* twiddles;
    const float2* part_twiddles;
    // Radix 16: the forward's input holds pass 1's 16-point step (launch_range_spectrum_first_step) and the forward is
    // launch_two_step_column_pass alone; the spectrum is in natural order, which the inverse takes
    // (launch_two_step_inverse_from_natural, through `scratch`: lines x round_up(cols, 4)). Out of place.
    bool natural_spectrum = false;
    float2* scratch = nullptr;
  };
  AzimuthFft(int lines, int cols, int in_pitch, int out_pitch, TwoStep two_step, cudaStream_t stream);
  AzimuthFft(const AzimuthFft&) = delete;
  AzimuthFft& operator=(const AzimuthFft&) = delete;
  AzimuthFft(AzimuthFft&& o) noexcept { *this = std::move(o); }
  AzimuthFft& operator=(AzimuthFft&& o) noexcept;
  ~AzimuthFft();
  void exec(const float2* in, float2* out, int direction);
  bool transposed() const { return scratch_ != nullptr; }
  bool own_columns() const { return twiddles_ != nullptr && part_twiddles_ == nullptr; }
  bool two_step() const { return part_twiddles_ != nullptr; }
  const char* name() const {
    return two_step() ? "two-step columns" : own_columns() ? "own column kernel" : transposed() ? "T+cuFFT+T" : "cuFFT (strided)";
  }

 private:
  cufftHandle plan_ = 0;
  int lines_ = 0, cols_ = 0, in_pitch_ = 0, out_pitch_ = 0;
  float2* scratch_ = nullptr;  // cols x lines, when transposing
  cudaStream_t stream_ = nullptr;
  const float2* twiddles_ = nullptr;       // own column kernel, two-step
  const float2* part_twiddles_ = nullptr;  // two-step
  bool natural_spectrum_ = false;          // two-step
  float2* natural_scratch_ = nullptr;      // two-step, natural spectrum
};

class CudaRda final : public PlanImpl {
 public:
  CudaRda(const RadarParams& radar, std::size_t lines, std::size_t samples, const FocusOptions& options,
          std::size_t nfft);
  ~CudaRda() override;

  void focus(const RawView& raw, ComplexImage& slc) override;
  void focus_on_device(const RawView& raw, std::complex<float>* slc) override;
  void focus_rows(const RawView& raw, RowSpan rows, SampleFormat format, void* out) override;
  void pin_host(void* data, std::size_t bytes) override;
  void unpin_host(void* data) override;

  // The chain on device-resident data: raw (lines x samples of `type`) in, the SLC to out_ (or `out`).
  // Records the stage events; does not synchronise.
  void run(SampleType type, const void* d_raw, float2* d_out);
  // Stage times (s) of the last run(), after the stream has been synchronised.
  StageTimes elapsed() const;

  cudaStream_t stream() const { return stream_; }
  float2* device_output() const { return out_.get(); }
  std::byte* device_raw() const { return raw_.get(); }
  const float2* range_filter() const { return filter_.get(); }
  const float2* twiddles() const { return twiddles_.get(); }
  std::size_t device_bytes() const;
  // Device memory a plan of this shape and pipeline will allocate (buffers, tables, cuFFT work areas,
  // VkFFT's per-line kernel), computed before allocating anything.
  static std::size_t required_device_bytes(std::size_t lines, std::size_t samples, std::size_t nfft,
                                           const FocusOptions& options);
  bool azimuth_transposed() const { return az_fwd_.transposed(); }
  const char* azimuth_fft_name() const {
    return half_math_ ? "own column kernel (FP16 arithmetic)" : fp16_storage_ ? "own column kernel (FP16 storage)" : az_fwd_.name();
  }
  // True when the range steps run through cuFFT although the fused pipeline was asked for (a range
  // FFT longer than one block of the row kernel holds).
  bool range_by_cufft() const { return range_by_cufft_; }
  // --plan estimate's rule: the two-step column FFT from this many lines (measured faster than cuFFT
  // strided from 8192 to 65536 lines, slower at 4096; docs/performance.md).
  static constexpr int kTwoStepMinLines = 8192;

 private:
  // cuFFT's azimuth FFTs at a line count that is not a power of two: the transposing scratch kept in
  // az_scratch_ when transposing times faster than strided.
  void prepare_cufft_azimuth(int lines, int cols);
  // The azimuth FFTs' engine. --plan estimate: the two-step column FFT from kTwoStepMinLines lines in
  // the fused FP32 chain, else cuFFT (prepare_cufft_azimuth's layout); --plan measure: times the
  // candidates on the work array and keeps the fastest (remembered in the wisdom file, like
  // gpu::FftPlan's choices). cuFFT's scratch is freed when another engine is kept.
  enum class AzimuthEngine { cufft_strided, own_columns, two_step };
  AzimuthEngine choose_azimuth_engine(int lines, int cols);
  // Median of 3 timed forward azimuth FFTs of the work array, after a warm-up, ms.
  float time_azimuth(AzimuthFft& f);
  void run_fused(SampleType type, const void* d_raw, float2* d_out);
  // --precision fp16-storage: the fused passes with the scene in FP16 between them, the azimuth FFTs
  // by the column-tile kernel (cuda/fft/column_fft.cu) reading and writing FP16.
  void run_fp16_storage(SampleType type, const void* d_raw, float2* d_out);
  __half2* work_half() const { return reinterpret_cast<__half2*>(work_.get()); }
  // cufft-unfused, cufft-callback and vkfft-conv: separate passes, range compression by the
  // baseline's engine.
  void run_baseline(SampleType type, const void* d_raw, float2* d_out);
  // focus() and focus_rows(): the upload and run() (then the caller queues its download), and the wait
  // with the stage times.
  void upload_and_run(const RawView& raw, const char* call);
  void finish_download();

  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_[5] = {};
  cudaEvent_t copy_ev_[4] = {};  // focus(): before and after the upload, before and after the download
  AzimuthFft az_fwd_, az_inv_;
  cufftHandle rg_fwd_ = 0, rg_inv_ = 0;
  bool have_rg_plans_ = false;
  DeviceBuffer<std::byte> raw_;
  DeviceBuffer<float2> work_, out_, tmp_, filter_, twiddles_, az_scratch_, first_step_;
  DeviceBuffer<core::DopplerRow> rows_;
  DeviceBuffer<unsigned long long> callback_info_;  // cufft-callback: the LTO callback's arguments
  DeviceBuffer<float> sinc_;
  // fp16-storage: what undoes each stored line's scale after pass 1 and pass 3, pass 1's largest
  // component (float bits), the twiddles of the azimuth (column) FFT.
  bool fp16_storage_ = false;  // fp16-storage and fp16
  bool tensor_ = false;        // tf32x3
  // Pass 1 makes the two-step azimuth FFT's 16-point step into first_step_; the forward column pass takes it to
  // work_ in natural order (AzimuthFft::TwoStep::natural_spectrum).
  bool natural_spectrum_ = false;
  bool half_math_ = false;     // fp16: the FFTs' butterflies in FP16 arithmetic
  int column_threads_ = 512;
  DeviceBuffer<float> row_factor1_, row_factor3_;
  DeviceBuffer<unsigned> spectrum_max_;
  DeviceBuffer<float2> az_twiddles_, az_part_twiddles_;
  int taps_ = 8, fractions_ = 2048;
  float sinc_abs_sum_ = 1.0f;
  SincTableView sinc() const { return {sinc_.get(), taps_, fractions_, sinc_abs_sum_}; }
  // Range-dependent Doppler band (core::AzimuthFilter): per-column shift and window table; empty when
  // the centroid is the same at every range.
  DeviceBuffer<float> column_shift_, window_;
  float window_max_ = 0.0f;
  AzimuthBandView band() const {
    return {column_shift_.get(), window_.get(), core::AzimuthFilter::kWindowIntervals,
            1.0f / static_cast<float>(lines), window_max_};
  }
  bool src_any_ = false;
  bool range_by_cufft_ = false;
  std::unique_ptr<VkfftConv> vkfft_;
};

}  // namespace sarfuse::cuda
